"""A small CBOR decoder (RFC 8949 §3: major types 0-5, definite lengths): enough to read a
COSE_Sign1 envelope (RFC 9052 §4.2) and its jcp/2 core."""


def _arg(b: bytes, i: int):
    ai = b[i] & 31
    if ai < 24:
        return ai, i + 1
    size = {24: 1, 25: 2, 26: 4, 27: 8}[ai]
    return int.from_bytes(b[i + 1:i + 1 + size], "big"), i + 1 + size


def _item(b: bytes, i: int):
    major = b[i] >> 5
    n, i = _arg(b, i)
    if major == 0:
        return n, i
    if major == 1:
        return -1 - n, i
    if major in (2, 3):
        raw = b[i:i + n]
        return (raw if major == 2 else raw.decode("utf-8")), i + n
    if major == 4:
        out = []
        for _ in range(n):
            v, i = _item(b, i)
            out.append(v)
        return out, i
    if major == 5:
        out = {}
        for _ in range(n):
            k, i = _item(b, i)
            v, i = _item(b, i)
            out[k] = v
        return out, i
    if major == 6:  # a tag (COSE_Sign1's 18): the item it tags
        return _item(b, i)
    raise ValueError(f"CBOR major type {major} not expected in a receipt")


def decode(b: bytes):
    v, i = _item(b, 0)
    if i != len(b):
        raise ValueError("trailing bytes")
    return v


def envelope_core(envelope: bytes):
    """(kid, core) of a COSE_Sign1 [protected, unprotected, payload, signature]."""
    protected, _unprotected, payload, _sig = decode(envelope)
    header = decode(protected)
    kid = header[4]
    return (kid.decode() if isinstance(kid, bytes) else kid), decode(payload)
