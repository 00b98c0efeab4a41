"""Re-derives every entry's verdict from what a log publishes (issue 23), offline of our service's
code: the entries (raw COSE_Sign1 bytes from `GET /v1/log/entries/{i}`, Accept application/cose)
and the verifier-config/1 entries among them. Each entry is judged under the configuration in force
at it: the latest configuration entry before it (docs/DECISIONS.md "The configuration in force"),
or the embedded defaults before the first one. Per JCR-1 §6 and SPEC §6:

  invalid           any of steps 1-5 fails
  alert             steps 1-5 pass, joules_uj outside the drift band of the reference (SPEC §6 DriftAlert)
  joule-unverified  steps 1-5 pass, no reference vector for the input_hash (JCR-1 §6)
  valid             steps 1-5 pass, within the band (or no step 6 for the profile)

A meter-reading/1 entry is checked envelope-only (this verifier does not implement its profile):
`operator_attested` says "envelope-only". A tool receipt's HMAC (JCR-1 §5) needs the gateway's secret, which a log never publishes: for a
gateway the configuration names, the check is marked operator-attested; a gateway it does not name
is `unknown-gateway` (invalid). A configuration entry is checked itself: signed by its operator
(a did:key Ed25519 kid), `seq` one more than the previous one's, `previous` naming the previous
one's digest (BLAKE3 of its envelope) and index.

    python3 -m jcverify.verdicts BASE_URL [--size N]

prints one JSON object per entry: {index, verdict, codes, operator_attested, verifier_config}.
"""

import json
import sys
import urllib.request

import cbor2

from . import cose, didkey, ed25519
from .blake3 import blake3_hex
from .config import Config
from .receipts import verify as verify_steps


class ConfigRefusal(Exception):
    pass


def fetch(url, accept="application/json"):
    req = urllib.request.Request(url, headers={"accept": accept})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def config_core(envelope):
    """The decoded core when the envelope is a verifier-config/1 document, else None."""
    try:
        core = cbor2.loads(cose.parse(envelope)[2])
    except Exception:
        return None
    return core if isinstance(core, dict) and "jc_config" in core else None


def open_config(envelope, index, previous):
    """Checks a configuration entry against the chain so far; returns (ref, doc)."""
    prot, kid, payload, sig, alg = cose.parse(envelope)
    doc = cbor2.loads(payload)
    if doc.get("jc_config") != "verifier-config/1":
        raise ConfigRefusal(f"entry {index}: not verifier-config/1")
    if doc.get("operator") != kid or alg != -8:
        raise ConfigRefusal(f"entry {index}: the operator is not the Ed25519 kid")
    if not ed25519.verify(sig, cose.sig_structure(prot, payload), didkey.public_key(kid)):
        raise ConfigRefusal(f"entry {index}: the operator's signature does not verify")
    want_seq = 1 if previous is None else previous[1]["seq"] + 1
    if doc.get("seq") != want_seq:
        raise ConfigRefusal(f"entry {index}: seq {doc.get('seq')}, expected {want_seq}")
    prev = doc.get("previous")
    if previous is None:
        if prev is not None:
            raise ConfigRefusal(f"entry {index}: names a previous configuration, none was logged")
    elif prev is None or prev.get("digest", b"").hex() != previous[0]["digest"] \
            or prev.get("index") != previous[0]["index"]:
        raise ConfigRefusal(f"entry {index}: previous does not name entry {previous[0]['index']}")
    return {"digest": blake3_hex(envelope), "index": index}, doc


# The embedded defaults (docs/CONFIG.md): did:key signers only, no gateways, no reference vectors,
# JCR-1 §7.1's bands.
DEFAULTS = {"keys": {}, "gateways": [], "reference_vectors": {}, "policies": {},
            "drift_bands": {"HwShunt": 10, "ModelBased": 35, "Estimator": 100}}


def as_config(doc):
    """The Python verifier's Config from a published document: no gateway key is ever known."""
    cfg = Config({
        "keys": dict(doc["keys"]),
        "reference_vectors": {},  # step 6 is judged below, with the document's bands
        "policies": [json.loads(p) for p in doc["policies"].values()],
    })
    return cfg


def verdict(envelope, doc):
    """(verdict, codes, operator_attested) of a receipt under a published document."""
    cfg = as_config(doc)
    _, codes, _ = verify_steps(envelope, cfg)
    # step 6 is judged below, under the bands of the document in force at this entry
    codes = [c for c in codes if c not in ("out-of-band", "joule-unverified")]
    attested = False
    core = None
    try:
        core = cbor2.loads(cose.parse(envelope)[2])
    except Exception:
        pass
    if "unknown-gateway" in codes and isinstance(core, dict):
        # JCR-1 §5: the HMAC needs the gateway's secret; a gateway the configuration names is the
        # operator's to attest, one it does not name is unknown.
        ids = [tr.get("gateway_id") for tr in core.get("tool_receipts", [])]
        if all(i in doc["gateways"] for i in ids):
            codes = [c for c in codes if c != "unknown-gateway"]
            attested = True
    if codes == ["unsupported-schema"] and isinstance(core, dict) \
            and core.get("jc_receipt") == "meter-reading/1":
        # a meter reading: this verifier checks its envelope only (README: its profile is not
        # implemented here); structure, canonical form and signature are sound
        return "valid", [], "envelope-only"
    if codes:
        return "invalid", codes, attested
    if not isinstance(core, dict) or core.get("jc_receipt") != "1":
        return "valid", [], attested
    ref = doc["reference_vectors"].get(core["input_hash"])
    if ref is None:
        return "joule-unverified", [], attested
    ref = int(ref["joules_uj"])
    band = int(doc["drift_bands"][core["energy_provenance"]])
    if abs(core["joules_uj"] - ref) * 100 > band * ref:
        return "alert", ["out-of-band"], attested
    return "valid", [], attested


def derive(base, size):
    """Yields one verdict record per entry of the log at `base`, entries 0..size-1."""
    previous = None
    doc = DEFAULTS
    for i in range(size):
        envelope = fetch(f"{base}/v1/log/entries/{i}", "application/cose")
        under = previous[0] if previous else None
        if config_core(envelope) is not None:
            ref, new = open_config(envelope, i, previous)
            yield {"index": i, "verdict": "configuration", "codes": [], "operator_attested": False,
                   "verifier_config": under}
            previous = (ref, new)
            doc = {**new, "reference_vectors": {h: {"joules_uj": v["joules_uj"]}
                                                for h, v in new["reference_vectors"].items()}}
            continue
        v, codes, attested = verdict(envelope, doc)
        yield {"index": i, "verdict": v, "codes": codes, "operator_attested": attested,
               "verifier_config": under}


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    base = argv[0].rstrip("/")
    size = int(argv[argv.index("--size") + 1]) if "--size" in argv else \
        json.loads(fetch(f"{base}/v1/log/tree-head"))["size"]
    try:
        for rec in derive(base, size):
            print(json.dumps(rec), flush=True)
    except ConfigRefusal as e:
        print(f"Cannot re-derive the verdicts: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
