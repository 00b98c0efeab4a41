"""Resolving identities from a log (JCP §2.1), in log order, as a third party re-derives them.

"A verifier MUST reject sequence gaps, parent-link mismatches, hash mismatches, and bad
signatures." The log's order is the time a third party can trust: a receipt under an identity is
judged against the identity's chain as the entries before it left it; its kid must be the chain's
current key. A second, validly chained event at a logged seq is a fork: kept as evidence, never
resolved over, and the identity takes no further event (docs/KEYS.md "Forks").
"""
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from jcstreams.blake3 import blake3
from jcstreams.stream import B58, cbor


def unb58(s: str) -> bytes:
    n = 0
    for ch in s:
        n = n * 58 + B58.index(ch)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return b"\0" * (len(s) - len(s.lstrip("1"))) + raw


def did_pub(did: str) -> bytes | None:
    if not did.startswith("did:key:z"):
        return None
    raw = unb58(did[9:])
    return raw[2:] if len(raw) == 34 and raw[:2] == b"\xed\x01" else None


def dec(b: bytes, i: int = 0):
    """A small decoder of the canonical CBOR this package and the service write."""
    ib = b[i]
    major, ai = ib >> 5, ib & 31
    i += 1
    if ai < 24:
        n = ai
    else:
        size = {24: 1, 25: 2, 26: 4, 27: 8}[ai]
        n = int.from_bytes(b[i:i + size], "big")
        i += size
    if major == 0:
        return n, i
    if major == 1:
        return -1 - n, i
    if major == 2:
        return b[i:i + n], i + n
    if major == 3:
        return b[i:i + n].decode(), i + n
    if major == 4:
        out = []
        for _ in range(n):
            v, i = dec(b, i)
            out.append(v)
        return out, i
    if major == 5:
        out = {}
        for _ in range(n):
            k, i = dec(b, i)
            v, i = dec(b, i)
            out[k] = v
        return out, i
    raise ValueError("unsupported CBOR")


def open_envelope(env: bytes):
    """(kid, core, signature ok) of a COSE_Sign1 envelope."""
    (prot, _unprot, payload, sig), _ = dec(env)
    kid = dec(prot)[0][4]
    core = dec(payload)[0]
    pub = did_pub(kid)
    ok = False
    if pub is not None:
        try:
            Ed25519PublicKey.from_public_bytes(pub).verify(
                sig, cbor(["Signature1", prot, b"", payload]))
            ok = True
        except InvalidSignature:
            ok = False
    return kid, core, ok


class Log:
    """The key state a log's entries build, entry by entry (`offer` says what the log must do)."""

    def __init__(self):
        self.chains: dict[str, list[dict]] = {}  # identity -> its first chain's events
        self.forked: dict[str, int] = {}
        self.index = 0

    def offer(self, env: bytes) -> str:
        """'logged', 'fork' or the refusal code; advances the state as the log must."""
        kid, core, ok = open_envelope(env)
        if "next_hash" in core and "jc_receipt" not in core:
            code = self._event(kid, core, ok)
        else:
            code = self._receipt(kid, core)
        if code in ("logged", "fork"):
            self.index += 1
        return code

    def _event(self, kid: str, c: dict, sig_ok: bool) -> str:
        ident, seq = c["identity"], c["seq"]
        if kid != c["current"] or not sig_ok or (seq == 0 and c["current"] != ident):
            return "key-event-bad-signature"
        if (seq == 0) == ("parent" in c):
            return "key-event-parent-mismatch"
        chain = self.chains.get(ident, [])
        if ident in self.forked:
            return "key-event-fork"
        if seq > len(chain):
            return "key-event-seq-gap"
        if seq > 0:
            prev = chain[seq - 1]
            if c["parent"] != blake3(cbor(prev["core"])):
                return "key-event-parent-mismatch"
            if blake3(did_pub(c["current"])) != prev["core"]["next_hash"]:
                return "key-event-next-mismatch"
        if seq < len(chain):
            self.forked[ident] = self.index
            return "fork"
        self.chains.setdefault(ident, []).append({"core": c, "index": self.index})
        return "logged"

    def _receipt(self, kid: str, c: dict) -> str:
        steward = c.get("steward")
        chain = self.chains.get(steward)
        if not chain:
            return "logged" if kid == steward else "kid-steward-mismatch"
        return "logged" if kid == chain[-1]["core"]["current"] else "key-rotated-out"

    def state(self, ident: str) -> dict | None:
        chain = self.chains.get(ident)
        if not chain:
            return None
        head = chain[-1]["core"]
        return {"identity": ident, "seq": head["seq"], "current": head["current"],
                "next_hash": head["next_hash"].hex(), "events": [e["index"] for e in chain]}
