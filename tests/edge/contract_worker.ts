// Test-only Worker (bundled by tests/edge/contract_test.ts, never deployed): runs the log's shared
// storage-contract suite (log/storage_contract_tests.ts) INSIDE workerd against the Durable Object
// backend (log/durable/) on a real SQLite-backed Durable Object, plus the durable-only cases
// (rollback of a failing transaction, schema refusal, reopen, a whole log over it with fsck), and
// reports every case's outcome back as JSON. The suite registers cases with `Deno.test`; here a
// minimal registry stands in for it, run one case at a time like `deno test` does.
import { DurableObject } from "cloudflare:workers";
import assert from "node:assert/strict";
import { runStorageContractTests } from "../../log/storage_contract_tests.ts";
import {
  DURABLE_SCHEMA_VERSION,
  type DurableSqlStorage,
  openDurableStorage,
} from "../../log/durable/mod.ts";
import { blake3Hasher, fsckLog, LogStorageError, openLog } from "../../log/mod.ts";
import {
  coseSign1Es256,
  decodeCbor,
  didKeyFromP256PublicKey,
  encodeCbor,
  envelopeContentId,
  es256Backend,
  es256Malleate,
  es256Sign,
  es256Verify,
  es256VerifyPure,
  p256PublicKey,
} from "../../verify/mod.ts";

type Case = { name: string; fn: () => Promise<void> | void };
interface CaseResult {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

let prefixes = 0;
const fresh = () => `c${++prefixes}_`;

/** The durable backend's own cases, beyond the shared contract. */
function durableCases(storage: DurableSqlStorage): Case[] {
  const enc = (s: string) => new TextEncoder().encode(s);
  return [
    {
      name: "durable: a commit that throws inside its transaction leaves nothing behind",
      async fn() {
        const prefix = fresh();
        let fail = false;
        const s = openDurableStorage(storage, {
          prefix,
          beforeCommitEnd: () => {
            if (fail) throw new Error("injected failure after every row was written");
          },
        });
        const log = await openLog(s, { secretKey: new Uint8Array(32).fill(9), batchAgeMs: 0 });
        await log.append(enc("kept"));
        const before = await s.latestHead();
        fail = true;
        await assert.rejects(log.append(enc("lost")));
        fail = false;
        const after = await s.latestHead();
        assert.equal(after?.size, before?.size);
        assert.equal(await s.entry(1), undefined);
        assert.deepEqual(await s.leafCandidates(new Uint8Array(32)), []);
        // A fresh log over the same tables proves itself (recovery) and the checker agrees.
        const again = await openLog(openDurableStorage(storage, { prefix }), {
          secretKey: new Uint8Array(32).fill(9),
        });
        const report = await fsckLog(openDurableStorage(storage, { prefix }), again.publicKey());
        assert.ok(report.ok, report.problems.join("; "));
        assert.equal(report.entries, 1);
        assert.equal((await again.append(enc("next"))).index, 1);
      },
    },
    {
      name: "durable: a schema-1 store (before the SHA-256 view) is migrated on open",
      async fn() {
        const secretKey = new Uint8Array(32).fill(9);
        const src = fresh();
        const log = await openLog(openDurableStorage(storage, { prefix: src }), {
          secretKey,
          batchAgeMs: 0,
          batchMax: 7,
        });
        await Promise.all(Array.from({ length: 40 }, (_, i) => log.append(enc(`m${i}`))));
        const head = await log.latestHead();
        // The tables as the schema-1 build created them (heads without sha_root), its rows.
        const p = fresh();
        const sql = storage.sql;
        sql.exec(`CREATE TABLE ${p}meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`);
        sql.exec(
          `CREATE TABLE ${p}entries (idx INTEGER PRIMARY KEY, leaf BLOB NOT NULL UNIQUE,` +
            ` bytes BLOB NOT NULL)`,
        );
        sql.exec(
          `CREATE TABLE ${p}tiles (level INTEGER NOT NULL, idx INTEGER NOT NULL,` +
            ` hashes BLOB NOT NULL, PRIMARY KEY (level, idx)) WITHOUT ROWID`,
        );
        sql.exec(
          `CREATE TABLE ${p}heads (size INTEGER PRIMARY KEY, root BLOB NOT NULL,` +
            ` ts INTEGER NOT NULL, sig BLOB NOT NULL)`,
        );
        sql.exec(`INSERT INTO ${p}meta (k, v) VALUES ('schema', '1')`);
        // its rows, from the one SQL store's (entries with their leaf hash, tiles by (level, idx);
        // 40 entries: no full group of 16 tiles, so every tile is a row)
        // (the one store keeps a batch's entries as one row: read them through it)
        const rows = await openDurableStorage(storage, { prefix: src }).entries(0, 40);
        rows.forEach((bytes, idx) =>
          sql.exec(`INSERT INTO ${p}entries VALUES (?, ?, ?)`, idx, blake3Hasher.leaf(bytes), bytes)
        );
        sql.exec(
          `INSERT INTO ${p}tiles SELECT id / ${2 ** 48}, id % ${2 ** 48}, hashes FROM ${src}tiles`,
        );
        sql.exec(`INSERT INTO ${p}heads SELECT size, root, ts, sig FROM ${src}heads`);
        const migrated = await openLog(openDurableStorage(storage, { prefix: p }), { secretKey });
        assert.deepEqual(await migrated.latestHead(), head);
        assert.equal(
          sql.exec<{ v: string }>(`SELECT v FROM ${p}meta WHERE k = 'schema'`).one().v,
          String(DURABLE_SCHEMA_VERSION),
        );
        const want = await openDurableStorage(storage, { prefix: src }).heads(0, 100);
        const got = await openDurableStorage(storage, { prefix: p }).heads(0, 100);
        assert.equal(got.length, want.length);
        got.forEach((h, k) => assert.deepEqual(h.sha256Root, want[k].sha256Root, `head ${h.size}`));
        assert.equal(await migrated.checkpoint("sha256"), await log.checkpoint("sha256"));
        const report = await fsckLog(openDurableStorage(storage, { prefix: p }), log.publicKey());
        assert.ok(report.ok, report.problems.join("; "));
        assert.equal((await migrated.append(enc("after"))).index, 40);
      },
    },
    {
      name: "durable: a store written by another schema version is refused",
      fn() {
        const prefix = fresh();
        openDurableStorage(storage, { prefix });
        storage.sql.exec(`UPDATE ${prefix}meta SET v = ? WHERE k = 'schema'`, "999");
        assert.throws(
          () => openDurableStorage(storage, { prefix }),
          (e: unknown) =>
            e instanceof LogStorageError && e.code === "storage-schema" &&
            e.message.includes(String(DURABLE_SCHEMA_VERSION)),
        );
      },
    },
    {
      name: "durable: a bad table prefix is refused before any SQL runs",
      fn() {
        assert.throws(() => openDurableStorage(storage, { prefix: "x; DROP TABLE" }), RangeError);
      },
    },
    {
      name: "durable: a log of 300 entries reopens with every proof intact",
      async fn() {
        const prefix = fresh();
        const key = new Uint8Array(32).fill(11);
        const log = await openLog(openDurableStorage(storage, { prefix }), { secretKey: key });
        const rs = await Promise.all(
          Array.from({ length: 300 }, (_, i) => log.append(enc(`entry ${i}`))),
        );
        assert.deepEqual(rs.map((r) => r.index).sort((a, b) => a - b), [...Array(300).keys()]);
        const reopened = await openLog(openDurableStorage(storage, { prefix }), { secretKey: key });
        const head = await reopened.latestHead();
        assert.equal(head.size, 300);
        for (const i of [0, 1, 15, 16, 17, 255, 256, 299]) {
          const p = await reopened.inclusionProof(i, 300);
          assert.ok(p.length > 0);
        }
        assert.deepEqual(await reopened.entry(123), enc("entry 123"));
        const report = await fsckLog(openDurableStorage(storage, { prefix }), reopened.publicKey());
        assert.ok(report.ok, report.problems.join("; "));
        assert.equal(report.entries, 300);
      },
    },
    {
      name: "durable: ES256 twins (r, n − s; tag 18) are one entry; the content index is unique",
      async fn() {
        const prefix = fresh();
        const key = new Uint8Array(32).fill(12);
        const sk = new Uint8Array(32).fill(7);
        const did = didKeyFromP256PublicKey(p256PublicKey(sk));
        const env = coseSign1Es256(encodeCbor({ n: 1, steward: did }), sk, did);
        const twin = malleate(env);
        const log = await openLog(openDurableStorage(storage, { prefix }), { secretKey: key });
        const rs = await Promise.all(
          [env, twin, Uint8Array.of(0xd2, ...env)].map((e) => log.append(e)),
        );
        assert.deepEqual(rs.map((r) => [r.index, r.created]), [[0, true], [0, false], [0, false]]);
        const again = await openLog(openDurableStorage(storage, { prefix }), { secretKey: key });
        const r = await again.append(Uint8Array.of(0xd2, ...twin));
        assert.deepEqual([r.index, r.created, (await again.latestHead()).size], [0, false, 1]);
        const store = openDurableStorage(storage, { prefix });
        const head = (await store.latestHead())!;
        const id = envelopeContentId(env)!;
        assert.deepEqual(await store.contentIndex!([id]), [0]);
        await assert.rejects(() =>
          store.commitBatch({
            entries: [{
              index: 1,
              leafHash: new Uint8Array(32).fill(1),
              bytes: twin,
              contentId: id,
            }],
            tiles: [],
            sha256Tiles: [],
            head: { ...head, size: 2 },
          })
        );
        assert.equal((await store.latestHead())!.size, 1);
        // a store written before the index (no table, no reach; a row per entry, as then) is
        // backfilled when a log opens it
        await again.close();
        const kept = await store.entries(0, 1);
        storage.sql.exec(`DELETE FROM ${prefix}entry_rounds`);
        kept.forEach((b, i) =>
          storage.sql.exec(`INSERT INTO ${prefix}entries (idx, bytes) VALUES (?, ?)`, i, b)
        );
        storage.sql.exec(`DROP TABLE ${prefix}content_ids`);
        storage.sql.exec(`DELETE FROM ${prefix}meta WHERE k = 'content_ids_upto'`);
        const old = openDurableStorage(storage, { prefix });
        assert.equal(await old.contentIndexReach!(), 0);
        const upgraded = await openLog(old, { secretKey: key });
        assert.equal(await old.contentIndexReach!(), "all");
        const r2 = await upgraded.append(twin);
        assert.deepEqual([r2.index, r2.created], [0, false]);
      },
    },
    {
      name: "ES256 in workerd: WebCrypto and the pure path agree (valid, twin, tampered, bad key)",
      async fn() {
        const sk = new Uint8Array(32).fill(3);
        const pub = p256PublicKey(sk);
        for (let i = 0; i < 24; i++) {
          const msg = enc(`message ${i}`);
          const sig = es256Sign(msg, sk);
          const bad = sig.slice();
          bad[i] ^= 1;
          const cases: [Uint8Array, Uint8Array, boolean][] = [
            [sig, msg, true],
            [es256Malleate(sig), msg, true],
            [bad, msg, false],
            [sig, enc(`message ${i + 1}`), false],
          ];
          for (const [sg, m, want] of cases) {
            assert.equal(await es256Verify(sg, m, pub), want);
            assert.equal(es256VerifyPure(sg, m, pub), want);
          }
        }
        assert.equal(es256Backend(), "webcrypto");
        const offCurve = Uint8Array.of(2, ...new Uint8Array(31), 5); // x = 5: not on P-256
        assert.equal(await es256Verify(es256Sign(enc("x"), sk), enc("x"), offCurve), false);
      },
    },
  ];
}

/** The (r, n − s) twin of an untagged ES256 envelope. */
function malleate(env: Uint8Array): Uint8Array {
  const [prot, , payload, sig] = decodeCbor(env) as Uint8Array[];
  return encodeCbor([prot, new Map(), payload, es256Malleate(sig)]);
}

async function runCases(cases: Case[]): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const c of cases) {
    const t0 = performance.now();
    try {
      await c.fn();
      out.push({ name: c.name, ok: true, ms: performance.now() - t0 });
    } catch (err) {
      const e = err as Error;
      out.push({
        name: c.name,
        ok: false,
        ms: performance.now() - t0,
        error: `${e?.name}: ${e?.message}\n${e?.stack ?? ""}`.slice(0, 4000),
      });
    }
  }
  return out;
}

/** The Durable Object the suite runs in (bound as HARNESS by the test). */
export class ContractHarness extends DurableObject {
  readonly #storage: DurableSqlStorage;

  constructor(ctx: { storage: DurableSqlStorage }, env: unknown) {
    super(ctx, env);
    this.#storage = ctx.storage;
  }

  async run(): Promise<CaseResult[]> {
    const cases: Case[] = [];
    // The shared suite registers with Deno.test(name, fn); collect instead of running at once.
    const g = globalThis as unknown as { Deno?: unknown };
    const saved = g.Deno;
    g.Deno = {
      test: (name: string, fn: () => Promise<void>) => cases.push({ name, fn }),
    };
    try {
      runStorageContractTests(
        "durable-object",
        () => Promise.resolve({ storage: openDurableStorage(this.#storage, { prefix: fresh() }) }),
      );
    } finally {
      g.Deno = saved;
    }
    if (cases.length === 0) throw new Error("Cannot run the contract suite: it registered no case");
    return await runCases([...cases, ...durableCases(this.#storage)]);
  }
}

export default {
  async fetch(
    req: Request,
    env: { HARNESS: { idFromName(n: string): unknown; get(id: unknown): ContractHarness } },
  ) {
    if (new URL(req.url).pathname !== "/run") return new Response("not found", { status: 404 });
    const stub = env.HARNESS.get(env.HARNESS.idFromName(`run-${Date.now()}-${Math.random()}`));
    return Response.json(await stub.run());
  },
};
