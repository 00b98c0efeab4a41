// The Worker-side parts of the edge build, in Deno without workerd: the sequencer core (the memory
// backend stands in for the Durable Object's storage) and its RPC error wire, the byte-bounded
// immutable-read cache, and the edge HTTP cache decisions.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  blake3Hasher,
  createMemoryStore,
  LogInputError,
  LogIntegrityError,
  LogStorageError,
  openLog,
  PushbackError,
  StorageConflictError,
  verifyInclusion,
  verifyTreeHead,
} from "../../log/mod.ts";
import { ed25519PublicKey, entryLeafHash, fromHex } from "../../verify/mod.ts";
import {
  cacheKey,
  EDGE_CACHE_HEADER,
  type EdgeCache,
  edgeSettings,
  fromWire,
  ImmutableCache,
  isImmutable,
  logKeyFromEnv,
  SequencerCore,
  serveCached,
  toWire,
  unwrap,
} from "../../edge/worker/mod.ts";
import { R2Log } from "../../edge/worker/r2_log.ts";

const SECRET = new Uint8Array(32).fill(42);

/** A sequencer core over memory (the Durable Object's storage stands in). */
function coreOverMemory(opts: { pendingMax?: number; batchAgeMs?: number } = {}) {
  return new SequencerCore(() =>
    openLog(createMemoryStore(), { secretKey: SECRET, batchAgeMs: 1, ...opts })
  );
}

const entry = (i: number) => new TextEncoder().encode(`edge entry ${i}`);

Deno.test("SequencerCore: appends through the core give dense indices and verifying proofs", async () => {
  const core = coreOverMemory();
  const rs = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => unwrap(await core.append(entry(i)))),
  );
  assert.deepEqual(rs.map((r) => r.index).sort((a, b) => a - b), [...Array(40).keys()]);
  const log = await core.log();
  for (const [i, r] of rs.entries()) {
    assert.ok(await verifyTreeHead(r.tree_head, log.signer()));
    assert.ok(verifyInclusion(
      blake3Hasher,
      r.index,
      r.tree_head.size,
      entryLeafHash(entry(i)),
      r.inclusion_proof.map(fromHex),
      fromHex(r.tree_head.root),
    ));
  }
  const head = unwrap(await core.latestHead());
  assert.equal(head.size, 40);
  const proof = await log.inclusionProof(17, 40);
  assert.ok(
    verifyInclusion(
      blake3Hasher,
      17,
      40,
      entryLeafHash(entry(rs.findIndex((r) => r.index === 17))),
      proof,
      fromHex(head.root),
    ),
  );
  const again = unwrap(await core.append(entry(3)));
  assert.equal(again.created, false);
  assert.equal(again.index, rs[3].index);
  await core.close();
});

Deno.test("SequencerCore: errors cross the wire as the log's own classes with code", async () => {
  const core = coreOverMemory();
  unwrap(await core.append(entry(0)));
  const err = await Promise.resolve(core.append(new Uint8Array())).then(unwrap).catch((e) => e);
  assert.ok(err instanceof LogInputError, String(err));
  assert.equal(err.code, "entry-empty");
  assert.match(err.message, /^Cannot /);
  await core.close();
});

Deno.test("wire: every log error class survives toWire/fromWire with its fields", () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 40 }),
      fc.stringMatching(/^[a-z][a-z-]{0,20}$/),
      fc.integer({ min: 0, max: 1e6 }),
      (msg, code, ms) => {
        const cases: Error[] = [
          new PushbackError(msg, ms),
          new LogInputError(code, msg),
          new LogIntegrityError(msg),
          new LogStorageError(code, msg),
          new StorageConflictError(msg),
        ];
        for (const e of cases) {
          // What crosses Workers RPC is structured-clone data: JSON is a stricter stand-in.
          const back = fromWire(JSON.parse(JSON.stringify(toWire(e)))) as
            & Error
            & Record<string, unknown>;
          assert.equal(back.constructor, e.constructor);
          assert.equal(back.message, e.message);
          assert.equal(back.code, (e as unknown as Record<string, unknown>).code);
          if (e instanceof PushbackError) assert.equal(back.retryAfterMs, ms);
        }
      },
    ),
    { numRuns: 100 },
  );
  const plain = fromWire(toWire("boom"));
  assert.equal(plain.message, "boom");
});

Deno.test("ImmutableCache: never holds more than its byte bound; evicts least recently used", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 400 }), fc.boolean()),
      ),
      (ops) => {
        const c = new ImmutableCache(1000);
        const model = new Map<string, number>();
        for (const [k, bytes, isGet] of ops) {
          const key = `k${k}`;
          if (isGet) {
            const v = c.get<number>(key);
            if (v !== undefined) {
              assert.equal(v, model.get(key));
              model.delete(key);
              model.set(key, v);
            }
          } else {
            c.set(key, bytes, bytes);
            model.delete(key);
            model.set(key, bytes);
            let total = [...model.values()].reduce((a, b) => a + b, 0);
            for (const [mk, mv] of model) {
              if (total <= 1000) break;
              model.delete(mk);
              total -= mv;
            }
          }
          assert.ok(c.bytes <= 1000);
          assert.equal(c.size, model.size);
        }
      },
    ),
    { numRuns: 200 },
  );
});

/** A Map-backed stand-in for caches.default. */
function mapCache(): EdgeCache & { map: Map<string, Response> } {
  const map = new Map<string, Response>();
  return {
    map,
    match: (k) => Promise.resolve(map.get(k.url)?.clone()),
    put: async (k, r) => void map.set(k.url, new Response(await r.arrayBuffer(), r)),
  };
}

Deno.test("edge HTTP cache: keeps immutable 200s per Accept, nothing else; head max-age", async () => {
  const cache = mapCache();
  const pending: Promise<unknown>[] = [];
  const opts = { cache, waitUntil: (p: Promise<unknown>) => pending.push(p), headMaxAgeS: 1 };
  let calls = 0;
  const app = (cc: string, status = 200) => () => {
    calls++;
    return Promise.resolve(
      new Response(`body ${calls}`, { status, headers: { "cache-control": cc } }),
    );
  };
  const imm = "public, max-age=31536000, immutable";
  const req = (path: string, accept = "application/json", method = "GET") =>
    new Request(`http://x${path}`, { method, headers: { accept } });

  const a = await serveCached(req("/v1/log/entries/1"), app(imm), opts);
  await Promise.all(pending);
  assert.equal(a.headers.get(EDGE_CACHE_HEADER), "MISS");
  const b = await serveCached(req("/v1/log/entries/1"), app(imm), opts);
  assert.equal(b.headers.get(EDGE_CACHE_HEADER), "HIT");
  assert.equal(await b.text(), "body 1");
  assert.equal(calls, 1);
  // Another Accept is another key.
  await serveCached(req("/v1/log/entries/1", "application/cose"), app(imm), opts);
  assert.equal(calls, 2);
  // Not immutable, not 200, or not GET: never stored.
  await serveCached(req("/v1/log/entries/9"), app(imm, 404), opts);
  await serveCached(req("/v1/x"), app("no-cache"), opts);
  await serveCached(req("/v1/log/entries", "application/json", "POST"), app(imm), opts);
  await Promise.all(pending);
  assert.equal(cache.map.size, 2);
  // The latest head gets the short max-age.
  const h = await serveCached(req("/v1/log/tree-head"), app("no-cache"), opts);
  assert.equal(h.headers.get("cache-control"), "public, max-age=1");
  assert.equal(
    isImmutable(new Response("", { headers: { "cache-control": "public, immutable" } })),
    true,
  );
  assert.equal(
    isImmutable(new Response("", { headers: { "cache-control": "no-immutable" } })),
    false,
  );
  assert.notEqual(cacheKey(req("/a", "a/b")).url, cacheKey(req("/a", "a/c")).url);
  await a.body?.cancel();
});

Deno.test("edge settings and log key: bad values are refused with the variable's name", () => {
  assert.deepEqual(edgeSettings({}), {
    headMaxAgeS: 1,
    cacheBytes: 8 * 1024 * 1024,
    httpCache: true,
    batchers: 8,
    batchMax: 256,
    batchAgeMs: 100,
    dedupWindow: 4096,
    checkpointMs: 1000,
    testHooks: false,
    shardMaxSize: 0,
    shardMaxAgeS: 0,
  });
  assert.equal(edgeSettings({ JC_SHARD_MAX_AGE: "180d" }).shardMaxAgeS, 180 * 86400);
  assert.equal(edgeSettings({ JC_SHARD_MAX_AGE: "90m" }).shardMaxAgeS, 5400);
  assert.equal(edgeSettings({ JC_SHARD_MAX_SIZE: "1000000" }).shardMaxSize, 1_000_000);
  assert.throws(() => edgeSettings({ JC_SHARD_MAX_AGE: "6 months" }), /JC_SHARD_MAX_AGE/);
  assert.throws(() => edgeSettings({ JC_SHARD_MAX_SIZE: "-1" }), /JC_SHARD_MAX_SIZE/);
  assert.equal(edgeSettings({ JC_EDGE_DEDUP_WINDOW: "10" }).dedupWindow, 256, "at least 256");
  assert.throws(() => edgeSettings({ JC_EDGE_HEAD_MAX_AGE_S: "-1" }), /JC_EDGE_HEAD_MAX_AGE_S/);
  assert.throws(() => edgeSettings({ JC_EDGE_BATCHERS: "x" }), /JC_EDGE_BATCHERS/);
  assert.throws(() => edgeSettings({ JC_EDGE_CHECKPOINT_MS: "-5" }), /JC_EDGE_CHECKPOINT_MS/);
  assert.throws(() => edgeSettings({ JC_EDGE_TEST_HOOKS: "yes" }), /JC_EDGE_TEST_HOOKS/);
  assert.throws(() => edgeSettings({ JC_EDGE_HTTP_CACHE: "yes" }), /JC_EDGE_HTTP_CACHE/);
  assert.throws(() => logKeyFromEnv({}), /JC_LOG_KEY secret is not set/);
  assert.throws(() => logKeyFromEnv({ JC_LOG_KEY: "zz" }), /64 lowercase hex/);
  assert.deepEqual(logKeyFromEnv({ JC_LOG_KEY: "2a".repeat(32) }), SECRET);
});

Deno.test("edge: the object's log name is bound; another JC_LOG_NAME is a configuration error", async () => {
  const { openEdgeLog } = await import("../../edge/worker/sequencer.ts");
  const { EdgeConfigError } = await import("../../edge/worker/errors.ts");
  const store = createMemoryStore();
  const env = { JC_LOG_KEY: "2a".repeat(32), JC_LOG_NAME: "edge.example/jc" };
  const log = await openEdgeLog(store, env);
  assert.equal(log.logName(), "edge.example/jc");
  assert.match(log.vkeys().sha256, /^edge\.example\/jc\/sha256\+/);
  // The Worker's R2 log computes the same vkeys without a round trip.
  const edge = new R2Log({
    bucket: { get: () => Promise.resolve(null) } as never,
    append: () => Promise.reject(new Error("no appends here")),
    bootstrap: () => Promise.reject(new Error("no sequencer here")),
    publicKey: ed25519PublicKey(SECRET),
    logName: "edge.example/jc",
    cacheBytes: 1,
    latestMs: 0,
  });
  assert.deepEqual(edge.vkeys(), log.vkeys());
  await assert.rejects(
    openEdgeLog(store, { ...env, JC_LOG_NAME: "other.example/jc" }),
    (e: Error) => e instanceof EdgeConfigError && e.message.includes("edge.example/jc"),
  );
  assert.equal(
    (await openEdgeLog(store, { JC_LOG_KEY: env.JC_LOG_KEY })).logName(),
    "edge.example/jc",
  );
});
