"""The receipt profiles (schema tag → checks): JCR-1 "1", policy/1, verdict-receipt/1, jcp/2,
jcp/1, meter-reading/1 (meter_reading.py), intercept/1 and efficiency/1 (outcomes.py). Each check raises Refusal with the project's code; a step answering nothing passed."""

import hmac
import hashlib
import json
import re

from . import fields, meter_reading, outcomes, policy
from .blake3 import blake3_hex
from .cose import Refusal

RANK = {"HwShunt": 0, "ModelBased": 1, "Estimator": 2}
BAND_PERCENT = {"HwShunt": 10, "ModelBased": 35, "Estimator": 100}


def dispatch(core):
    """(schema, profile name) or raise Refusal (structural)."""
    tags = [f for f in ("jc_receipt", "jcp_receipt") if f in core]
    if not tags:
        raise Refusal("missing-field", "no schema tag")
    if len(tags) > 1:
        raise Refusal("bad-field-value", "two schema tags")
    schema = core[tags[0]]
    if not isinstance(schema, str):
        raise Refusal("bad-field-type", tags[0])
    known = {("jc_receipt", "1"), ("jc_receipt", "policy/1"), ("jc_receipt", "verdict-receipt/1"),
             ("jcp_receipt", "jcp/2"), ("jcp_receipt", "jcp/1"), ("jc_receipt", "meter-reading/1"),
             ("jcp_receipt", "intercept/1"), ("jcp_receipt", "efficiency/1")}
    if (tags[0], schema) in known:
        return schema
    if tags[0] == "jc_receipt" and re.fullmatch(r"[0-9]+", schema):
        raise Refusal("unknown-major", schema)
    raise Refusal("unsupported-schema", schema)


# SPEC §10, §16.7, JCP §8: the sibling envelopes are {1: -8, 4: steward}, EdDSA only; JCR-1 §4's
# ES256 is the cascade receipt's alone (docs/DECISIONS.md "Divergences").
EDDSA_ONLY = {"policy/1", "verdict-receipt/1", "jcp/2", "jcp/1", "intercept/1", "efficiency/1"}


def structure(schema, core):
    # SPEC §13: the canonical signed core MUST NOT include @context.
    if "@context" in core:
        raise Refusal("context-in-core")
    if schema == "meter-reading/1":
        fields.check_fields(core, meter_reading.FIELDS)
    elif schema in outcomes.TABLES:
        outcomes.structure(schema, core)
    elif schema == "1":
        fields.check_fields(core, fields.JCR1)
        if "token_attributions" in core:
            raise Refusal("field-not-allowed", "token_attributions")
        for c in core.get("citations", []):
            if c["text_span"]["start"] > c["text_span"]["end"]:
                raise Refusal("bad-field-value", "text_span")
    elif schema == "policy/1":
        fields.check_fields(core, fields.POLICY)
        for name, variants in (("action", fields.POLICY_ACTIONS), ("decision", fields.POLICY_DECISIONS)):
            m = core[name]
            fields.check_fields(m, {"kind": (("enum", tuple(variants)), True)}, name)
            fields.check_fields(m, variants[m["kind"]], name)
    elif schema == "verdict-receipt/1":
        fields.check_fields(core, fields.VERDICT)
    else:
        fields.check_fields(core, fields.JCP2 if schema == "jcp/2" else fields.JCP1)
        table = fields.JCP2 if schema == "jcp/2" else fields.JCP1
        if schema == "jcp/1" and "payload_hash" in core:
            raise Refusal("field-not-allowed", "payload_hash in jcp/1")
        # JCP §8: the core field list is per-profile; §8.1: a member the profile lacks is refused.
        unknown = [k for k in core if k not in table]
        if unknown:
            raise Refusal("field-not-allowed", f"{unknown[0]!r} is not a {schema} member")
        if ("seq" in core) != ("prev" in core):
            raise Refusal("missing-field", "seq/prev")


def _hmac_payload(tr):
    parts = [tr["tool_id"], str(tr["joules_uj"]), tr["energy_provenance"], tr["minted_at"], tr["gateway_id"]]
    if any("\0" in p for p in parts):
        raise Refusal("hmac-field-nul")
    return "\0".join(parts).encode("utf-8")


def tool_receipts(schema, core, cfg):
    """Return the skip code, or None when every tool receipt verified."""
    if schema != "1":
        return "not-applicable"
    trs = core.get("tool_receipts", [])
    if not trs:
        return "no-tool-receipts"
    for tr in trs:
        key = cfg.gateway_keys.get(tr["gateway_id"])
        if key is None:
            raise Refusal("unknown-gateway", tr["gateway_id"])
        mac = hmac.new(key, _hmac_payload(tr), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, tr["hmac_sha256_hex"]):  # JCR-1 §5: constant time
            raise Refusal("tool-hmac-mismatch", tr["tool_id"])
    return None


def honesty(schema, core, cfg):
    if schema == "meter-reading/1":
        meter_reading.honesty(core)
    elif schema in outcomes.TABLES:
        outcomes.honesty(schema, core)
    elif schema == "1":
        touched, attested = core.get("tools_touched", []), core.get("tool_receipts", [])
        worst = max((RANK[r["energy_provenance"]] for r in touched + attested), default=None)
        if worst is not None and RANK[core["energy_provenance"]] != worst:
            raise Refusal("provenance-not-worst")
        if core["joules_uj"] < sum(t["joules_uj"] for t in touched):
            raise Refusal("joules-below-tools")
        for fig in [core] + touched + attested:
            if fig["energy_provenance"] != "HwShunt" and fig["joules_uj"] % 1000:
                raise Refusal("sub-mj-precision")
        if core["tier"] in ("L0", "L1") and core.get("claims"):
            raise Refusal("claims-on-deterministic-tier")
    elif schema == "policy/1":
        d = core.get("policy_digest")
        if d is None or not cfg.policies:
            return
        bound = next((p for p in cfg.policies if policy.digest(p) == d), None)
        if bound is None:
            raise Refusal("policy-digest-mismatch")
        dec = core["decision"]
        if "rule" in dec:
            r = next((r for r in bound["rules"] if r["name"] == dec["rule"]), None)
            if r is None or r["effect"] != dec["kind"]:
                raise Refusal("policy-rule-mismatch")
    elif schema == "verdict-receipt/1":
        if blake3_hex(core["verdict_json"].encode("utf-8")) != core["verdict_hash"]:
            raise Refusal("verdict-hash-mismatch")
        try:
            v = json.loads(core["verdict_json"])
        except ValueError:
            raise Refusal("verdict-json-invalid")
        if not isinstance(v, dict):
            raise Refusal("verdict-json-invalid")
        if v.get("contract_hash") != core["contract_hash"]:
            raise Refusal("verdict-contract-mismatch")
    else:
        if (core["verdict"] == "deny") != ("deny_reason" in core):
            raise Refusal("deny-reason-misplaced")
        if "energy_coverage" in core and core["energy_coverage"] != "Partial":
            raise Refusal("bad-coverage")
        for name in ("chain_debited_uj", "chain_debited_minor"):
            if name in core and ("chain_ids" not in core or len(core[name]) != len(core["chain_ids"])):
                raise Refusal("chain-length-mismatch")


def joules(schema, core, cfg):
    if schema != "1":
        return "not-applicable"
    ref = cfg.reference_vectors.get(core["input_hash"])
    if ref is None:
        return "joule-unverified"
    diff = abs(core["joules_uj"] - ref)
    if diff * 100 > BAND_PERCENT[core["energy_provenance"]] * ref:
        raise Refusal("out-of-band")
    return "within-band"
