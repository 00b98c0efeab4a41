"""A strict scanner of deterministic CBOR (RFC 8949 §4.2.1 subset of JCR-1 §3.2), written from the
RFC for this verifier: it walks the heads only and answers the first violation as the project's
reason code (verify/codes.ts). Values themselves are decoded afterwards by cbor2.

Limits: nesting depth 16 (top-level container = 1), 10,000 data items (keys, values, elements and
containers each count one).
"""

MAX_DEPTH = 16
MAX_ITEMS = 10_000


class ScanError(Exception):
    def __init__(self, code: str, offset: int):
        super().__init__(f"{code} at byte {offset}")
        self.code = code
        self.offset = offset


class _Scanner:
    def __init__(self, b: bytes):
        self.b = b
        self.pos = 0
        self.items = 0

    def fail(self, code, at):
        raise ScanError(code, at)

    def arg(self, ai, start):
        if ai < 24:
            return ai
        if ai > 27:
            self.fail("indefinite-length" if ai == 31 else "reserved-ai", start)
        n = {24: 1, 25: 2, 26: 4, 27: 8}[ai]
        if self.pos + n > len(self.b):
            self.fail("truncated", start)
        v = int.from_bytes(self.b[self.pos:self.pos + n], "big")
        self.pos += n
        # RFC 8949 §4.2.1: the argument is as short as possible
        if v < {24: 24, 25: 0x100, 26: 0x10000, 27: 0x100000000}[ai]:
            self.fail("non-shortest-head", start)
        return v

    def item(self, depth):
        start = self.pos
        if self.pos >= len(self.b):
            self.fail("truncated", start)
        self.items += 1
        if self.items > MAX_ITEMS:
            self.fail("too-many-items", start)
        ib = self.b[self.pos]
        self.pos += 1
        major, ai = ib >> 5, ib & 31
        if ib == 0xFF:
            self.fail("lone-break", start)
        if major == 7:
            self.fail("float" if ai in (25, 26, 27) else ("reserved-ai" if 28 <= ai <= 30 else "simple-value"), start)
        if major == 6:
            if 28 <= ai <= 31:
                self.fail("reserved-ai", start)
            self.fail("tag", start)
        if major in (0, 1) and ai == 31:
            self.fail("reserved-ai", start)
        n = self.arg(ai, start)
        if major in (0, 1):
            return
        if major in (2, 3):
            if self.pos + n > len(self.b):
                self.fail("truncated", start)
            if major == 3:
                try:
                    self.b[self.pos:self.pos + n].decode("utf-8", errors="strict")
                except UnicodeDecodeError:
                    self.fail("invalid-utf8", start)
            self.pos += n
            return
        if depth + 1 > MAX_DEPTH:
            self.fail("too-deep", start)
        if major == 4:
            for _ in range(n):
                self.item(depth + 1)
            return
        prev = None  # major 5: keys in bytewise order of their encodings, no duplicates
        for _ in range(n):
            ks = self.pos
            kb = self.b[ks] if ks < len(self.b) else None
            self.item(depth + 1)
            key = self.b[ks:self.pos]
            if kb is not None and (kb >> 5) not in (0, 1, 3):
                self.fail("unsupported-key", ks)
            if prev is not None:
                if key == prev:
                    self.fail("duplicate-key", ks)
                if key < prev:
                    self.fail("unsorted-keys", ks)
            prev = key
            self.item(depth + 1)


def scan(b: bytes):
    """Raise ScanError(code) unless b is exactly one strict deterministic-CBOR item."""
    s = _Scanner(b)
    s.item(0)
    if s.pos != len(b):
        raise ScanError("trailing-bytes", s.pos)
