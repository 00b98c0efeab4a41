"""did:key for Ed25519 (W3C did:key; JouleClaw SPEC §8): did:key:z + base58btc(0xed 0x01 || pk)."""

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58encode(b: bytes) -> str:
    n = int.from_bytes(b, "big")
    s = ""
    while n:
        n, r = divmod(n, 58)
        s = ALPHABET[r] + s
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + s


def b58decode(s: str) -> bytes:
    n = 0
    for c in s:
        i = ALPHABET.find(c)
        if i < 0:
            raise ValueError(f"not base58btc: {c!r}")
        n = n * 58 + i
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return b"\0" * (len(s) - len(s.lstrip("1"))) + body


def public_key(did: str) -> bytes:
    """The 32-byte Ed25519 key of a did:key; ValueError unless it round-trips exactly."""
    if not did.startswith("did:key:z"):
        raise ValueError("not a base58btc did:key")
    raw = b58decode(did[len("did:key:z"):])
    if len(raw) != 34 or raw[:2] != b"\xed\x01":
        raise ValueError("not an Ed25519 multicodec key")
    if from_public_key(raw[2:]) != did:
        raise ValueError("did:key does not round-trip")
    return raw[2:]


def from_public_key(pk: bytes) -> str:
    return "did:key:z" + b58encode(b"\xed\x01" + pk)
