"""BLAKE3 (hash mode, 32-byte output) for inputs of at most one chunk (1024 bytes).

From the BLAKE3 specification (O'Connor et al., 2020): §2.2 the compression function, §2.4 chunk
chaining of 64-byte blocks with CHUNK_START / CHUNK_END / ROOT flags. An envelope is well under
1024 bytes; a longer input is refused rather than hashed wrongly.
"""

IV = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19]
PERM = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]
CHUNK_START, CHUNK_END, ROOT = 1, 2, 8
M32 = 0xFFFFFFFF


def _rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & M32


def _g(s, a, b, c, d, x, y):
    s[a] = (s[a] + s[b] + x) & M32
    s[d] = _rotr(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & M32
    s[b] = _rotr(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b] + y) & M32
    s[d] = _rotr(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & M32
    s[b] = _rotr(s[b] ^ s[c], 7)


def _compress(cv, block, counter, blen, flags):
    m = [int.from_bytes(block[4 * i:4 * i + 4], "little") for i in range(16)]
    s = cv[:] + IV[:4] + [counter & M32, (counter >> 32) & M32, blen, flags]
    for r in range(7):
        _g(s, 0, 4, 8, 12, m[0], m[1])
        _g(s, 1, 5, 9, 13, m[2], m[3])
        _g(s, 2, 6, 10, 14, m[4], m[5])
        _g(s, 3, 7, 11, 15, m[6], m[7])
        _g(s, 0, 5, 10, 15, m[8], m[9])
        _g(s, 1, 6, 11, 12, m[10], m[11])
        _g(s, 2, 7, 8, 13, m[12], m[13])
        _g(s, 3, 4, 9, 14, m[14], m[15])
        if r < 6:
            m = [m[PERM[i]] for i in range(16)]
    return [s[i] ^ s[i + 8] for i in range(8)]


def blake3(data: bytes) -> bytes:
    if len(data) > 1024:
        raise ValueError("this BLAKE3 hashes one chunk (1024 bytes) at most")
    cv = IV[:]
    blocks = [data[i:i + 64] for i in range(0, len(data), 64)] or [b""]
    for k, b in enumerate(blocks):
        flags = (CHUNK_START if k == 0 else 0) | (CHUNK_END | ROOT if k == len(blocks) - 1 else 0)
        cv = _compress(cv, b.ljust(64, b"\0"), 0, len(b), flags)
    return b"".join(w.to_bytes(4, "little") for w in cv)
