"""JCP §5.2 and §5.3, read from the spec text: the intercept/1 step receipt and the efficiency/1
outcome receipt (field lists as docs/DECISIONS.md "intercept/1 and efficiency/1" fixes the members
the spec leaves open), and the outcome trace a log runs at append (trace_log).

§5.2: coverage is carried only when Partial; a present coverage that is anything but "Partial" is
refused. A Partial efficiency receipt carries no uj_per_accepted_token.
§5.3: an outcome names its activities by content id; they are resolved and re-added; the
residual outcome_total_uj − Σ activities is signed and never clamped; an activity bound twice is
refused before the sum; provenance and coverage of the whole take the floor of the parts."""

from .blake3 import blake3_hex
from .cose import Refusal
from .fields import PROV, R, O, check_fields

INTERCEPT = {
    "jcp_receipt": ("text", R), "step": ("text", R), "payload_hash": ("hex64", R),
    "joules_uj": ("uint", R), "provenance": (PROV, R), "coverage": ("text", O),
    "closed_at": ("rfc3339", R), "steward": ("text", R),
}
EFFICIENCY = {
    "jcp_receipt": ("text", R), "outcome": ("text", R), "outcome_total_uj": ("uint", R),
    "energy_provenance": (PROV, R), "energy_coverage": ("text", O),
    "activities": (("array", "hex64"), R), "activities_uj": ("uint", R), "residual_uj": ("int", R),
    "accepted_tokens": ("uint", O), "uj_per_accepted_token": ("uint", O),
    "closed_at": ("rfc3339", R), "steward": ("text", R),
}
TABLES = {"intercept/1": INTERCEPT, "efficiency/1": EFFICIENCY}
GRADE = {"HwShunt": 0, "ModelBased": 1, "Estimator": 2}  # lower is more measured


def structure(schema, core):
    table = TABLES[schema]
    check_fields(core, table)
    extra = sorted(k for k in core if k not in table)
    if extra:
        raise Refusal("field-not-allowed", f"{extra[0]!r} is not a {schema} member")


def _partial_only(core, name):
    if name in core and core[name] != "Partial":
        raise Refusal("bad-coverage", f"{name} = {core[name]!r}")


def honesty(schema, core):
    if schema == "intercept/1":
        _partial_only(core, "coverage")
        return
    _partial_only(core, "energy_coverage")
    if core.get("energy_coverage") == "Partial" and "uj_per_accepted_token" in core:
        raise Refusal("partial-per-unit")
    named = core["activities"]
    if len(named) == 0:
        raise Refusal("activities-missing")
    if len(set(named)) != len(named):
        raise Refusal("activity-bound-twice")
    if core["residual_uj"] != core["outcome_total_uj"] - core["activities_uj"]:
        raise Refusal("residual-mismatch")
    if "uj_per_accepted_token" in core:
        tokens = core.get("accepted_tokens", 0)
        if tokens <= 0 or core["uj_per_accepted_token"] != core["outcome_total_uj"] // tokens:
            raise Refusal("per-token-mismatch")


def figure(core):
    """An activity's (µJ, grade, partial), or None for an entry that is no activity."""
    tag = core.get("jcp_receipt", core.get("jc_receipt"))
    if tag == "intercept/1":
        return core["joules_uj"], GRADE[core["provenance"]], core.get("coverage") == "Partial"
    if tag in ("jcp/2", "jcp/1"):
        return core["cost_uj"], GRADE[core["energy_provenance"]], core.get("energy_coverage") == "Partial"
    if tag == "1":
        return core["joules_uj"], GRADE[core["energy_provenance"]], False
    return None


def trace_log(entries, decode):
    """Replays a log of envelopes (bytes) in order; answers each entry's outcome: "logged", or the
    refusal code of an efficiency/1 outcome that does not trace. `decode(envelope)` answers its
    core. An activity resolves by the content id of its envelope (BLAKE3 of its bytes) among the
    entries logged before it; a refused entry is not logged."""
    logged = {}  # content id -> core
    bound = set()
    out = []
    for env in entries:
        core = decode(env)
        if core.get("jcp_receipt") == "efficiency/1":
            code = _trace(core, logged, bound)
            if code:
                out.append(code)
                continue
            bound.update(core["activities"])
        logged[blake3_hex(env)] = core
        out.append("logged")
    return out


def _trace(core, logged, bound):
    total, worst, partial = 0, 0, False
    for cid in core["activities"]:
        if cid not in logged:
            return "activity-unresolved"
        f = figure(logged[cid])
        if f is None:
            return "activity-not-activity"
        total += f[0]
        worst = max(worst, f[1])
        partial = partial or f[2]
    if total != core["activities_uj"]:
        return "activities-sum-mismatch"
    if GRADE[core["energy_provenance"]] < worst:
        return "provenance-above-floor"
    if partial and core.get("energy_coverage") != "Partial":
        return "coverage-above-floor"
    if any(cid in bound for cid in core["activities"]):
        return "activity-bound-twice"
    return None
