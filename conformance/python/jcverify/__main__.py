"""python3 -m jcverify — the independent Python verifier's command line (run from conformance/python/).

  python3 -m jcverify RECEIPT [--config OPERATOR-CONFIG.json] [--key-events EVENTS.json] [--compact]
      verifies one receipt (JCR-1 §6): a COSE_Sign1 file as raw bytes, hex, or {"envelope": hex}
      ("-" reads stdin), the three forms `deno task verify` reads; prints a JSON report.
      The report carries the verdict class (valid, joule-unverified, alert, invalid: JCR-1 §6,
      SPEC §6). Exit 0 for any verdict but invalid, 1 invalid, 2 unusable (unreadable input, a missing dependency, a usage error,
      or a schema this verifier does not implement: it cannot judge those).
  python3 -m jcverify VECTORS-DIR [...]
      re-verifies every vector file in the given folders (operator-config.json beside them).
      Exit 0 when every vector agrees, 1 when one does not, 2 as above.

Each vector JSON file is offered to the registered checkers (CHECKERS: a module with handles(doc)
and check_file(doc, cfg, name)); a file no checker handles is an error. A missing dependency is
named by its Debian package. Never a traceback: every failure is a message and an exit status.
"""

import argparse
import json
import os
import re
import sys

from . import deps

EXIT_VALID, EXIT_INVALID, EXIT_UNUSABLE = 0, 1, 2


class Unusable(Exception):
    """The input cannot be verified at all (exit 2)."""


def _parser():
    p = argparse.ArgumentParser(
        prog="python3 -m jcverify",
        description="The independent Python verifier of JouleClaw receipts (JCR-1 §6) and of the "
                    "conformance vectors. Given one receipt file, verifies it; given folders, "
                    "re-verifies every vector file in them.",
        epilog="Exit status: 0 valid, joule-unverified or alert (the report's verdict; every "
               "vector agrees), 1 invalid (a vector disagrees), "
               "2 unusable: unreadable input, usage, a missing dependency, or a schema not "
               "implemented here. Details: conformance/python/README.md.",
    )
    p.add_argument("paths", nargs="+", metavar="RECEIPT|VECTORS-DIR",
                   help='a receipt (raw COSE bytes, hex or {"envelope": hex}; - for stdin), '
                        "or one or more folders of vector files")
    p.add_argument("--config", metavar="FILE",
                   help="operator configuration for a receipt (verify/'s operator-config.json "
                        "format: gateway_keys, keys, reference_vectors, policies)")
    p.add_argument("--key-events", metavar="FILE",
                   help='the log\'s key events before the receipt, in log order (JSON: a list of '
                        'hex envelopes, or {"entries": [hex...]}): a steward with a chain is '
                        "bound to its current key (JCP §2.1, docs/KEYS.md; resolved by jckeys)")
    p.add_argument("--compact", action="store_true", help="one-line JSON report")
    return p


def envelope_from_input(data: bytes) -> bytes:
    """The envelope in `data`: the rules of verify/cli.ts envelopeFromInput, written here again."""
    if not data:
        raise Unusable("Cannot read envelope: the input is empty")
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        return data  # not UTF-8: raw bytes
    if text.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise Unusable(f"Cannot read envelope: input looks like JSON but does not parse ({e})")
        hexed = doc.get("envelope") if isinstance(doc, dict) else None
        if not isinstance(hexed, str):
            raise Unusable('Cannot read envelope: JSON input must be {"envelope": "<hex>"}')
        return _from_hex(hexed)
    if text and re.fullmatch(r"[0-9a-fA-F\s]+", text):
        return _from_hex(re.sub(r"\s+", "", text))
    if data[0] in (0x84, 0xD2):
        return data
    raise Unusable('Cannot read envelope: the input is neither a COSE_Sign1, hex, nor {"envelope": hex}')


def _from_hex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise Unusable("Cannot read envelope: the hex is not whole bytes")


def identities_from(path: str) -> dict:
    """identity -> current key, resolved from a log's key events in log order (jckeys)."""
    from jckeys.resolve import Log
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        entries = doc["entries"] if isinstance(doc, dict) else doc
        log = Log()
        for h in entries:
            log.offer(bytes.fromhex(h))
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise Unusable(f"Cannot read the key events {path}: {e}")
    return {d: log.state(d)["current"] for d in log.chains}


def verify_receipt(path: str, config_path, compact: bool, key_events=None) -> int:
    from . import receipts
    from .config import Config

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise Unusable(f"Cannot read {path}: {e.strerror or e}")
    envelope = envelope_from_input(data)
    cfg = Config({})
    if config_path:
        try:
            with open(config_path, encoding="utf-8") as f:
                cfg = Config(json.load(f))
        except (OSError, ValueError, TypeError, AttributeError) as e:
            raise Unusable(f"Cannot read the operator config {config_path}: {e}")
    if key_events:
        cfg.identities = identities_from(key_events)
    valid, codes, verdict = receipts.verify(envelope, cfg)
    report = {"valid": valid, "verdict": verdict, "codes": codes, "verifier": "jcverify (Python)"}
    schema = _schema(envelope)
    if schema is not None:
        report["schema"] = schema
    print(json.dumps(report, separators=(",", ":")) if compact else json.dumps(report, indent=2))
    if codes == ["unsupported-schema"] and schema is not None:
        print(f"jcverify: schema {schema} is not implemented here; the envelope is sound but "
              "its rules were not checked (use deno task verify)", file=sys.stderr)
        return EXIT_UNUSABLE
    return EXIT_VALID if valid else EXIT_INVALID


def _schema(envelope: bytes):
    """The core's schema tag, when the envelope decodes that far (for the report only)."""
    try:
        import cbor2
        arr = cbor2.loads(envelope)
        arr = getattr(arr, "value", arr)  # tag 18
        core = cbor2.loads(arr[2])
        return next((core[k] for k in ("jc_receipt", "jcp_receipt") if k in core), None)
    except Exception:
        return None


def verify_vectors(dirs) -> int:
    from . import receipts, tlog, traces
    from .config import Config

    # tlog: C-TLOG vectors (conformance/tlog/); traces: outcome traces (JCP §5.3)
    CHECKERS = [receipts, tlog, traces]
    total = bad = envelope_only = 0
    for d in dirs:
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


def main(argv):
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2, usage on stderr)
        return e.code if isinstance(e.code, int) else EXIT_UNUSABLE
    try:
        deps.check()
    except deps.MissingDependency as e:
        print(str(e), file=sys.stderr)
        return EXIT_UNUSABLE
    dirs = [p for p in args.paths if p != "-" and os.path.isdir(p)]
    try:
        if len(dirs) == len(args.paths):
            if args.config or args.compact or args.key_events:
                raise Unusable("--config and --compact are for one receipt (vector folders carry "
                               "their own operator-config.json)")
            return verify_vectors(dirs)
        if len(args.paths) != 1:
            raise Unusable("give one receipt file, or only folders of vectors")
        return verify_receipt(args.paths[0], args.config, args.compact, args.key_events)
    except Unusable as e:
        print(f"python3 -m jcverify: {e}", file=sys.stderr)
        return EXIT_UNUSABLE
    except Exception as e:  # a bug here: said, never a traceback
        print(f"python3 -m jcverify: Cannot verify: internal error {type(e).__name__}: {e}",
              file=sys.stderr)
        return EXIT_UNUSABLE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
