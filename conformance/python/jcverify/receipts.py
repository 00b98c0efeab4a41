"""JCR-1 §6 over one envelope: six steps in the project's order, every step that can run is run,
and the result is (valid, failing codes in step order, verdict class). Also the checker of a
receipt-vector file.

Verdict classes (JCR-1 §6, JouleClaw SPEC §6), decided here again from the steps: "invalid" when any
of steps 1-5 fails; else "alert" when step 6 is out of band (SPEC §6: "a non-conformance signal, not
a hard failure"); else "joule-unverified" when there is no reference vector for the input class;
else "valid". valid is verdict != "invalid"."""

import cbor2

from . import cose, didkey, ed25519, es256, profiles
from .cbor_scan import ScanError, scan
from .cose import Refusal

CANONICAL_FORM = {"unsorted-keys", "non-shortest-head", "indefinite-length"}

# The codes this verifier decides exactly as verify/ does; any other refusal code from a vector is
# still required to be a refusal here, but its code is not compared.
IMPLEMENTED = {
    "truncated", "trailing-bytes", "reserved-ai", "non-shortest-head", "indefinite-length", "lone-break",
    "float", "simple-value", "tag", "invalid-utf8", "unsorted-keys", "duplicate-key", "unsupported-key",
    "too-deep", "too-many-items",
    "cose-wrong-tag", "cose-not-array", "cose-protected-not-bstr", "cose-protected-not-canonical",
    "cose-protected-keys", "cose-bad-alg", "cose-kid-not-text",
    "cose-unprotected-not-empty", "cose-payload-not-bstr", "cose-bad-signature",
    "core-not-map", "missing-field", "bad-field-type", "bad-field-value", "field-not-allowed",
    "unknown-major", "unsupported-schema", "bad-did-key", "unknown-kid", "kid-steward-mismatch",
    "bad-signature", "unknown-gateway", "tool-hmac-mismatch", "hmac-field-nul", "provenance-not-worst",
    "joules-below-tools", "sub-mj-precision", "claims-on-deterministic-tier", "policy-digest-mismatch",
    "policy-rule-mismatch", "verdict-hash-mismatch", "verdict-json-invalid", "verdict-contract-mismatch",
    "deny-reason-misplaced", "bad-coverage", "chain-length-mismatch", "out-of-band",
    "did-key-p256-uncompressed", "p256-key-encoding", "p256-key-not-on-curve", "kid-alg-mismatch",
    "es256-r-range", "es256-s-range", "context-in-core", "alg-not-for-profile", "reading-agent-kid",
    "key-rotated-out",
    # meter-reading/1 (meter_reading.py)
    "reading-bad-span", "reading-bad-genesis", "reading-provenance-counter", "reading-domain-counter",
    "reading-coverage", "reading-resolution", "reading-declined-order", "reading-not-live",
    "reading-implausible", "reading-rate-mismatch", "reading-stale-evidence", "reading-span-below-window",
    "reading-counters-incomplete", "reading-not-advanced", "reading-calibration",
    # intercept/1, efficiency/1 (outcomes.py)
    "partial-per-unit", "activities-missing", "activity-bound-twice", "residual-mismatch",
    "per-token-mismatch",
}


# Refusals decided on the envelope of any schema, this verifier's own or not (the signer binding).
ENVELOPE_CODES = {"reading-agent-kid"}


def _run(f, *a):
    try:
        f(*a)
        return None
    except Refusal as e:
        return e.code


SCHEMAS = {"1", "policy/1", "verdict-receipt/1", "jcp/2", "jcp/1", "meter-reading/1", "intercept/1",
           "efficiency/1"}


def verify(envelope: bytes, cfg):
    fails = {}
    core = None
    schema = None
    env = None
    try:
        env = cose.parse(envelope)
    except Refusal as e:
        fails["structural"] = e.code
    if env:
        prot, kid, payload, sig, alg = env
        try:
            scan(payload)
            core = cbor2.loads(payload)
        except ScanError as e:
            if e.code in CANONICAL_FORM:
                fails["canonical"] = e.code
            else:
                fails["structural"] = e.code
        if core is not None:
            if not isinstance(core, dict):
                fails["structural"] = "core-not-map"
                core = None
            else:
                try:
                    schema = profiles.dispatch(core)
                    profiles.structure(schema, core)
                except Refusal as e:
                    fails["structural"] = e.code
                    schema = None
                # JCR-1 §3.3: recompute CORE, byte-identical to the payload
                if cbor2.dumps(core, canonical=True) != payload and "canonical" not in fails:
                    fails["canonical"] = "non-canonical"
        # signature: kid → typed key, kid == steward, key type == alg, strict Ed25519 or ES256
        try:
            if kid.startswith("did:key:"):
                try:
                    key_alg, pub = didkey.typed_key(kid)
                except didkey.KeyRefusal as e:
                    raise Refusal(e.code)
            else:
                typed = cfg.keys.get(kid)
                if typed is None:
                    raise Refusal("unknown-kid")
                key_alg, pub = typed
            tag = core.get("jc_receipt", core.get("jcp_receipt")) if isinstance(core, dict) else None
            if isinstance(tag, str) and tag in profiles.EDDSA_ONLY and alg != -8:
                raise Refusal("alg-not-for-profile")
            # the kid is the steward (SPEC §10, §16.7, JCP §8); a meter reading's, its agent
            signer, code = (("agent", "reading-agent-kid") if tag == "meter-reading/1"
                            else ("steward", "kid-steward-mismatch"))
            # JCP §2.1 (docs/KEYS.md): a steward with a key-event chain (--key-events: the log's
            # events, resolved by jckeys) is controlled by its chain's current key
            current = (cfg.identities.get(core.get(signer))
                       if signer == "steward" and isinstance(core, dict)
                       and isinstance(core.get(signer), str) else None)
            if current is not None:
                if current != kid:
                    raise Refusal("key-rotated-out")
            elif isinstance(core, dict) and isinstance(core.get(signer), str) and core[signer] != kid:
                raise Refusal(code)
            if key_alg != alg:
                raise Refusal("kid-alg-mismatch")
            msg = cose.sig_structure(prot, payload)
            if alg == -7:
                problem = es256.signature_problem(sig)
                if problem:
                    raise Refusal(problem)
                if not es256.verify(sig, msg, pub):
                    raise Refusal("bad-signature")
            elif not ed25519.verify(sig, msg, pub):
                raise Refusal("bad-signature")
        except Refusal as e:
            fails["signature"] = e.code
    joule_class = None
    if schema is not None and "structural" not in fails:
        for step, f in (("tool_receipts", profiles.tool_receipts), ("honesty", profiles.honesty)):
            c = _run(f, schema, core, cfg)
            if c:
                fails[step] = c
        try:
            joule_class = profiles.joules(schema, core, cfg)
        except Refusal as e:
            fails["joules"] = e.code
    order = ["structural", "canonical", "signature", "tool_receipts", "honesty", "joules"]
    codes = [fails[s] for s in order if s in fails]
    valid, verdict = _classify(fails, joule_class)
    return (valid, codes, verdict)


def _classify(fails, joule_class):
    """(valid, verdict) of the failing steps and step 6's answer (JCR-1 §6, SPEC §6)."""
    if any(s in fails for s in ("structural", "canonical", "signature", "tool_receipts", "honesty")):
        return (False, "invalid")
    if "joules" in fails:
        return (True, "alert")  # out of band: SPEC §6 DriftAlert, not a hard failure
    if joule_class == "joule-unverified":
        return (True, "joule-unverified")
    return (True, "valid")


def handles(doc) -> bool:
    return isinstance(doc, dict) and doc.get("kind") == "receipt-vectors/1"


def check_file(doc, cfg, name):
    """Yield (vector name, ok, message) for every vector of a receipt-vector file. A vector whose
    schema this verifier does not implement is checked envelope-only: its refusal must be exactly
    unsupported-schema (structure, canonical form and signature all sound); message "envelope-only"."""
    for v in doc["vectors"]:
        valid, codes, verdict = verify(bytes.fromhex(v["cose_sign1_hex"]), cfg)
        exp = v["expected"]
        if (v.get("schema") not in SCHEMAS and v.get("schema") is not None
                and not (set(exp["codes"]) & IMPLEMENTED - ENVELOPE_CODES)):
            # a schema not implemented here: its envelope is checked (and a refusal this verifier
            # decides there, e.g. reading-agent-kid, compared); the rest of it is not
            envelope = [c for c in codes if c != "unsupported-schema"]
            want = sorted(set(exp["codes"]) & IMPLEMENTED)
            ok = "unsupported-schema" in codes and envelope == want
            yield (v["name"], ok, ("envelope-only" if not want else f"refused {codes}") if ok
                   else f"envelope of a {v['schema']} vector: {codes}")
            continue
        if exp["valid"]:
            # the verdict class and the alert's code are compared where the vector names a verdict
            # (every published vector does; a file written before verdicts is judged on `valid`)
            named = "verdict" in exp
            ok = valid and (not named or (verdict == exp["verdict"] and codes == exp["codes"]))
            msg = verdict if ok else f"expected {exp.get('verdict', 'valid')} {exp['codes']}, got {verdict} {codes}"
        else:
            want = set(exp["codes"])
            comparable = [c for c in codes if c in IMPLEMENTED]
            ok = (not valid and verdict == "invalid" and set(comparable) <= want
                  and (want & IMPLEMENTED) <= set(codes))
            msg = f"refused {codes}" if ok else f"expected refusal {sorted(want)}, got valid={valid} {codes}"
        yield (v["name"], ok, msg)
