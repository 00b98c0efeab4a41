// The one rule for reads of a signed log (issue 27, log/read_faults.ts): inside the signed size a
// read that throws or finds nothing is a `storage-read` fault (503 `storage-unavailable` with
// Retry-After, /healthz degraded `storage-read` until it reads again, counted), beyond the size it
// is absence (undefined, 404). Over a memory store whose reads are made to fail or to lose rows,
// through the log and through the app; and the classifier itself with an injected clock.
import assert from "node:assert/strict";
import {
  createMemoryStore,
  LogInputError,
  type LogStorage,
  LogStorageError,
  openLog,
} from "../../log/mod.ts";
import { ReadFaults } from "../../log/read_faults.ts";
import { sqliteDamaged } from "../../log/sqlite/mod.ts";
import { createApp, Metrics, resolveConfig, verifierOptions } from "../../api/mod.ts";
import { problemResponse } from "../../api/http/errors.ts";
import { validEnvelope } from "../../fixtures/app.ts";

const N = 600; // entries: level-0 tiles 0..37, published tiles 0/000, 0/001, 0/002.p/88

/** A malformed-page error as node:sqlite throws it. */
function corrupt(): Error {
  return Object.assign(new Error("database disk image is malformed"), { errcode: 11 });
}

/** A memory log of N entries whose store can be made to fail (`faults.on`) or lose entries. */
async function faultyLog() {
  const store = createMemoryStore();
  const faults = { on: false, lost: new Set<number>() };
  const fail = () => {
    if (faults.on) throw corrupt();
  };
  const damaged: LogStorage = {
    ...store,
    entry: async (i) => (fail(), faults.lost.has(i) ? undefined : await store.entry(i)),
    entries: async (start, limit) => {
      fail();
      const out = [];
      for (const e of await store.entries(start, limit)) {
        if (faults.lost.has(start + out.length)) break; // a gap ends the run (the contract)
        out.push(e);
      }
      return out;
    },
    tile: async (level, index, view) => (fail(), await store.tile(level, index, view)),
    tileRange: store.tileRange &&
      (async (
        level,
        start,
        count,
        view,
      ) => (fail(), await store.tileRange!(level, start, count, view))),
    heads: async (from, limit) => (fail(), await store.heads(from, limit)),
  };
  const log = await openLog(damaged, { secretKey: new Uint8Array(32).fill(3), batchAgeMs: 1 });
  await Promise.all(Array.from({ length: N }, (_, i) => log.append(validEnvelope(i))));
  return { log, faults };
}

async function storageRead(p: Promise<unknown>, what: string): Promise<LogStorageError> {
  const e = await p.then(() => assert.fail(`${what}: answered`), (e) => e);
  assert.ok(e instanceof LogStorageError, `${what}: ${e}`);
  assert.equal(e.code, "storage-read", what);
  const r = problemResponse(e);
  assert.equal(r.status, 503, what);
  assert.equal((await r.json()).code, "storage-unavailable", what);
  assert.equal(r.headers.get("retry-after"), "1", what);
  return e;
}

Deno.test("read faults: inside the signed size a failing store is storage-read, beyond it absence", async () => {
  const { log, faults } = await faultyLog();
  faults.on = true;
  const e = await storageRead(log.entry(5), "entry 5");
  assert.match(
    e.message,
    /Cannot read entry 5: the store failed \(database disk image is malformed\)/,
  );
  await storageRead(log.tile("blake3", 0, 1, 256), "tile 0/001");
  await storageRead(log.tile("sha256", 0, 2, 88), "tile 0/002.p/88");
  await storageRead(log.bundle(0, 256), "bundle 0");
  await storageRead(log.leafHashAt!(7), "leaf hash 7");
  await storageRead(log.inclusionProof(7, N), "inclusion proof");
  await storageRead(log.consistencyProof(100, N), "consistency proof");
  await storageRead(log.firstHead!(), "first head");
  // beyond the signed size: absent, the store not even asked
  assert.equal(await log.entry(N), undefined);
  assert.equal(await log.tile("blake3", 0, 3, 1), undefined);
  assert.equal(await log.bundle(2, 89), undefined);
  assert.equal(await log.leafHashAt!(N), undefined);
  // malformed input stays malformed input
  await assert.rejects(log.entry(-1), LogInputError);
  await assert.rejects(log.inclusionProof(N, N), LogInputError);
  // health: storage-read while it fails; counted
  await assert.rejects(log.check(), (x: LogStorageError) => x.code === "storage-read");
  assert.equal(log.readFaults!(), 8);
  await log.close();
});

Deno.test("read faults: a row missing inside the signed size is storage-read, never 'not there'", async () => {
  const { log, faults } = await faultyLog();
  faults.lost.add(300);
  const e = await storageRead(log.entry(300), "entry 300");
  assert.match(e.message, /the store does not have it, though the signed head covers it/);
  await storageRead(log.bundle(1, 256), "bundle 1 (entries 256..511, 300 lost)");
  assert.ok(await log.entry(299), "its neighbours are served");
  assert.ok(await log.bundle(0, 256));
  await assert.rejects(log.check(), (x: LogStorageError) => x.code === "storage-read");
  await log.close();
});

Deno.test("read faults: the app answers 503 storage-unavailable inside, 404 beyond; /healthz and metrics", async () => {
  const { log, faults } = await faultyLog();
  const config = resolveConfig({ JC_RATE_READ: "0", JC_RATE_WRITE: "0" });
  const deps = { log, config, verifier: verifierOptions(config), metrics: new Metrics() };
  const app = createApp(deps);
  faults.lost.add(300);
  faults.lost.add(10);
  const origError = console.error;
  console.error = () => {}; // the app logs each fault with its cause
  try {
    for (
      const path of ["/v1/log/entries/300", "/v1/log/entries/10", "/log/blake3/tile/entries/001"]
    ) {
      const r = await app.request(path);
      assert.equal(r.status, 503, path);
      assert.equal(r.headers.get("content-type"), "application/problem+json");
      assert.equal((await r.json()).code, "storage-unavailable", path);
      assert.equal(r.headers.get("retry-after"), "1");
    }
    const exp = await app.request("/v1/log/export?start=300&end=302"); // first entry lost
    assert.equal(exp.status, 503);
    assert.equal((await exp.json()).code, "storage-unavailable");
    const beyond = await app.request(`/v1/log/entries/${N}`);
    assert.equal(beyond.status, 404);
    assert.equal((await beyond.json()).code, "not-found");
    const hz = await app.request("/healthz");
    assert.equal(hz.status, 503);
    const body = await hz.json();
    assert.equal(body.failing, "storage-read");
    assert.equal(body.health, "degraded");
    // 5 reads failed: the bundle's twice (the fast lane's, then the router's), the export's
    assert.match(await (await app.request("/metrics")).text(), /^jc_storage_read_faults_total 5$/m);
    faults.on = true; // the fast lane's fault is left to the router, which answers 503
    const tile = await app.request("/log/blake3/tile/0/000");
    assert.equal(tile.status, 503);
    assert.equal((await tile.json()).code, "storage-unavailable");
  } finally {
    console.error = origError;
    await log.close();
  }
});

Deno.test("read faults: health clears once every failing read answers again (re-read at most once a second)", async () => {
  let now = 0;
  const f = new ReadFaults(() => now);
  let broken = true;
  const read = () => broken ? Promise.reject(corrupt()) : Promise.resolve(new Uint8Array(1));
  await assert.rejects(
    f.inside("entry 1", read),
    (e: LogStorageError) => e.code === "storage-read",
  );
  let missing = true;
  const lost = () => Promise.resolve(missing ? undefined : 1);
  await assert.rejects(f.inside("entry 2", lost), /does not have it/);
  // `reading`: absence is an answer; only a failure is a fault
  assert.equal(await f.reading("head 9", () => Promise.resolve(undefined)), undefined);
  await assert.rejects(
    f.inside("x", () => Promise.reject(new LogInputError("bad-x", "bad"))),
    LogInputError,
  );
  assert.equal(f.count, 2);
  await assert.rejects(f.check(), /Cannot read entry 2/); // the newest fault
  broken = false;
  missing = false;
  await assert.rejects(f.check(), /Cannot read entry 2/, "not re-read within the second");
  now = 1000;
  await f.check(); // both read again and answered: healthy
  // the classifier of a damaged SQLite file, through the causes that wrap it
  assert.ok(sqliteDamaged(new LogStorageError("storage-fault", "x", { cause: corrupt() })));
  assert.ok(sqliteDamaged(Object.assign(new Error("not a db"), { errcode: 26 })));
  assert.ok(!sqliteDamaged(Object.assign(new Error("busy"), { errcode: 5 })));
  assert.ok(!sqliteDamaged(new Error("database disk image is malformed"))); // no code: not guessed
});
