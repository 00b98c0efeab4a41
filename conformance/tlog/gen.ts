// C-TLOG conformance vectors (JouleClaw SPEC §22, conformance class C-TLOG), generated
// deterministically: BLAKE3 roots for sizes 0..64 over fixed leaves, every inclusion and every
// consistency proof up to size 64 plus a sample at large sizes, each happy case with corrupted
// variants in the transparency-dev/merkle testdata style (`want_err`), and signed tree heads with
// a fixed test key plus refused ones (other key, bad root length, altered field); tiles, bundles
// and C2SP checkpoints of both views around tile edges (gen_tiles.ts).
// `deno task conformance:tlog` rewrites the files; tlog_test.ts fails if regenerating changes a byte.
import {
  blake3Hasher as h,
  checkTreeHead,
  consistencyProof,
  inclusionProof,
  type NodeId,
  referenceRoot,
  signTreeHead,
  verifyConsistency,
  verifyInclusion,
} from "../../log/mod.ts";
import { ed25519PublicKey, toHex } from "../../verify/mod.ts";
import { generateTileVectors } from "./gen_tiles.ts";

/** The fixed test key of the signed-head vectors (never a production key). */
export const TEST_LOG_SECRET = new Uint8Array(32).map((_, i) => 0x40 + i);
const OTHER_SECRET = new Uint8Array(32).map((_, i) => 0x80 + i);

const MAX = 64;
const LARGE_SIZES = [1000, 4097, 65_537];
const enc = new TextEncoder();
const entryOf = (i: number) => enc.encode(`JouleClaw C-TLOG leaf ${i}`);

/** A node reader over the first `n` leaves, with a per-tree memo (independent of storage). */
function treeReader(leaves: Uint8Array[]) {
  const memo = new Map<string, Uint8Array>();
  const node = (l: number, i: number): Uint8Array => {
    const k = `${l}/${i}`;
    let v = memo.get(k);
    if (!v) {
      v = l === 0 ? leaves[i] : h.node(node(l - 1, 2 * i), node(l - 1, 2 * i + 1));
      memo.set(k, v);
    }
    return v;
  };
  return (ids: NodeId[]) => Promise.resolve(ids.map((id) => node(id.level, id.index)));
}

const X = (b: Uint8Array) => toHex(b);
const flipBit = (b: Uint8Array, bit: number) => b.map((x, k) => (k === 0 ? x ^ (1 << bit) : x));
const SOME = h.leaf(enc.encode("some other hash"));

interface Incl {
  name: string;
  index: number;
  size: number;
  leaf_hash: string;
  proof: string[];
  root: string;
  want_err: boolean;
}

function inclusionVariants(c: Incl, hashOf: (i: number) => string): Incl[] {
  const v = (name: string, o: Partial<Incl>): Incl => ({
    ...c,
    ...o,
    name: `${c.name}/${name}`,
    want_err: true,
  });
  const out = [
    v("index-minus-1", { index: c.index - 1 }),
    v("index-plus-1", { index: c.index + 1 }),
    v("index-xor-2", { index: c.index ^ 2 }),
    v("size-times-2", { size: c.size * 2 }),
    v("size-div-2", { size: Math.floor(c.size / 2) }),
    v("wrong-leaf", { leaf_hash: hashOf((c.index + 1) % Math.max(c.size, 2)) }),
    v("empty-root", { root: X(h.empty()) }),
    v("random-root", { root: X(SOME) }),
    v("trailing-garbage", { proof: [...c.proof, ""] }),
    v("trailing-root", { proof: [...c.proof, c.root] }),
    v("preceding-garbage", { proof: ["", ...c.proof] }),
    v("preceding-root", { proof: [c.root, ...c.proof] }),
    v("short-root", { root: c.root.slice(0, 62) }),
  ];
  c.proof.forEach((p, i) =>
    out.push(v(`modified-proof-${i}-bit-3`, {
      proof: c.proof.map((q, j) => (j === i ? X(flipBit(fromHexLocal(p), 3)) : q)),
    }))
  );
  if (c.proof.length) out.push(v("removed-component", { proof: c.proof.slice(0, -1) }));
  if (c.proof.length > 1) {
    out.push(v("inserted-component", { proof: [c.proof[0], X(SOME), ...c.proof.slice(1)] }));
  }
  // index-minus-1 of index 0 is -1, index-xor-2 may equal another valid index with the same leaf:
  // every variant here names a different statement than the happy case, and all must be refused.
  return out.filter((x) => !(x.name.endsWith("wrong-leaf") && x.leaf_hash === c.leaf_hash));
}

interface Cons {
  name: string;
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[];
  want_err: boolean;
}

function consistencyVariants(c: Cons): Cons[] {
  const v = (name: string, o: Partial<Cons>): Cons => ({
    ...c,
    ...o,
    name: `${c.name}/${name}`,
    want_err: true,
  });
  const out = [
    v("size1-minus-1", { size1: c.size1 - 1 }),
    v("size1-plus-1", { size1: c.size1 + 1 }),
    v("size1-xor-2", { size1: c.size1 ^ 2 }),
    v("size2-times-2", { size2: c.size2 * 2 }),
    v("size2-div-2", { size2: Math.floor(c.size2 / 2) }),
    v("wrong-root1", { root1: X(SOME) }),
    v("wrong-root2", { root2: X(SOME) }),
    v("swapped-roots", { root1: c.root2, root2: c.root1 }),
    v("empty-proof", { proof: [] }),
    v("trailing-garbage", { proof: [...c.proof, ""] }),
    v("trailing-root1", { proof: [...c.proof, c.root1] }),
    v("trailing-root2", { proof: [...c.proof, c.root2] }),
    v("preceding-garbage", { proof: ["", ...c.proof] }),
    v("preceding-root1", { proof: [c.root1, ...c.proof] }),
    v("preceding-root2", { proof: [c.root2, ...c.proof] }),
    v("preceding-proof-0", { proof: [c.proof[0], ...c.proof] }),
    v("truncated-proof", { proof: c.proof.slice(0, -1) }),
    v("short-root2", { root2: c.root2.slice(0, 62) }),
  ];
  c.proof.forEach((p, i) =>
    out.push(v(`modified-proof-${i}-bit-4`, {
      proof: c.proof.map((q, j) => (j === i ? X(flipBit(fromHexLocal(p), 4)) : q)),
    }))
  );
  return out;
}

function fromHexLocal(s: string): Uint8Array {
  return Uint8Array.from(s.match(/../g) ?? [], (x) => parseInt(x, 16));
}

/** Variant names whose corrupted statement RFC 9162 verification may still accept (none here). */
function assertRefused(kind: string, name: string, accepted: boolean) {
  if (accepted) throw new Error(`Cannot generate C-TLOG vectors: ${kind} variant ${name} verifies`);
}

const json = (doc: unknown) => {
  const { vectors, ...rest } = doc as { vectors: unknown[] };
  const head = JSON.stringify(rest).slice(0, -1);
  return `${head},"vectors":[\n${vectors.map((x) => JSON.stringify(x)).join(",\n")}\n]}\n`;
};

/** Builds every C-TLOG vector file: file name → exact bytes (as text). */
export async function generateTlogVectors(): Promise<Record<string, string>> {
  const big = Math.max(...LARGE_SIZES);
  const leaves = Array.from({ length: big }, (_, i) => h.leaf(entryOf(i)));
  const read = treeReader(leaves);
  const rootOf = (n: number) => (n <= MAX ? referenceRoot(h, leaves.slice(0, n)) : undefined);
  const roots = new Map<number, Uint8Array>();
  for (let n = 0; n <= MAX; n++) roots.set(n, rootOf(n)!);
  for (const n of LARGE_SIZES) {
    roots.set(n, await (await import("../../log/mod.ts")).treeRoot(h, n, read));
  }
  const leafHex = (i: number) => X(leaves[i]);

  const rootsDoc = {
    kind: "tlog-vectors/1",
    type: "roots",
    spec: "JouleClaw SPEC §22.1; RFC 6962 §2.1 with BLAKE3",
    entry_rule: 'entry i = UTF-8 of "JouleClaw C-TLOG leaf <i>"; leaf hash BLAKE3(0x00 || entry)',
    entries: [...Array(MAX).keys()].map((i) => X(entryOf(i))),
    vectors: [...Array(MAX + 1).keys()].map((n) => ({
      name: `root-${n}`,
      size: n,
      root: X(roots.get(n)!),
    })),
  };

  const incl: Incl[] = [];
  const sizes = [...[...Array(MAX).keys()].map((i) => i + 1), ...LARGE_SIZES];
  for (const n of sizes) {
    const indices = n <= MAX ? [...Array(n).keys()] : [0, 1, Math.floor(n / 2), n - 2, n - 1];
    for (const i of indices) {
      const c: Incl = {
        name: `inclusion-${i}-${n}`,
        index: i,
        size: n,
        leaf_hash: leafHex(i),
        proof: (await inclusionProof(h, i, n, read)).map(X),
        root: X(roots.get(n)!),
        want_err: false,
      };
      incl.push(c);
      // Corrupted variants: every case up to size 8, then both ends of every 5th size and the
      // large sizes (the files stay a few MB).
      if (n <= 8 || ((n % 5 === 0 || n > MAX) && (i === 0 || i === n - 1))) {
        for (const bad of inclusionVariants(c, leafHex)) {
          assertRefused(
            "inclusion",
            bad.name,
            verifyInclusion(
              h,
              bad.index,
              bad.size,
              fromHexLocal(bad.leaf_hash),
              bad.proof.map(fromHexLocal),
              fromHexLocal(bad.root),
            ),
          );
          incl.push(bad);
        }
      }
    }
  }
  const cons: Cons[] = [];
  const pairs: [number, number][] = [];
  for (let n = 1; n <= MAX; n++) for (let m = 1; m <= n; m++) pairs.push([m, n]);
  pairs.push([1, 1000], [999, 1000], [1000, 4097], [4096, 4097], [1000, 65_537], [4097, 65_537], [
    65_536,
    65_537,
  ]);
  for (const [m, n] of pairs) {
    const c: Cons = {
      name: `consistency-${m}-${n}`,
      size1: m,
      size2: n,
      root1: X(roots.get(m) ?? (await (await import("../../log/mod.ts")).treeRoot(h, m, read))),
      root2: X(roots.get(n)!),
      proof: (await consistencyProof(h, m, n, read)).map(X),
      want_err: false,
    };
    cons.push(c);
    if (m < n && (n <= 8 || (n % 5 === 0 && (m === 1 || m === n - 1)) || n > MAX)) {
      for (const bad of consistencyVariants(c)) {
        assertRefused(
          "consistency",
          bad.name,
          verifyConsistency(
            h,
            bad.size1,
            bad.size2,
            bad.proof.map(fromHexLocal),
            fromHexLocal(bad.root1),
            fromHexLocal(bad.root2),
          ),
        );
        cons.push(bad);
      }
    }
  }
  // Edge cases the log decides (docs/DECISIONS.md): from the empty tree proves nothing.
  cons.push({
    name: "consistency-0-0",
    size1: 0,
    size2: 0,
    root1: X(h.empty()),
    root2: X(h.empty()),
    proof: [],
    want_err: true,
  });
  cons.push({
    name: "consistency-0-5",
    size1: 0,
    size2: 5,
    root1: X(h.empty()),
    root2: X(roots.get(5)!),
    proof: [],
    want_err: true,
  });
  cons.push({
    name: "consistency-5-3",
    size1: 5,
    size2: 3,
    root1: X(roots.get(5)!),
    root2: X(roots.get(3)!),
    proof: [],
    want_err: true,
  });

  const signer = signTreeHead(0, h.empty(), 0, TEST_LOG_SECRET).signer;
  const heads: Record<string, unknown>[] = [];
  const good = [[0, 1_700_000_000_000], [1, 1_700_000_000_001], [7, 1_700_000_000_123], [
    64,
    1_700_000_999_999,
  ], [65_537, 1_800_000_000_000]];
  for (const [size, ts] of good) {
    const head = signTreeHead(size, roots.get(size)!, ts, TEST_LOG_SECRET);
    heads.push({ name: `head-${size}`, head, want_err: false });
  }
  const base = signTreeHead(7, roots.get(7)!, 1_700_000_000_123, TEST_LOG_SECRET);
  const other = signTreeHead(7, roots.get(7)!, 1_700_000_000_123, OTHER_SECRET);
  const refused: [string, object][] = [
    ["other-key", { ...other }], // signed by another key: the expected signer refuses it
    ["other-key-claims-log-signer", { ...other, signer }],
    ["root-31-bytes", { ...base, root: base.root.slice(0, 62) }],
    ["root-33-bytes", { ...base, root: base.root + "00" }],
    ["root-empty", { ...base, root: "" }],
    ["root-not-hex", { ...base, root: "zz" + base.root.slice(2) }],
    ["root-uppercase", { ...base, root: base.root.toUpperCase() }],
    ["altered-size", { ...base, size: 8 }],
    ["altered-root", { ...base, root: X(roots.get(6)!) }],
    ["altered-timestamp", { ...base, timestamp: base.timestamp + 1 }],
    ["altered-signature", {
      ...base,
      signature: base.signature.slice(0, -2) + (base.signature.endsWith("00") ? "01" : "00"),
    }],
  ];
  for (const [name, head] of refused) {
    const c = await checkTreeHead(head, signer);
    if (c.ok) throw new Error(`Cannot generate C-TLOG vectors: refused head ${name} verifies`);
    heads.push({ name: `head-refused-${name}`, head, want_err: true, code: c.code });
  }
  const headsDoc = {
    kind: "tlog-vectors/1",
    type: "heads",
    spec:
      "JouleClaw SPEC §22.2: Ed25519 over 0x02 || size u64 BE || root 32 || timestamp u64 BE (ms)",
    signer,
    public_key: X(ed25519PublicKey(TEST_LOG_SECRET)),
    vectors: heads,
  };
  return {
    "roots.json": json(rootsDoc),
    "inclusion.json": json({
      kind: "tlog-vectors/1",
      type: "inclusion",
      spec: "RFC 6962 §2.1.1, RFC 9162 §2.1.3.2, BLAKE3",
      vectors: incl,
    }),
    "consistency.json": json({
      kind: "tlog-vectors/1",
      type: "consistency",
      spec: "RFC 6962 §2.1.2, RFC 9162 §2.1.4.2, BLAKE3",
      vectors: cons,
    }),
    "heads.json": json(headsDoc),
    "tiles.json": json(generateTileVectors(TEST_LOG_SECRET, entryOf)),
  };
}

if (import.meta.main) {
  const dir = new URL("./", import.meta.url);
  for (const [name, text] of Object.entries(await generateTlogVectors())) {
    await Deno.writeTextFile(new URL(name, dir), text);
    console.log(`conformance/tlog/${name}: ${text.length} bytes`);
  }
}
