"""The outcome-trace vector files (kind "outcome-trace-vectors/1"): each vector's envelopes replayed
as a log by outcomes.trace_log (JCP §5.3), its answers compared with the expected ones."""

import cbor2

from . import cose, outcomes


def handles(doc) -> bool:
    return isinstance(doc, dict) and doc.get("kind") == "outcome-trace-vectors/1"


def _core(envelope):
    return cbor2.loads(cose.parse(envelope)[2])


def check_file(doc, cfg, name):
    for v in doc["vectors"]:
        got = outcomes.trace_log([bytes.fromhex(h) for h in v["entries"]], _core)
        ok = got == v["expected"]
        yield (v["name"], ok, "agrees" if ok else f"expected {v['expected']}, got {got}")
