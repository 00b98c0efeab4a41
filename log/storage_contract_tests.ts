// The shared storage-contract suite (docs/STORAGE.md): every backend (memory, SQLite, the
// Durable Object one in log/durable/) runs exactly these cases through
// `runStorageContractTests(name, makeBackend)`. Uses only Deno.test and node:assert, and the
// backend only through the contract, so nothing here assumes a platform.
import assert from "node:assert/strict";
import type { Batch, LogStorage, StoredHead } from "./storage.ts";
import { leafPrefix, StorageConflictError } from "./storage.ts";
import { blake3Hasher, sha256Hasher } from "./hasher.ts";
import { TreeEdge } from "./edge.ts";
import { TileNodeReader } from "./tiles.ts";
import { referenceRoot, treeRoot } from "./tree.ts";
import { fsckLog } from "./fsck.ts";
import { openLog } from "./open.ts";
import { ed25519PublicKey, ed25519Sign } from "./crypto.ts";
import { treeHeadBytes } from "./head.ts";

/** Makes a fresh, empty backend; `cleanup` (optional) runs after the case. */
export type MakeBackend = () => Promise<{ storage: LogStorage; cleanup?: () => Promise<void> }>;

const SECRET = new Uint8Array(32).fill(3);
const enc = (s: string) => new TextEncoder().encode(s);

/** Both views' right edges of the tree a test has committed so far. */
class Edges {
  constructor(
    readonly b3 = TreeEdge.empty(blake3Hasher),
    readonly sha = TreeEdge.empty(sha256Hasher),
  ) {}
  get size(): number {
    return this.b3.size;
  }
  clone(): Edges {
    return new Edges(this.b3.clone(), this.sha.clone());
  }
}

/** Builds the next valid batch for `entries` on top of a store holding `edges`. */
async function nextBatch(
  edges: Edges,
  entries: Uint8Array[],
  timestamp: number,
): Promise<Batch> {
  const edge = edges.b3;
  const base = edge.size;
  const leaves = entries.map((e) => blake3Hasher.leaf(e));
  const sha256Tiles = edges.sha.append(entries.map((e) => sha256Hasher.leaf(e)));
  const tiles = edge.append(leaves);
  const overlay = new Map(tiles.map((t) => [`${t.level}/${t.index}`, t.hashes]));
  const reader = new TileNodeReader(
    blake3Hasher,
    (l, i) => Promise.resolve(overlay.get(`${l}/${i}`) ?? edge.tile(l, i)),
  );
  const root = await treeRoot(blake3Hasher, edge.size, reader.read);
  const head: StoredHead = {
    size: edge.size,
    root,
    timestamp,
    signature: ed25519Sign(treeHeadBytes(edge.size, root, timestamp), SECRET),
    sha256Root: await edges.sha.root(),
  };
  return {
    entries: entries.map((bytes, i) => ({ index: base + i, leafHash: leaves[i], bytes })),
    tiles,
    sha256Tiles,
    head,
  };
}

const hex = (
  b: Uint8Array | undefined,
) => (b ? Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("") : "-");

/**
 * Registers the contract cases for one backend.
 *
 * @example
 * ```ts
 * runStorageContractTests("memory", async () => ({ storage: createMemoryStore() }));
 * ```
 */
export function runStorageContractTests(name: string, makeBackend: MakeBackend): void {
  const withStore = (what: string, fn: (s: LogStorage) => Promise<void>) =>
    Deno.test(`storage contract [${name}]: ${what}`, async () => {
      const { storage, cleanup } = await makeBackend();
      try {
        await fn(storage);
      } finally {
        await storage.close();
        await cleanup?.();
      }
    });

  withStore("an empty store has no head, entry, tile or leaf", async (s) => {
    assert.equal(await s.latestHead(), undefined);
    assert.equal(await s.head(0), undefined);
    assert.deepEqual(await s.heads(0, 10), []);
    assert.equal(await s.entry(0), undefined);
    assert.deepEqual(await s.entries(0, 10), []);
    assert.equal(await s.tile(0, 0), undefined);
    assert.deepEqual(await s.leafCandidates(new Uint8Array(32)), []);
  });

  withStore("committed batches read back byte-exact", async (s) => {
    const edge = new Edges();
    await s.commitBatch(await nextBatch(edge, [], 1));
    const sizes = [1, 15, 1, 16, 240, 3];
    const all: Uint8Array[] = [];
    let ts = 2;
    for (const k of sizes) {
      const entries = Array.from(
        { length: k },
        (_, i) => enc(`entry ${all.length + i} ` + "x".repeat(i % 7)),
      );
      const batch = await nextBatch(edge, entries, ts++);
      await s.commitBatch(batch);
      all.push(...entries);
      const latest = await s.latestHead();
      assert.equal(latest?.size, all.length);
      assert.equal(hex(latest?.root), hex(batch.head.root));
      assert.equal(hex(latest?.signature), hex(batch.head.signature));
      assert.equal(latest?.timestamp, batch.head.timestamp);
    }
    for (let i = 0; i < all.length; i++) {
      assert.equal(hex(await s.entry(i)), hex(all[i]), `entry ${i}`);
      const c = await s.leafCandidates(blake3Hasher.leaf(all[i]));
      assert.ok(c.includes(i), `leaf index of ${i}`);
    }
    const caps = s.capabilities();
    if (caps.leafLookupMany) {
      // The optional batch lookup answers exactly as the one-at-a-time lookup does.
      const asked = [...all, enc("never stored"), ...all.slice(0, 3)].map(blake3Hasher.leaf);
      const many = await caps.leafLookupMany.leafCandidatesMany(asked);
      assert.equal(many.length, asked.length);
      for (let k = 0; k < asked.length; k++) {
        assert.deepEqual(
          [...many[k]].sort((a, b) => a - b),
          [...await s.leafCandidates(asked[k])].sort((a, b) => a - b),
          `candidates of ${k}`,
        );
      }
      assert.deepEqual(await caps.leafLookupMany.leafCandidatesMany([]), []);
    }
    assert.equal(await s.entry(all.length), undefined);
    assert.deepEqual((await s.entries(10, 5)).map(hex), all.slice(10, 15).map(hex));
    assert.equal((await s.entries(all.length - 2, 10)).length, 2);
    const heads = await s.heads(0, 100);
    assert.deepEqual(heads.map((h) => h.size), [0, 1, 16, 17, 33, 273, 276]);
    assert.deepEqual((await s.heads(17, 2)).map((h) => h.size), [17, 33]);
    assert.equal((await s.head(33))?.size, 33);
    assert.equal(await s.head(34), undefined);
    // Stored tiles give back every head's root.
    const reader = new TileNodeReader(blake3Hasher, (l, i) => s.tile(l, i));
    for (const h of heads) {
      assert.equal(
        hex(await treeRoot(blake3Hasher, h.size, reader.read)),
        hex(h.root),
        `root ${h.size}`,
      );
    }
    // ... and the SHA-256 view's tiles every head's SHA-256 root, RFC 6962 over the same entries.
    const shaReader = new TileNodeReader(sha256Hasher, (l, i) => s.tile(l, i, "sha256"));
    for (const h of heads) {
      const want = h.size === 0
        ? sha256Hasher.empty()
        : referenceRoot(sha256Hasher, all.slice(0, h.size).map(sha256Hasher.leaf));
      assert.equal(hex(h.sha256Root), hex(want), `SHA-256 root ${h.size}`);
      if (h.size) {
        assert.equal(hex(await treeRoot(sha256Hasher, h.size, shaReader.read)), hex(want));
      }
    }
    assert.equal(hex(await s.tile(0, 0, "sha256")).length, 16 * 64);
    // The range read answers as the point reads do, absent tiles included.
    for (const view of ["blake3", "sha256"] as const) {
      for (const [level, start, count] of [[0, 0, 16], [0, 14, 5], [1, 0, 3], [2, 0, 1]]) {
        const got = await s.tileRange(level, start, count, view);
        assert.equal(got.length, count);
        for (let k = 0; k < count; k++) {
          assert.equal(
            hex(got[k]),
            hex(await s.tile(level, start + k, view)),
            `${view} ${level}/${start + k}`,
          );
        }
      }
    }
    const groups = caps.tileGroups;
    if (groups) {
      // 276 leaves: tiles 0/0 .. 0/15 are full (one group), 0/16 .. 0/17 and level 1 are not.
      for (const view of ["blake3", "sha256"] as const) {
        const parts = await Promise.all(
          Array.from({ length: 16 }, (_, k) => s.tile(0, k, view)),
        );
        assert.equal(hex(await groups.tileGroup(0, 0, view)), parts.map(hex).join(""), view);
        assert.equal(await groups.tileGroup(0, 1, view), undefined);
        assert.equal(await groups.tileGroup(1, 0, view), undefined);
      }
    }
    assert.notEqual(hex(await s.tile(0, 0, "sha256")), hex(await s.tile(0, 0)));
    const report = await fsckLog(s, ed25519PublicKey(SECRET));
    assert.deepEqual(report.problems, []);
    assert.equal(report.entries, all.length);
  });

  withStore("the SHA-256 view's migration writes its tiles and roots, idempotently", async (s) => {
    const edge = new Edges();
    await s.commitBatch(await nextBatch(edge, [], 1));
    const b = await nextBatch(edge, [enc("a"), enc("b"), enc("c")], 2);
    await s.commitBatch(b);
    const fake = { ...b.sha256Tiles[0], hashes: new Uint8Array(96).fill(9) };
    const m = s.capabilities().viewMigration;
    assert.ok(m, "every backend here migrates a store written before the SHA-256 view");
    await m.commitViewBackfill({
      sha256Tiles: [fake],
      roots: [{ size: 3, sha256Root: fake.hashes.subarray(0, 32) }],
    });
    assert.equal(hex(await s.tile(0, 0, "sha256")), hex(fake.hashes));
    assert.equal(hex((await s.latestHead())?.sha256Root), hex(fake.hashes.subarray(0, 32)));
    for (let k = 0; k < 2; k++) {
      await m.commitViewBackfill({
        sha256Tiles: b.sha256Tiles,
        roots: [{ size: 3, sha256Root: b.head.sha256Root! }],
      });
    }
    assert.equal(hex(await s.tile(0, 0, "sha256")), hex(b.sha256Tiles[0].hashes));
    assert.equal(hex((await s.head(3))?.sha256Root), hex(b.head.sha256Root));
    assert.equal(hex((await s.head(0))?.sha256Root), hex(sha256Hasher.empty()));
    assert.equal(hex(await s.tile(0, 0)), hex(b.tiles[0].hashes)); // the BLAKE3 view untouched
  });

  withStore(
    "a batch that does not extend the stored head is refused and writes nothing",
    async (s) => {
      const edge = new Edges();
      await s.commitBatch(await nextBatch(edge, [], 1));
      const good = await nextBatch(edge.clone(), [enc("a"), enc("b")], 2);
      const gap = { ...good, entries: good.entries.map((e) => ({ ...e, index: e.index + 1 })) };
      await assert.rejects(s.commitBatch(gap), StorageConflictError);
      const badHead = { ...good, head: { ...good.head, size: 5 } };
      await assert.rejects(s.commitBatch(badHead), StorageConflictError);
      await assert.rejects(
        s.commitBatch({ entries: [], tiles: [], sha256Tiles: [], head: { ...good.head, size: 0 } }),
        StorageConflictError,
      );
      assert.equal((await s.latestHead())?.size, 0);
      assert.equal(await s.entry(0), undefined);
      assert.equal(await s.tile(0, 0), undefined);
      await s.commitBatch(good);
      await assert.rejects(s.commitBatch(good), StorageConflictError); // a second writer, same batch
      assert.equal((await s.latestHead())?.size, 2);
    },
  );

  withStore("the leaf index is unique: a stored leaf hash refuses the batch", async (s) => {
    const edge = new Edges();
    await s.commitBatch(await nextBatch(edge, [], 1));
    await s.commitBatch(await nextBatch(edge, [enc("a")], 2));
    const before = edge.clone();
    const dup = await nextBatch(before, [enc("b"), enc("a")], 3);
    await assert.rejects(s.commitBatch(dup), StorageConflictError);
    assert.equal((await s.latestHead())?.size, 1);
    assert.equal(await s.entry(1), undefined);
    const twice = await nextBatch(edge.clone(), [enc("c"), enc("c")], 3);
    await assert.rejects(s.commitBatch(twice), StorageConflictError);
    assert.equal((await s.latestHead())?.size, 1);
  });

  withStore("a leaf-prefix collision still finds the right index", async (s) => {
    // Two leaf hashes sharing 8 leading bytes cannot be made by hashing; probe the lookup with a
    // forged hash: the candidates may include false positives, never miss the true index.
    const edge = new Edges();
    await s.commitBatch(await nextBatch(edge, [], 1));
    await s.commitBatch(await nextBatch(edge, [enc("a"), enc("b")], 2));
    const lh = blake3Hasher.leaf(enc("b"));
    const forged = lh.slice();
    forged[31] ^= 1;
    assert.equal(leafPrefix(forged), leafPrefix(lh));
    const c = await s.leafCandidates(forged);
    assert.ok(c.every((i) => i === 1), `candidates ${c}`);
    const many = s.capabilities().leafLookupMany;
    if (many) {
      const [m, t] = await many.leafCandidatesMany([forged, lh]);
      assert.ok(m.every((i) => i === 1), `candidates ${m}`);
      assert.ok(t.includes(1));
    }
  });

  withStore(
    "agents' chain heads: written with their batch, larger index wins, atomic",
    async (s) => {
      const agents = s.capabilities().agentHeads;
      assert.ok(agents, "chain heads kept");
      assert.equal(await agents.agentHeadsComplete(), true, "a new store's heads are complete");
      const edge = new Edges();
      await s.commitBatch(await nextBatch(edge, [], 1));
      const prev = (n: number) => new Uint8Array(32).fill(n);
      const b1 = await nextBatch(edge, [enc("m0"), enc("x"), enc("m1")], 2);
      await s.commitBatch({
        ...b1,
        agents: [
          { did: "did:key:zA", seq: 0, prev: prev(1), index: 0 },
          { did: "did:key:zA", seq: 1, prev: prev(2), index: 2 },
          { did: "did:key:zB", seq: 7, prev: prev(3), index: 1 },
        ],
      });
      const a = await agents.agentHead("did:key:zA");
      assert.deepEqual({ ...a, prev: hex(a?.prev) }, {
        did: "did:key:zA",
        seq: 1,
        prev: hex(prev(2)),
        index: 2,
      });
      assert.equal((await agents.agentHead("did:key:zB"))?.seq, 7);
      assert.equal(await agents.agentHead("did:key:zC"), undefined);
      // a refused batch moves no head
      const bad = await nextBatch(edge.clone(), [enc("m2")], 3);
      await assert.rejects(
        s.commitBatch({
          ...bad,
          head: { ...bad.head, size: 9 },
          agents: [{ did: "did:key:zA", seq: 2, prev: prev(4), index: 3 }],
        }),
        StorageConflictError,
      );
      assert.equal((await agents.agentHead("did:key:zA"))?.seq, 1);
      // the backfill's write never moves a head back
      await agents.putAgentHeads([
        { did: "did:key:zA", seq: 0, prev: prev(1), index: 0 },
        { did: "did:key:zC", seq: 3, prev: prev(5), index: 1 },
      ], true);
      assert.equal((await agents.agentHead("did:key:zA"))?.seq, 1);
      assert.equal((await agents.agentHead("did:key:zC"))?.seq, 3);
      assert.equal(await agents.agentHeadsComplete(), true);
    },
  );

  withStore(
    "agents' chain heads keep their reading state (span end, calibrations) in the same commit",
    async (s) => {
      const agents = s.capabilities().agentHeads!;
      const edge = new Edges();
      await s.commitBatch(await nextBatch(edge, [], 1));
      const cal = { gpu: { reading: "c0".repeat(32), power_mw: 250_000 } };
      const b1 = await nextBatch(edge, [enc("r0"), enc("r1")], 2);
      await s.commitBatch({
        ...b1,
        agents: [
          { did: "did:key:zA", seq: 0, prev: new Uint8Array(32), index: 0, end: 10 },
          {
            did: "did:key:zA",
            seq: 1,
            prev: new Uint8Array(32),
            index: 1,
            end: 20,
            calibrations: cal,
          },
        ],
      });
      const a = await agents.agentHead("did:key:zA");
      assert.equal(a?.end, 20);
      assert.deepEqual(a?.calibrations, cal);
      // a head moved without state (an older writer) has none: never an older reading's
      const b2 = await nextBatch(edge, [enc("r2")], 3);
      await s.commitBatch({
        ...b2,
        agents: [{ did: "did:key:zA", seq: 2, prev: new Uint8Array(32), index: 2 }],
      });
      const b = await agents.agentHead("did:key:zA");
      assert.deepEqual([b?.seq, b?.end, b?.calibrations], [2, undefined, undefined]);
    },
  );
  withStore("the log name is bound once; another name is refused", async (s) => {
    assert.equal(await s.logName(), undefined);
    await s.setLogName("log.example.org/jc");
    await s.setLogName("log.example.org/jc");
    assert.equal(await s.logName(), "log.example.org/jc");
    await assert.rejects(s.setLogName("other.example/jc"), StorageConflictError);
    assert.equal(await s.logName(), "log.example.org/jc");
  });

  withStore("a log over the backend survives reopening", async (s) => {
    const log = await openLog(s, { secretKey: SECRET, batchMax: 5, batchAgeMs: 1 });
    const rs = await Promise.all(Array.from({ length: 23 }, (_, i) => log.append(enc(`r${i}`))));
    const head = await log.latestHead();
    const again = await openLog(s, { secretKey: SECRET, batchMax: 5, batchAgeMs: 1 });
    assert.deepEqual(await again.latestHead(), head);
    const dup = await again.append(enc("r7"));
    assert.equal(dup.index, rs[7].index);
    assert.equal(dup.created, false);
    await assert.rejects(
      openLog(s, { secretKey: new Uint8Array(32).fill(4) }),
      /not signed by the configured log key/,
    );
  });
}
