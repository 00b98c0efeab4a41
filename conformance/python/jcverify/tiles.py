"""Checks the BLAKE3 view of a C2SP tiled log over HTTP, independently of log/ (JouleClaw SPEC
§22.1 tree hash; C2SP signed-note, tlog-checkpoint, tlog-tiles at height 8; docs/PUBLICATION.md).

    python3 -m jcverify.tiles --url PREFIX --vkey VKEY [--records all|N] [--old FILE]...

PREFIX is the view's URL prefix (…/log/blake3). It opens PREFIX/checkpoint with the vkey (key ID
SHA-256(name || 0x0A || 0x01 || key)[:4], Ed25519 by libsodium, origin = key name), fetches every
tile of the tree and checks each one: every full tile folds to its entry in the tile above, and
the tree's complete subtrees read from the partial tiles fold to the signed root. Then it reads
the records asked for from the entry bundles, checks each against its level-0 hash, and checks an
inclusion proof built from the tiles for each (RFC 9162 §2.1.3.2); for each older checkpoint
given it recomputes that root from the tiles and checks a consistency proof (§2.1.4.2).
BLAKE3 is b3sum's (tlog.py's batching). Prints one JSON line; exit 0 when every check passes,
1 when one fails, 2 when a dependency is missing.
"""

import argparse
import atexit
import base64
import binascii
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from . import deps, ed25519, tlog

W = 256  # hashes in a full tile (height 8)


class CheckFailed(Exception):
    """A failed check; `code` matches log/c2sp's where the vectors name one."""

    def __init__(self, message, code="malformed"):
        super().__init__(message)
        self.code = code


def sha256_many(inputs):
    return [hashlib.sha256(x).digest() for x in inputs]


_dir = None


def _b3sum_files(inputs):
    """BLAKE3 of each input through `b3sum --no-names` over files in one reused folder (in
    /dev/shm where there is one: creating and removing folders on a loaded disk is slow)."""
    global _dir
    if _dir is None:
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        _dir = tempfile.mkdtemp(prefix="jc-tiles-", dir=base)
        atexit.register(shutil.rmtree, _dir, True)
    out = []
    for start in range(0, len(inputs), 2000):
        names = []
        for i, data in enumerate(inputs[start:start + 2000]):
            p = os.path.join(_dir, str(i))
            with open(p, "wb") as f:
                f.write(data)
            names.append(p)
        r = subprocess.run(["b3sum", "--no-names", "--num-threads", "1", *names],
                           capture_output=True, check=True)
        lines = r.stdout.decode("ascii").split()
        if len(lines) != len(names):
            raise RuntimeError("Cannot hash with b3sum: unexpected output")
        out.extend(bytes.fromhex(x) for x in lines)
    return out


def b3_many(inputs):
    todo = [x for x in dict.fromkeys(inputs) if x not in tlog._cache]
    for data, digest in zip(todo, _b3sum_files(todo)):
        tlog._cache[data] = digest
    return [tlog._cache[x] for x in inputs]


def node(left, right):
    return b3_many([b"\x01" + left + right])[0]


def get(url, limit):
    with urllib.request.urlopen(url, timeout=30) as r:
        body = r.read(limit + 1)
    if len(body) > limit:
        raise CheckFailed(f"{url}: body over {limit} bytes")
    return body


def b64(s):
    try:
        out = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        raise CheckFailed(f"not base64: {s!r}")
    if base64.b64encode(out).decode() != s:
        raise CheckFailed(f"not canonical base64: {s!r}")
    return out


def parse_vkey(vkey):
    name, _, rest = vkey.partition("+")
    key_id, _, material = rest.partition("+")
    raw = b64(material)
    if len(raw) != 33 or raw[0] != 0x01:
        raise CheckFailed("vkey is not an Ed25519 (type 0x01) key")
    want = hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4]
    if bytes.fromhex(key_id) != want:
        raise CheckFailed("vkey key ID is not SHA-256(name || 0x0A || 0x01 || key)[:4]")
    return name, want, raw[1:]


def open_checkpoint(msg, vkey):
    """C2SP signed-note + tlog-checkpoint: (size, root) when the log key's signature verifies."""
    name, key_id, pub = parse_vkey(vkey)
    text = msg.decode("utf-8")
    if any(ord(c) < 0x20 and c != "\n" for c in text):
        raise CheckFailed("note has a control character")
    split = text.rfind("\n\n")
    if split < 0 or not text.endswith("\n"):
        raise CheckFailed("note has no signature block")
    body, sigs = text[: split + 1], text[split + 2 :]
    ok = False
    for line in sigs[:-1].split("\n"):
        if not line.startswith("\u2014 "):
            raise CheckFailed("bad signature line")
        n, _, s = line[2:].partition(" ")
        raw = b64(s)
        if n == name and raw[:4] == key_id:
            if not ed25519.verify(raw[4:], body.encode(), pub):
                raise CheckFailed("the log's signature does not verify", "note-bad-signature")
            ok = True
    if not ok:
        raise CheckFailed("no signature by the log key", "note-unverified")
    lines = body[:-1].split("\n")
    if len(lines) < 3:
        raise CheckFailed("checkpoint has fewer than three lines")
    if lines[0] != name:
        raise CheckFailed(f"checkpoint origin is not {name}", "checkpoint-wrong-origin")
    if not lines[1].isdigit() or (lines[1] != "0" and lines[1][0] == "0"):
        raise CheckFailed("bad checkpoint size")
    root = b64(lines[2])
    if len(root) != 32:
        raise CheckFailed("checkpoint root is not 32 bytes")
    return int(lines[1]), root


def idx(n):
    """C2SP tlog-tiles index path elements: 1234067 -> x001/x234/067."""
    parts = [f"{n % 1000:03d}"]
    n //= 1000
    while n:
        parts.insert(0, f"x{n % 1000:03d}")
        n //= 1000
    return "/".join(parts)


def tile_url(prefix, level, n, width):
    return f"{prefix}/tile/{level}/{idx(n)}" + ("" if width == W else f".p/{width}")


def fold_perfect(groups, many=b3_many):
    """Hashes of perfect subtrees, each given as its 2^s consecutive hashes; batched by round."""
    rows = [list(g) for g in groups]
    while any(len(r) > 1 for r in rows):
        ins = [b"\x01" + r[k] + r[k + 1] for r in rows if len(r) > 1 for k in range(0, len(r), 2)]
        outs = iter(many(ins))
        rows = [[next(outs) for _ in range(0, len(r), 2)] if len(r) > 1 else r for r in rows]
    return [r[0] for r in rows]


class Tree:
    def __init__(self, size, rows, many=b3_many):
        self.size, self.rows, self.many = size, rows, many

    def perfect(self, ids):
        """Hashes of complete subtrees (level, index) read from the tile rows."""
        groups = []
        for level, i in ids:
            L, s = divmod(level, 8)
            g = self.rows[L][i << s : (i + 1) << s]
            if len(g) != 1 << s or any(x is None for x in g):
                raise CheckFailed(f"node {level}/{i} is not in the tiles")
            groups.append(g)
        return fold_perfect(groups, self.many)

    def decompose(self, a, b):
        out = []
        while a < b:
            k = 1
            while k * 2 <= b - a:
                k *= 2
            lvl = k.bit_length() - 1
            if a % k:
                raise CheckFailed("range is not decomposable")
            out.append((lvl, a >> lvl))
            a += k
        return out

    def range_hash(self, a, b):
        return self.range_hashes([(a, b)])[0]

    def range_hashes(self, ranges):
        """RFC 6962 MTH of each leaf range, batched: every complete subtree at once, then the
        right-to-left folds of all ranges in lockstep (one hash call per step, not per hash)."""
        parts = [self.decompose(a, b) for a, b in ranges]
        ids = list(dict.fromkeys(x for p in parts for x in p))
        got = dict(zip(ids, self.perfect(ids)))
        accs = [got[p[-1]] for p in parts]
        rest = [[got[x] for x in p[:-1]] for p in parts]
        while any(rest):
            live = [k for k, r in enumerate(rest) if r]
            outs = self.many([b"\x01" + rest[k][-1] + accs[k] for k in live])
            for k, h in zip(live, outs):
                accs[k] = h
                rest[k].pop()
        return accs


def split(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def path_ranges(m, lo, n):
    """RFC 6962 §2.1.1 PATH(m, D[lo:lo+n]) as leaf ranges, leaf side first."""
    if n <= 1:
        return []
    k = split(n)
    if m < k:
        return path_ranges(m, lo, k) + [(lo + k, lo + n)]
    return path_ranges(m - k, lo + k, n - k) + [(lo, lo + k)]


def subproof_ranges(m, lo, n, b):
    """RFC 6962 §2.1.2 SUBPROOF(m, D[lo:lo+n], b) as leaf ranges."""
    if m == n:
        return [] if b else [(lo, lo + n)]
    k = split(n)
    if m <= k:
        return subproof_ranges(m, lo, k, b) + [(lo + k, lo + n)]
    return subproof_ranges(m - k, lo + k, n - k, False) + [(lo, lo + k)]


def check(prefix, vkey, records, olds):
    size, root = open_checkpoint(get(prefix + "/checkpoint", 65536), vkey)
    result = {"ok": True, "size": size, "tiles": 0}
    if size == 0:
        return result
    # Every tile of the tree, level by level.
    rows = []
    level = 0
    while size >> (8 * level):
        count = size >> (8 * level)
        row = []
        for n in range((count + W - 1) // W):
            width = min(W, count - n * W)
            data = get(tile_url(prefix, level, n, width), 8192)
            result["tiles"] += 1
            if len(data) != 32 * width:
                raise CheckFailed(f"tile {level}/{n}: {len(data)} bytes, want {32 * width}")
            row += [data[k : k + 32] for k in range(0, len(data), 32)]
        rows.append(row)
        level += 1
    # Every full tile folds to its entry in the tile above.
    for L in range(1, len(rows)):
        below = rows[L - 1]
        folds = fold_perfect([below[k * W : (k + 1) * W] for k in range(len(rows[L]))])
        for k, (f, h) in enumerate(zip(folds, rows[L])):
            if f != h:
                raise CheckFailed(f"tile {L - 1}/{k // 1} does not hash to its entry in level {L}")
    tree = Tree(size, rows)
    if tree.range_hash(0, size) != root:
        raise CheckFailed("the tiles do not hash to the signed root")
    # Records from bundles, each against its leaf hash, and an inclusion proof from the tiles.
    if records == "all":
        want = list(range(size))
    else:
        k = int(records)
        want = sorted({j * (size - 1) // max(k - 1, 1) for j in range(k)})
    bundles = {}
    for i in want:
        n = i // W
        if n not in bundles:
            width = min(W, size - n * W)
            data = get(f"{prefix}/tile/entries/{idx(n)}" + ("" if width == W else f".p/{width}"), W * 65537)
            entries, at = [], 0
            while at < len(data):
                if at + 2 > len(data):
                    raise CheckFailed(f"bundle {n}: truncated")
                ln = int.from_bytes(data[at : at + 2], "big")
                if at + 2 + ln > len(data):
                    raise CheckFailed(f"bundle {n}: truncated entry")
                entries.append(data[at + 2 : at + 2 + ln])
                at += 2 + ln
            if len(entries) != width:
                raise CheckFailed(f"bundle {n}: {len(entries)} entries, want {width}")
            leaves = b3_many([b"\x00" + e for e in entries])  # SPEC §22.1 leaf hash
            for k, h in enumerate(leaves):
                if h != rows[0][n * W + k]:
                    raise CheckFailed(f"record {n * W + k}: bundle entry does not hash to its leaf")
            bundles = {n: entries}
    paths = [path_ranges(i, 0, size) for i in want[:64]]
    flat = tree.range_hashes([r for p in paths for r in p])
    proofs, at = [], 0
    for i, p in zip(want[:64], paths):
        proofs.append((i, flat[at:at + len(p)]))
        at += len(p)
    oks = tlog.run_lockstep([tlog.verify_inclusion(i, size, rows[0][i], p, root) for i, p in proofs])
    if not all(oks):
        raise CheckFailed("an inclusion proof from the tiles does not verify")
    result["records"] = len(want)
    # Consistency from older checkpoints.
    result["consistent"] = 0
    for f in olds:
        with open(f, "rb") as fh:
            m, old_root = open_checkpoint(fh.read(), vkey)
        if m > size:
            raise CheckFailed(f"{f}: size {m} beyond {size}")
        if m > 0:
            if tree.range_hash(0, m) != old_root:
                raise CheckFailed(f"{f}: its root is not the tiles' root at size {m} (fork)")
            if m < size:
                proof = tree.range_hashes(subproof_ranges(m, 0, size, True))
                ok = tlog.run_lockstep([tlog.verify_consistency(m, size, proof, old_root, root)])[0]
                if not ok:
                    raise CheckFailed(f"{f}: consistency proof fails")
        result["consistent"] += 1
    return result


def check_vector(doc, v, entry_of, sample=2):
    """A C-TLOG tiles vector (conformance/tlog/tiles.json): (ok, code). Whole tiles are checked
    against the signed root; digests of full level-0 tiles and bundles against the ones this
    code builds from the entry rule (every one for SHA-256; for BLAKE3, whose b3sum calls are
    slow, the first and last `sample` of them)."""
    try:
        size, root = open_checkpoint(v["checkpoint"].encode(), doc["vkeys"][v["view"]])
    except CheckFailed as e:
        return False, e.code
    if v.get("want_err"):
        return True, None
    if size != v["size"]:
        return False, "size"
    many = sha256_many if v["view"] == "sha256" else b3_many
    files = v["tiles"]
    levels = 0
    while size >> (8 * levels):
        levels += 1
    rows = [[None] * (size >> (8 * L)) for L in range(levels)]
    digests = []
    for path, f in files.items():
        parts = path.split("/")
        n = int("".join(p.lstrip("x") for p in parts[2:]).split(".")[0])
        width = int(path.rsplit("/", 1)[1]) if ".p/" in path else W
        if parts[1] == "entries":
            want = b"".join(len(e).to_bytes(2, "big") + e
                            for e in (entry_of(i) for i in range(n * W, n * W + width)))
            ok = (b64(f["base64"]) == want) if "base64" in f else (
                hashlib.sha256(want).hexdigest() == f["sha256"] and len(want) == f["length"])
            if not ok:
                return False, f"bundle {path}"
            continue
        L = int(parts[1])
        if "base64" in f:
            data = b64(f["base64"])
            if len(data) != 32 * width:
                return False, f"tile {path} length"
            rows[L][n * W : n * W + width] = [data[k : k + 32] for k in range(0, len(data), 32)]
        else:
            digests.append((n, f))
    digests.sort(key=lambda x: x[0])
    chosen = digests if v["view"] == "sha256" else digests[:sample] + digests[-sample:]
    for n, f in {n: f for n, f in chosen}.items():
        leaves = many([b"\x00" + entry_of(i) for i in range(n * W, (n + 1) * W)])
        data = b"".join(leaves)
        if hashlib.sha256(data).hexdigest() != f["sha256"] or len(data) != f["length"]:
            return False, f"tile 0/{n} digest"
        rows[0][n * W : (n + 1) * W] = leaves
    # Whole tiles at level 0 hold the leaf hashes of the entry rule.
    known = [i for i, x in enumerate(rows[0]) if x is not None]
    if known != [] and many([b"\x00" + entry_of(i) for i in known]) != [rows[0][i] for i in known]:
        return False, "leaf hashes"
    # Every known full tile folds to its entry in the tile above.
    for L in range(1, levels):
        below = rows[L - 1]
        idx = [k for k in range(len(rows[L]))
               if all(x is not None for x in below[k * W : (k + 1) * W])]
        for k, h in zip(idx, fold_perfect([below[k * W : (k + 1) * W] for k in idx], many)):
            if rows[L][k] is None or rows[L][k] != h:
                return False, f"tile {L - 1}/{k} does not fold to level {L}"
    try:
        if Tree(size, rows, many).range_hash(0, size) != root:
            return False, "root"
    except CheckFailed as e:
        return False, str(e)
    return True, None


def main(argv):
    try:
        deps.check()
    except deps.MissingDependency as e:
        print(str(e), file=sys.stderr)
        return 2
    ap = argparse.ArgumentParser(prog="python3 -m jcverify.tiles")
    ap.add_argument("--url", required=True)
    ap.add_argument("--vkey", required=True)
    ap.add_argument("--records", default="all")
    ap.add_argument("--old", action="append", default=[])
    a = ap.parse_args(argv)
    try:
        r = check(a.url.rstrip("/"), a.vkey, a.records, a.old)
    except (CheckFailed, OSError, UnicodeDecodeError, ValueError) as e:
        print(json.dumps({"ok": False, "error": str(e)}))
        return 1
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
