"""JCP §8.1 streams: jcp/2 cores, COSE_Sign1 envelopes, seq and prev.

"A log commits to its order. Its entries carry `seq`, counting from zero, and `prev`, the content
id of the previous entry's envelope (64 zeros for the first)". A content id is
blake3(canonical_cbor(value)), lowercase hex (JCP §3); the envelope is canonical CBOR, so an
envelope's content id is BLAKE3 of its bytes.
"""
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization
import hashlib

from .blake3 import blake3

ZEROS = "0" * 64
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    for ai, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | ai]) + n.to_bytes(size, "big")
    raise ValueError("integer too large")


def cbor(v) -> bytes:
    """RFC 8949 §4.2.1 deterministic encoding of uint, negative int, bytes, text, list, dict."""
    if isinstance(v, bool) or v is None or isinstance(v, float):
        raise ValueError("no bools, nulls or floats in a signed core (JCP §3)")
    if isinstance(v, int):
        return _head(0, v) if v >= 0 else _head(1, -1 - v)
    if isinstance(v, bytes):
        return _head(2, len(v)) + v
    if isinstance(v, str):
        b = v.encode("utf-8")
        return _head(3, len(b)) + b
    if isinstance(v, list):
        return _head(4, len(v)) + b"".join(cbor(x) for x in v)
    if isinstance(v, dict):
        items = sorted(((cbor(k), cbor(x)) for k, x in v.items()), key=lambda kv: (len(kv[0]), kv[0]))
        return _head(5, len(items)) + b"".join(k + x for k, x in items)
    raise ValueError(f"cannot encode {type(v)}")


def b58(b: bytes) -> str:
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + out


class Steward:
    """An Ed25519 signer and its did:key (multicodec ed25519-pub 0xed01, base58btc)."""

    def __init__(self, seed: bytes):
        self.key = Ed25519PrivateKey.from_private_bytes(seed)
        pub = self.key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.did = "did:key:z" + b58(b"\xed\x01" + pub)

    def seal(self, core: dict) -> bytes:
        """COSE_Sign1 (RFC 9052 §4.2), untagged: [protected {1: -8, 4: kid}, {}, payload, sig]."""
        payload = cbor(core)
        protected = cbor({1: -8, 4: self.did})
        sig = self.key.sign(cbor(["Signature1", protected, b"", payload]))
        return cbor([protected, {}, payload, sig])


def content_id(envelope: bytes) -> str:
    return blake3(envelope).hex()


def core(steward: Steward, n: int, **extra) -> dict:
    """A jcp/2 allow (JCP §8's field list); `n` varies the payload."""
    # any 64-hex digest will do for these members; SHA-256 is quicker than this BLAKE3
    h = lambda s: hashlib.sha256(s.encode()).hexdigest()
    c = {
        "jcp_receipt": "jcp/2", "grant_id": h("py grant"), "issuer": steward.did,
        "subject": steward.did, "resource": h("py resource"), "action": "read",
        "payload_hash": h(f"py payload {n}"), "frame_kind": "tool-call", "trust": "control",
        "verdict": "allow", "cost_uj": 1200, "energy_provenance": "HwShunt",
        "budget_remaining_uj": 98800, "budget_uj": 100000, "steward": steward.did,
    }
    c.update(extra)
    return c


def chain(steward: Steward, n: int, start_payload: int = 0):
    """Envelopes seq 0 .. n-1, each `prev` the previous envelope's content id."""
    out, prev = [], ZEROS
    for i in range(n):
        e = steward.seal(core(steward, start_payload + i, seq=i, prev=prev))
        out.append(e)
        prev = content_id(e)
    return out
