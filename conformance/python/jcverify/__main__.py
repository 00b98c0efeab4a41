"""python3 -m jcverify <vectors-dir> [...] — re-verifies every vector file in the given folders.

Each JSON file is offered to the registered checkers (CHECKERS: a module with handles(doc) and
check_file(doc, cfg, name)); operator-config.json is the folder's configuration. A file no
checker handles is an error. Exit 0 when every vector agrees, 1 when one does not, 2 when a
dependency is missing (the message names the Debian package).
"""

import json
import os
import sys

from . import deps


def main(argv):
    try:
        deps.check()
    except deps.MissingDependency as e:
        print(str(e), file=sys.stderr)
        return 2
    from . import receipts, tlog
    from .config import Config

    CHECKERS = [receipts, tlog]  # tlog: C-TLOG vectors (conformance/tlog/)
    if not argv:
        print("Usage: python3 -m jcverify <vectors-dir> [...]", file=sys.stderr)
        return 2
    total = bad = envelope_only = 0
    for d in argv:
        cfg = Config.load(d)
        for fn in sorted(os.listdir(d)):
            if not fn.endswith(".json") or fn == "operator-config.json":
                continue
            with open(os.path.join(d, fn), encoding="utf-8") as f:
                doc = json.load(f)
            checker = next((c for c in CHECKERS if c.handles(doc)), None)
            if checker is None:
                print(f"FAIL {fn}: no checker handles this file", file=sys.stderr)
                bad += 1
                continue
            for name, ok, msg in checker.check_file(doc, cfg, fn):
                total += 1
                envelope_only += msg == "envelope-only"
                if not ok:
                    bad += 1
                    print(f"FAIL {fn} {name}: {msg}", file=sys.stderr)
    print(f"jcverify: checked {total} vectors, {bad} disagreements "
          f"({envelope_only} envelope-only: schemas not implemented here)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
