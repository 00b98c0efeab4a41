"""`python3 -m jcaccounts build SEED [SEED ...]`: prints {streams: [...]} (jcaccounts/build.py).
`python3 -m jcaccounts replay`: reads {entries: [{envelope, ts}], windows: [[from, to], ...]} on
stdin (entries in log order, ts each one's integration time, a bound null when open) and prints
{windows: [{from, to, accounts: [{steward, grant, <sums>}]}]} (jcaccounts/replay.py).
"""
import json
import sys

from jcstreams.blake3 import blake3

from .build import build
from .replay import Accounts


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        json.dump({"streams": [build(int(a)) for a in sys.argv[2:]]}, sys.stdout)
        return 0
    if len(sys.argv) == 2 and sys.argv[1] == "replay":
        doc = json.load(sys.stdin)
        acc = Accounts()
        for e in doc["entries"]:
            env = bytes.fromhex(e["envelope"])
            acc.read(env, blake3(env).hex(), e["ts"])
        out = []
        for frm, to in doc["windows"]:
            w = acc.window(frm, to)
            out.append({"from": frm, "to": to, "accounts": [
                {"steward": k[0], "grant": k[1], **v} for k, v in sorted(w.items())]})
        json.dump({"windows": out}, sys.stdout)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main())
