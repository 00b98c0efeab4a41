"""Field lists of the signed cores (JCR-1 §2, SPEC §10 and §16.7, JCP §8) and their checker.

Answers the first violation as missing-field / bad-field-type / bad-field-value; unknown fields
are ignored (JCR-1 §1 invariant 4).
"""

import re

from . import didkey
from .cose import Refusal

HEX64 = re.compile(r"[0-9a-f]{64}")
RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z")
PROV = ("enum", ("HwShunt", "ModelBased", "Estimator"))


def is_uint(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _date_ok(s):
    m = RFC3339.fullmatch(s)
    if not m:
        return False
    y, mo, d, h, mi, se = (int(x) for x in m.groups()[:6])
    if not (1 <= mo <= 12 and d >= 1 and h <= 23 and mi <= 59 and se <= 60):
        return False
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    return d <= [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]


def check_value(v, t, path):
    kind = t if isinstance(t, str) else t[0]
    if kind == "text":
        if not isinstance(v, str):
            raise Refusal("bad-field-type", path)
    elif kind == "uint":
        if not is_uint(v):
            raise Refusal("bad-field-type", path)
        if not isinstance(t, str) and v > t[1]:
            raise Refusal("bad-field-value", path)
    elif kind == "int":  # a signed integer (JCP §5.3 residual_uj)
        if not isinstance(v, int) or isinstance(v, bool):
            raise Refusal("bad-field-type", path)
    elif kind in ("hex64", "rfc3339", "didkey", "enum"):
        if not isinstance(v, str):
            raise Refusal("bad-field-type", path)
        ok = {
            "hex64": lambda: HEX64.fullmatch(v) is not None,
            "rfc3339": lambda: _date_ok(v),
            "enum": lambda: v in t[1],
        }.get(kind)
        if kind == "didkey":
            try:
                didkey.public_key(v)
                ok = None
            except ValueError:
                raise Refusal("bad-field-value", path)
        elif not ok():
            raise Refusal("bad-field-value", path)
    elif kind == "array":
        if not isinstance(v, list):
            raise Refusal("bad-field-type", path)
        for i, x in enumerate(v):
            check_value(x, t[1], f"{path}[{i}]")
    elif kind == "map":
        if not isinstance(v, dict):
            raise Refusal("bad-field-type", path)
        check_fields(v, t[1], path)
    elif kind == "anymap":
        if not isinstance(v, dict):
            raise Refusal("bad-field-type", path)
    else:
        raise AssertionError(kind)


def check_fields(m, table, path=""):
    for name, (t, required) in table.items():
        where = f"{path}.{name}" if path else name
        if name not in m:
            if required:
                raise Refusal("missing-field", where)
            continue
        check_value(m[name], t, where)


R, O = True, False

TOOL_TOUCH = {"tool_id": ("text", R), "joules_uj": ("uint", R), "energy_provenance": (PROV, R)}
TOOL_RECEIPT = {**TOOL_TOUCH, "minted_at": ("rfc3339", R), "gateway_id": ("text", R), "hmac_sha256_hex": ("hex64", R)}
CLAIM = {"source": ("text", R), "content_hash": ("hex64", R), "fetched_at": ("rfc3339", R), "trust_tier": (("uint", 10), R)}  # SPEC §4: 0..10
SPAN = {"start": (("uint", 2**32 - 1), R), "end": (("uint", 2**32 - 1), R)}
CITATION = {"text_span": (("map", SPAN), R), "source_chunk_id": ("text", R), "exact_quote": ("text", R)}

JCR1 = {
    "jc_receipt": ("text", R), "id": ("text", R), "closed_at": ("rfc3339", R), "input_hash": ("hex64", R),
    "tier": (("enum", ("L0", "L1", "L2", "L3", "L4")), R), "joules_uj": ("uint", R), "energy_provenance": (PROV, R),
    "steward": ("text", R), "tools_touched": (("array", ("map", TOOL_TOUCH)), O),
    "claims": (("array", ("map", CLAIM)), O), "tool_receipts": (("array", ("map", TOOL_RECEIPT)), O),
    "eoc_stage": ("text", O), "citations": (("array", ("map", CITATION)), O),
}

POLICY = {
    "jc_receipt": ("text", R), "id": ("text", R), "closed_at": ("rfc3339", R), "steward": ("text", R),
    "engine_id": ("text", R), "audit_sequence": ("uint", R), "policy_version": ("uint", R),
    "policy_digest": ("hex64", O), "agent": ("didkey", R), "action": ("anymap", R), "decision": ("anymap", R),
}
POLICY_ACTIONS = {
    "filesystem": {"path": ("text", R), "mode": ("text", R)},
    "network": {"host": ("text", R), "port": (("uint", 65535), R), "method": ("text", R)},
    "process": {"binary": ("text", R), "argv": (("array", "text"), O)},
}
POLICY_DECISIONS = {"allow": {"rule": ("text", R)}, "deny": {"reason": ("text", R), "rule": ("text", O)}}

VERDICT = {
    "jc_receipt": ("text", R), "id": ("text", R), "closed_at": ("rfc3339", R), "steward": ("text", R),
    "engine_id": ("text", R), "audit_sequence": ("uint", R), "contract_hash": ("hex64", R),
    "verdict_json": ("text", R), "verdict_hash": ("hex64", R),
}

JCP2 = {
    "jcp_receipt": ("text", R), "grant_id": ("hex64", R), "issuer": ("didkey", R), "subject": ("didkey", R),
    "resource": ("hex64", R), "action": ("text", R), "payload_hash": ("hex64", R), "frame_kind": ("text", R),
    "trust": (("enum", ("control", "data")), R), "verdict": (("enum", ("allow", "deny")), R),
    "deny_reason": ("text", O), "cost_uj": ("uint", R), "energy_provenance": (PROV, R),
    "energy_coverage": ("text", O), "budget_remaining_uj": ("uint", R), "budget_uj": ("uint", R),
    "debited_uj": ("uint", O), "chain_ids": (("array", "hex64"), O), "chain_debited_uj": (("array", "uint"), O),
    "debited_minor": ("uint", O), "chain_debited_minor": (("array", "uint"), O), "tainted_uj": ("uint", O),
    "held_uj": ("uint", O), "held_minor": ("uint", O), "settles": ("hex64", O), "minted_uj": ("uint", O),
    "seq": ("uint", O), "prev": ("hex64", O), "flow": ("anymap", O), "steward": ("text", R),
}
JCP1 = {k: v for k, v in JCP2.items() if k != "payload_hash"}
