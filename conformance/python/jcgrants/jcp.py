"""JCP objects from the text: canonical bytes, content ids, did:key actors, COSE_Sign1 seals.

JCP §3: "A content id is blake3(canonical_cbor(value)), lowercase-hex on the wire". §4: a grant
is "signed by the issuer's key (Ed25519 over the canonical bytes)"; §4.3: a revocation "is
signed by revoked_by over its canonical bytes". The log takes each as a COSE_Sign1 (RFC 9052)
with protected {1: -8, 4: kid}, kid the signer's did:key, over exactly those bytes.
"""
import os
import subprocess

import cbor2
from nacl.signing import SigningKey

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def canonical(v) -> bytes:
    """RFC 8949 §4.2.1 deterministic CBOR (JCP §3: no floats, bools or nulls in a signed core)."""
    return cbor2.dumps(v, canonical=True)


def blake3_hex(data: bytes) -> str:
    """BLAKE3 by the b3sum command (Debian b3sum)."""
    out = subprocess.run(["b3sum", "--no-names"], input=data, capture_output=True, check=True)
    return out.stdout.decode().split()[0]


def content_id(value) -> str:
    """JCP §3: blake3(canonical_cbor(value)), lowercase hex."""
    return blake3_hex(canonical(value))


def b58(b: bytes) -> str:
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + out


class Actor:
    """An Ed25519 key (JCP §2: every actor) and its did:key (multicodec 0xed01, base58btc)."""

    def __init__(self, seed: int):
        self.key = SigningKey(bytes([seed]) * 32)
        self.did = "did:key:z" + b58(b"\xed\x01" + bytes(self.key.verify_key))

    def seal(self, value) -> bytes:
        """COSE_Sign1, untagged: [protected, {}, payload, Ed25519 over Sig_structure]."""
        payload = canonical(value)
        protected = canonical({1: -8, 4: self.did})
        sig = self.key.sign(canonical(["Signature1", protected, b"", payload])).signature
        return canonical([protected, {}, payload, sig])


def nonce() -> bytes:
    return os.urandom(16)


def grant(issuer: Actor, subject: Actor, resource: str, **more) -> dict:
    """JCP §4 Grant; OPTIONAL fields omitted unless given (§3: absent, not null)."""
    g = {
        "issuer": issuer.did, "subject": subject.did,
        "capability": {"resource": resource, "actions": ["read", "write"]},
        "budget_uj": 100_000, "expiry": 0, "nonce": nonce(),
    }
    g.update(more)
    return g


def revocation(grant_id: str, by: Actor) -> dict:
    """JCP §4.3 Revocation {grant_id, revoked_by, nonce}."""
    return {"grant_id": grant_id, "revoked_by": by.did, "nonce": nonce()}


def narrows(child: dict, parent: dict) -> str | None:
    """JCP §4.1, §4.4: why `child` does not narrow `parent`, or None. The code names the rule."""
    if child["issuer"] != parent["subject"]:
        return "chain-broken"  # §4.1 "refuse delegation by anyone other than the parent's subject"
    if "delegate_depth" in parent:
        if parent["delegate_depth"] == 0:
            return "delegation-forbidden"  # §4.4 leaf-only
        if child.get("delegate_depth", 1 << 64) > parent["delegate_depth"] - 1:
            return "attenuation"  # §4.4 "a child minted from a depth-d parent carries at most d−1"
    cc, pc = child["capability"], parent["capability"]
    if cc["resource"] != pc["resource"] or not set(cc["actions"]) <= set(pc["actions"]):
        return "attenuation"
    if child["budget_uj"] > parent["budget_uj"]:
        return "attenuation"
    if parent["expiry"] != 0 and (child["expiry"] == 0 or child["expiry"] > parent["expiry"]):
        return "attenuation"  # "MUST NOT outlive the parent's (0 = never expires)"
    return None


def allow(steward: Actor, grant_id: str, n: int, issuer: str, **more) -> bytes:
    """A jcp/2 allow (JCP §8's field list) decided against `grant_id`."""
    h = lambda s: blake3_hex(s.encode())
    core = {
        "jcp_receipt": "jcp/2", "grant_id": grant_id, "issuer": issuer, "subject": steward.did,
        "resource": h("py resource"), "action": "read", "payload_hash": h(f"py allow {n}"),
        "frame_kind": "tool-call", "trust": "control", "verdict": "allow", "cost_uj": 1200,
        "energy_provenance": "HwShunt", "budget_remaining_uj": 98800, "budget_uj": 100000,
        "steward": steward.did,
    }
    core.update(more)
    return steward.seal(core)
