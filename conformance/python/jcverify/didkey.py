"""did:key for Ed25519 (W3C did:key; JouleClaw SPEC §8): did:key:z + base58btc(0xed 0x01 || pk),
and for P-256 (JCR-1 §4 ES256 kids): did:key:z + base58btc(0x80 0x24 || 33-byte compressed point)."""

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


class KeyRefusal(ValueError):
    """A did:key refused with a specific reason code."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def typed_key(did: str):
    """(alg, key): (-8, 32-byte Ed25519 key) or (-7, 33-byte compressed P-256 point). Raises
    KeyRefusal with the project's code (bad-did-key, did-key-p256-uncompressed, p256-key-*)."""
    from . import es256

    if not did.startswith("did:key:z"):
        raise KeyRefusal("bad-did-key")
    try:
        raw = b58decode(did[len("did:key:z"):])
    except ValueError as e:
        raise KeyRefusal("bad-did-key") from e
    if raw[:2] == b"\x80\x24":
        pk = raw[2:]
        if len(pk) == 65 and pk[0] == 4:
            raise KeyRefusal("did-key-p256-uncompressed")
        problem = es256.key_problem(pk)
        if problem:
            raise KeyRefusal(problem)
        if "did:key:z" + b58encode(b"\x80\x24" + pk) != did:
            raise KeyRefusal("bad-did-key")
        return -7, pk
    try:
        return -8, public_key(did)
    except ValueError as e:
        raise KeyRefusal("bad-did-key") from e


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
