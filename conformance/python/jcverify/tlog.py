"""C-TLOG vectors (JouleClaw SPEC §22): BLAKE3 Merkle roots, inclusion and consistency proofs
(RFC 6962 §2.1, verified as RFC 9162 §2.1.3.2 and §2.1.4.2) and signed tree heads (§22.2).

Written from the RFCs and the SPEC, sharing no code with log/. BLAKE3 comes from the b3sum
command (Debian package b3sum), Ed25519 from libsodium (python3-nacl, via ed25519.py). To keep
b3sum calls few, every check is a generator that yields the bytes it wants hashed and receives
the digest; `run_lockstep` advances all checks of a file together and hashes each round's
distinct inputs with one b3sum invocation over files.

Edge cases (docs/DECISIONS.md): a consistency proof from size 0 proves nothing and is refused;
equal sizes need an empty proof and equal roots; every hash is exactly 32 bytes.
"""

import os
import re
import subprocess
import tempfile

from . import didkey, ed25519

HASH = 32
_cache = {}


def _b3sum_many(inputs):
    """BLAKE3 of each input, via `b3sum --no-names` over files (one call per 500 inputs)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="jc-tlog-") as d:
        for start in range(0, len(inputs), 500):
            names = []
            for i, data in enumerate(inputs[start:start + 500]):
                p = os.path.join(d, str(start + i))
                with open(p, "wb") as f:
                    f.write(data)
                names.append(p)
            r = subprocess.run(["b3sum", "--no-names", *names], capture_output=True, check=True)
            lines = r.stdout.decode("ascii").split()
            if len(lines) != len(names):
                raise RuntimeError("Cannot hash with b3sum: unexpected output")
            out.extend(bytes.fromhex(x) for x in lines)
    return out


def run_lockstep(checks):
    """Runs generator checks together; returns their return values in order."""
    results = [None] * len(checks)
    live = {}
    for i, g in enumerate(checks):
        try:
            live[i] = (g, next(g))
        except StopIteration as s:
            results[i] = s.value
    while live:
        todo = list(dict.fromkeys(req for _, req in live.values() if req not in _cache))
        for data, digest in zip(todo, _b3sum_many(todo)):
            _cache[data] = digest
        nxt = {}
        for i, (g, req) in live.items():
            try:
                nxt[i] = (g, g.send(_cache[req]))
            except StopIteration as s:
                results[i] = s.value
        live = nxt
    return results


def leaf_hash(entry):
    return (yield b"\x00" + entry)  # SPEC §22.1: BLAKE3(0x00 || receipt_bytes)


def node_hash(left, right):
    return (yield b"\x01" + left + right)  # SPEC §22.1: BLAKE3(0x01 || left || right)


def mth(leaves):
    """RFC 6962 §2.1 Merkle Tree Hash over leaf hashes; the empty tree is BLAKE3("")."""
    n = len(leaves)
    if n == 0:
        return (yield b"")
    if n == 1:
        return leaves[0]
    k = 1
    while k * 2 < n:  # the largest power of two strictly less than n
        k *= 2
    left = yield from mth(leaves[:k])
    right = yield from mth(leaves[k:])
    return (yield from node_hash(left, right))


def _size(x):
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**64


def _hexes(values):
    try:
        return [bytes.fromhex(v) for v in values]
    except (ValueError, TypeError):
        return None


def verify_inclusion(index, size, leaf, proof, root):
    """RFC 9162 §2.1.3.2."""
    if not (_size(index) and _size(size)) or index >= size:
        return False
    if len(leaf) != HASH or len(root) != HASH or any(len(p) != HASH for p in proof):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = yield from node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = yield from node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(size1, size2, proof, root1, root2):
    """RFC 9162 §2.1.4.2 (for 0 < size1 < size2), plus the equal-size and empty-tree cases."""
    if not (_size(size1) and _size(size2)) or size1 > size2 or size1 == 0:
        return False
    if size1 == size2:
        return not proof and root1 == root2
    if not proof or any(len(p) != HASH for p in proof) or len(root1) != HASH or len(root2) != HASH:
        return False
    path = list(proof)
    if size1 & (size1 - 1) == 0:  # size1 is an exact power of two: prepend first_hash
        path = [root1] + path
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = yield from node_hash(c, fr)
            sr = yield from node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = yield from node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == root1 and sr == root2


HEX32 = re.compile(r"^[0-9a-f]{64}$")
HEX64 = re.compile(r"^[0-9a-f]{128}$")


def check_head(head, expected_signer):
    """(ok, code) for a signed tree head, SPEC §22.2."""
    if not isinstance(head, dict):
        return False, "head-malformed"
    if not _size(head.get("size")):
        return False, "head-bad-size"
    root = head.get("root")
    if not isinstance(root, str) or not HEX32.match(root):  # §22.2: root MUST be 32 bytes of hex
        return False, "head-bad-root"
    if not _size(head.get("timestamp")):
        return False, "head-bad-timestamp"
    sig = head.get("signature")
    if not isinstance(sig, str) or not HEX64.match(sig):
        return False, "head-malformed-signature"
    try:
        pub = didkey.public_key(head.get("signer"))
    except (ValueError, TypeError, AttributeError):
        return False, "head-bad-signer"
    if expected_signer is not None and head["signer"] != expected_signer:
        return False, "head-wrong-signer"
    msg = b"\x02" + head["size"].to_bytes(8, "big") + bytes.fromhex(root) + head["timestamp"].to_bytes(8, "big")
    if not ed25519.verify(bytes.fromhex(sig), msg, pub):
        return False, "head-bad-signature"
    return True, None


def handles(doc) -> bool:
    return isinstance(doc, dict) and doc.get("kind") == "tlog-vectors/1"


def _agree(v, ok, code=None):
    want_ok = not v.get("want_err")
    if ok != want_ok:
        return False, f"verifier says {'valid' if ok else 'invalid'}, vector says want_err={v.get('want_err')}"
    if "code" in v and code != v["code"]:
        return False, f"refused with {code}, vector says {v['code']}"
    return True, ""


def check_file(doc, cfg, name):
    """Yield (vector name, ok, message) for every vector of a C-TLOG file."""
    t, vs = doc.get("type"), doc.get("vectors", [])
    if t == "roots":
        entries = [bytes.fromhex(e) for e in doc["entries"]]
        leaves = run_lockstep([leaf_hash(e) for e in entries])
        got = run_lockstep([mth(leaves[:v["size"]]) for v in vs])
        for v, r in zip(vs, got):
            yield v["name"], r.hex() == v["root"], f"root {r.hex()}"
    elif t == "inclusion":
        checks = []
        for v in vs:
            p, leaf, root = _hexes(v["proof"]), _hexes([v["leaf_hash"]]), _hexes([v["root"]])
            checks.append(verify_inclusion(v["index"], v["size"], leaf[0], p, root[0])
                          if p is not None and leaf and root else iter(()))
        for v, ok in zip(vs, run_lockstep(checks)):
            yield (v["name"], *_agree(v, bool(ok)))
    elif t == "consistency":
        checks = []
        for v in vs:
            p, r1, r2 = _hexes(v["proof"]), _hexes([v["root1"]]), _hexes([v["root2"]])
            checks.append(verify_consistency(v["size1"], v["size2"], p, r1[0], r2[0])
                          if p is not None and r1 and r2 else iter(()))
        for v, ok in zip(vs, run_lockstep(checks)):
            yield (v["name"], *_agree(v, bool(ok)))
    elif t == "heads":
        signer = doc["signer"]
        if didkey.public_key(signer).hex() != doc["public_key"]:
            yield "signer", False, "signer does not match public_key"
        for v in vs:
            ok, code = check_head(v["head"], signer)
            yield (v["name"], *_agree(v, ok, code))
    elif t == "tiles":
        from . import tiles

        def entry_of(i):
            return f"JouleClaw C-TLOG leaf {i}".encode()

        for v in vs:
            ok, code = tiles.check_vector(doc, v, entry_of)
            if not v.get("want_err") and not ok:
                yield v["name"], False, f"refused: {code}"
            else:
                yield (v["name"], *_agree(v, ok and not v.get("want_err"), code))
    else:
        yield name, False, f"unknown C-TLOG vector type {t!r}"
