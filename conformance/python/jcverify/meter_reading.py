"""meter-reading/1, the second implementation (issue 26): written from docs/METER-READING.md and
JCP §5 / §5.1 / §5.2, SPEC §1.3 — not from verify/profiles/*.ts. The field table and the honesty
step, whose rules are applied in the order the document lists them (the first one broken is the
answer). The service's chain checks (overlap, future, calibration) need the log's state and are not
here. tests/verify/meter_reading_agreement_test.ts holds this module and the TypeScript verifier to
the same answers on every vector and on 10^4 generated readings."""

import re

from .cose import Refusal

R, O = True, False
RUNG_ORDER = ["rapl", "nvml", "ina3221", "model", "estimator"]
DOMAINS = ("cpu-packages", "gpu", "board", "host")

# --- the signed core (docs/METER-READING.md "Signed core"), in the document's order
_EVIDENCE = {"name": ("text", R), "interval_us": (("array", "uint"), R), "delta": (("array", "uint"), R)}
_BOUND = {
    "name": ("text", R), "energy_uj": ("uint", R), "rate_mw": ("uint", R), "limit_mw": ("uint", O),
    "draw_samples": ("uint", R), "draw_discarded": ("uint", R), "draw_mean_mw": ("uint", O),
    "ceiling_mw": ("uint", O), "floor_mw": ("uint", O),
    "status": (("enum", ("not-refuted", "implausible", "unjudgeable", "no-bound")), R),
    "bound": (("enum", ("limit", "draw-ceiling", "draw-floor")), O),
}
FIELDS = {
    "jc_receipt": (("enum", ("meter-reading/1",)), R), "agent": ("didkey", R), "seq": ("uint", R),
    "prev": ("hex64", R), "host": ("text", R), "counter": (("enum", tuple(RUNG_ORDER)), R),
    "domain": (("enum", DOMAINS), R), "start": ("uint", R), "end": ("uint", R),
    "energy_uj": ("uint", R), "energy_provenance": (("enum", ("HwShunt", "ModelBased", "Estimator")), R),
    "energy_coverage": (("enum", ("Partial",)), O), "resolution_uj": ("uint", R),
    "liveness": (("map", {"tick_us": ("uint", R), "probed_at": ("uint", R),
                          "counters": (("array", ("map", _EVIDENCE)), R)}), O),
    "plausibility": (("map", {"status": ("text", R), "counters": (("array", ("map", _BOUND)), R)}), O),
    "declined": (("array", ("map", {"rung": (("enum", tuple(RUNG_ORDER)), R), "reason": ("text", R),
                                    "detail": ("text", O)})), R),
    "calibration": ("hex64", O),
    "gap": (("enum", ("restart", "refused")), O),
}

# --- what each rung may claim (JCP §5.1; JCR-1 §2.3 resolution floors)
GRADE = {"rapl": "HwShunt", "nvml": "HwShunt", "ina3221": "HwShunt",
         "model": "ModelBased", "estimator": "Estimator"}
READS = {"rapl": {"cpu-packages"}, "nvml": {"gpu"}, "ina3221": {"board"},
         "model": set(DOMAINS), "estimator": set(DOMAINS)}
FINEST_UJ = {"rapl": 1}  # every other rung: 1 mJ

# --- the thresholds (docs/METER-READING.md "Thresholds")
TICK_US = 25_000              # JCP §5: the probe's 25 ms tick
LONGEST_COUNTED_US = 75_000   # "only one no longer than three of the probe's ticks ... counts"
WINDOW_MS = {"rapl": 10, "nvml": 50, "ina3221": 100}  # SPEC §1.3 min_window_ns
EVIDENCE_BEFORE_MS = 120_000  # JCP §5 "only while": probed at most 2 min before the span
ACCURACY_MW = 5_000           # JCP §5: the draw's ±5 W

NAMES = {"rapl": re.compile(r"package-(0|[1-9][0-9]{0,3})"),
         "nvml": re.compile(r"gpu(0|[1-9][0-9]{0,3})(:.*)?", re.DOTALL)}


def is_live(lengths_us, advances):
    """JCP §5 Liveness: advancing in at least 5 counted intervals, in at least 4 of every 5
    consecutive ones, over at least 300 ms of counted intervals (a longer interval is nothing)."""
    kept = [(us, adv > 0) for us, adv in zip(lengths_us, advances) if us <= LONGEST_COUNTED_US]
    moved = [m for _, m in kept]
    if sum(moved) < 5 or sum(us for us, _ in kept) < 300_000:
        return False
    return all(sum(moved[i:i + 5]) >= 4 for i in range(len(moved) - 4))


def _complete(rung, names):
    """'ok', 'foreign' (a name no counter of the rung has) or 'incomplete' (indices not 0..k-1)."""
    found = []
    for n in names:
        m = NAMES[rung].fullmatch(n)
        if m is None:
            return "foreign"
        found.append(int(m.group(1)))
    return "ok" if found and sorted(found) == list(range(len(found))) else "incomplete"


def _bounds_broken(rate, limit, mean):
    """Whether a rate breaks the limit ceiling, the draw ceiling or the draw floor (JCP §5)."""
    if limit is not None and rate > limit + max(5_000, -(-limit // 10)):
        return True
    if mean is not None:
        if rate > 2 * (mean + ACCURACY_MW):
            return True
        floor = (mean - ACCURACY_MW) // 4
        if floor > 0 and rate < floor:
            return True
    return False


def honesty(core):
    """Raise Refusal with the first broken rule's code; return None when the reading is honest."""
    start, end, counter = core["start"], core["end"], core["counter"]
    if end <= start:
        raise Refusal("reading-bad-span")
    if core["seq"] == 0 and core["prev"] != "0" * 64:
        raise Refusal("reading-bad-genesis")
    if core["energy_provenance"] != GRADE[counter]:
        raise Refusal("reading-provenance-counter")
    if core["domain"] not in READS[counter]:
        raise Refusal("reading-domain-counter")
    if core["domain"] == "gpu" and core.get("energy_coverage") != "Partial":
        raise Refusal("reading-coverage")
    step = core["resolution_uj"]
    if step < FINEST_UJ.get(counter, 1000) or core["energy_uj"] % step:
        raise Refusal("reading-resolution")
    if any(RUNG_ORDER.index(d["rung"]) >= RUNG_ORDER.index(counter) for d in core["declined"]):
        raise Refusal("reading-declined-order")
    if ("calibration" in core) != (counter == "model"):
        raise Refusal("reading-calibration")
    if GRADE[counter] != "HwShunt":
        return None
    span_ms = end - start
    if span_ms < WINDOW_MS[counter]:
        raise Refusal("reading-span-below-window")
    proof = core.get("plausibility")
    if counter in ("rapl", "nvml"):
        live = core.get("liveness")
        if live is None or live["tick_us"] != TICK_US:
            raise Refusal("reading-not-live")
        if not (start - EVIDENCE_BEFORE_MS <= live["probed_at"] <= end):
            raise Refusal("reading-stale-evidence")
        names = [c["name"] for c in live["counters"]]
        verdict = _complete(counter, names)
        if verdict == "foreign":
            raise Refusal("reading-domain-counter")
        if verdict == "incomplete":
            raise Refusal("reading-counters-incomplete")
        for c in live["counters"]:
            if len(c["interval_us"]) != len(c["delta"]) or not is_live(c["interval_us"], c["delta"]):
                raise Refusal("reading-not-live")
        if proof is None:
            raise Refusal("reading-implausible" if counter == "nvml" else "reading-counters-incomplete")
        if [c["name"] for c in proof["counters"]] != names:
            raise Refusal("reading-counters-incomplete")
    if proof is None:
        return None
    for c in proof["counters"]:
        if c["energy_uj"] == 0 and counter in ("rapl", "nvml"):
            raise Refusal("reading-not-advanced")
        rate = c["energy_uj"] // span_ms  # µJ per ms is mW
        if c["rate_mw"] != rate:
            raise Refusal("reading-rate-mismatch")
        if c["status"] not in ("not-refuted", "no-bound"):
            raise Refusal("reading-implausible")
        if _bounds_broken(rate, c.get("limit_mw"), c.get("draw_mean_mw")):
            raise Refusal("reading-implausible")
    if proof["counters"] and sum(c["energy_uj"] for c in proof["counters"]) != core["energy_uj"]:
        raise Refusal("reading-rate-mismatch")
    return None
