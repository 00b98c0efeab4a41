"""JCP §2.1 key events and receipts under rotating identities.

KeyEvent {identity, seq, current, next_hash, parent?, nonce}: `next_hash` is blake3 of the NEXT
key's 32 public bytes, `parent` the previous event's content id (blake3 of its canonical CBOR,
JCP §3), both as 32-byte strings; `nonce` 16 bytes. Inception: seq 0, current = identity, no
parent, signed by the identity key. Rotation N: signed by its new current key, which hashes to
event N-1's next_hash.
"""
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization

from jcstreams.blake3 import blake3
from jcstreams.stream import b58, cbor


class Key:
    """An Ed25519 key and its did:key (multicodec ed25519-pub 0xed01, base58btc)."""

    def __init__(self, seed: bytes):
        self.sk = Ed25519PrivateKey.from_private_bytes(seed)
        self.pub = self.sk.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.did = "did:key:z" + b58(b"\xed\x01" + self.pub)

    def seal(self, core: dict) -> bytes:
        """COSE_Sign1 (RFC 9052 §4.2), untagged: [protected {1: -8, 4: kid}, {}, payload, sig]."""
        payload = cbor(core)
        protected = cbor({1: -8, 4: self.did})
        sig = self.sk.sign(cbor(["Signature1", protected, b"", payload]))
        return cbor([protected, {}, payload, sig])


def key_hash(k: Key) -> bytes:
    return blake3(k.pub)


def event_core(identity: str, seq: int, current: Key, nxt: Key, parent: bytes | None,
               nonce: bytes) -> dict:
    c = {"identity": identity, "seq": seq, "current": current.did, "next_hash": key_hash(nxt),
         "nonce": nonce}
    if parent is not None:
        c["parent"] = parent
    return c


def content_id(core: dict) -> bytes:
    """JCP §3: blake3 of the canonical CBOR of the object."""
    return blake3(cbor(core))


class Identity:
    """An identity whose keys are keys[0] (the inception key, = the identity), keys[1], ... each
    pre-committed by the event before it."""

    def __init__(self, seed: int, n_keys: int = 6):
        self.keys = [Key(bytes([seed % 256, seed // 256 % 256, k + 1]) + bytes(29))
                     for k in range(n_keys)]
        self.did = self.keys[0].did
        self.cores: list[dict] = []

    def nonce(self, seq: int, salt: int = 0) -> bytes:
        return blake3(f"{self.did} {seq} {salt}".encode())[:16]

    def event(self, seq: int, salt: int = 0, signer: Key | None = None,
              current: Key | None = None, parent: bytes | None | str = "auto",
              nxt: Key | None = None) -> tuple[dict, bytes]:
        """The event at `seq` of the honest chain (each field overridable), sealed by `signer`
        (default: its current key)."""
        cur = current or self.keys[seq]
        if parent == "auto":
            parent = None if seq == 0 else content_id(self.cores[seq - 1])
        c = event_core(self.did, seq, cur, nxt or self.keys[seq + 1], parent,
                       self.nonce(seq, salt))
        return c, (signer or cur).seal(c)

    def next_event(self) -> bytes:
        """Appends the honest chain's next event; its envelope."""
        c, env = self.event(len(self.cores))
        self.cores.append(c)
        return env

    def receipt(self, n: int, signer: Key) -> bytes:
        """A JCR-1 receipt (jc_receipt "1") whose steward is the identity, signed by `signer`."""
        return signer.seal({
            "jc_receipt": "1", "id": f"py-keys-{n}", "closed_at": "2026-05-31T18:04:22Z",
            "input_hash": blake3(f"py keys input {self.did} {n}".encode()).hex(), "tier": "L1",
            "joules_uj": 4200 + n, "energy_provenance": "HwShunt", "steward": self.did,
        })
