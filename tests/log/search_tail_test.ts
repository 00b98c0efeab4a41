// The lagging search index (log/sql/search_tail.ts): whatever the lag, the batches, the moves, the
// rolled-back transactions and the connection asking, a search and a check's lookup answer
// exactly what a plain model of the committed keys answers; a reopened store and a second
// connection agree; the remainder of a multi-row insert lands whole.
import assert from "node:assert/strict";
import fc from "fast-check";
import { openSqliteExecutor, type SqliteExecutor } from "../../log/sqlite/executor.ts";
import { SqlStreams, streamTables } from "../../log/sql/streams.ts";
import { bumpTailGen } from "../../log/sql/search_tail.ts";
import { insertRows } from "../../log/sql/queries.ts";

function open(path: string): SqliteExecutor {
  const x = openSqliteExecutor(path, { synchronous: "NORMAL" });
  x.run("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
  for (const sql of streamTables("")) x.run(sql);
  return x;
}

/** A key of the pool: kind byte k, then 8 or 16 bytes from `n`. */
function key(n: number): Uint8Array {
  const long = n % 5 === 0;
  const b = new Uint8Array(long ? 17 : 9);
  b[0] = 1 + (n % 6);
  new DataView(b.buffer).setUint32(1, n * 2654435761 >>> 0);
  if (long) b[16] = n & 255;
  return b;
}

/** Pool keys below this are checked keys (`StreamTx.keyed` looks them up). */
const CHECKED = 4;

/** The model: key number → committed entries under it, ascending. */
type Model = Map<number, number[]>;

function expected(m: Model, keys: number[], after: number, limit: number): number[] {
  const [first, ...rest] = keys;
  return (m.get(first) ?? [])
    .filter((i) => i > after && rest.every((k) => (m.get(k) ?? []).includes(i)))
    .slice(0, limit);
}

const batchArb = fc.record({
  // each entry: its keys (numbers of the pool), first ones checked, the rest plain
  entries: fc.array(
    fc.uniqueArray(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 4 }),
    {
      minLength: 0,
      maxLength: 6,
    },
  ),
  rollBack: fc.boolean(),
});

Deno.test("search tail: searches and lookups equal the model, over moves, rollbacks and connections", async () => {
  const dir = await Deno.makeTempDir();
  try {
    let run = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 3, 7),
        fc.array(batchArb, { minLength: 1, maxLength: 14 }),
        fc.array(
          fc.record({
            keys: fc.uniqueArray(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 3 }),
            after: fc.integer({ min: -1, max: 40 }),
            limit: fc.integer({ min: 1, max: 6 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        (lag, batches, queries) => {
          const path = `${dir}/s${run++}.sqlite`;
          const w = open(path), r = open(path);
          try {
            const writer = new SqlStreams(w, "", { rows: 4, lag });
            const reader = new SqlStreams(r, "", { rows: 4, lag });
            const model: Model = new Map();
            let next = 0;
            const check = (label: string, s: SqlStreams, x: SqliteExecutor) => {
              for (const q of queries) {
                const got = s.search(q.keys.map(key), q.after, q.limit);
                assert.deepEqual(got, expected(model, q.keys, q.after, q.limit), label);
              }
              // a check's lookup (inside a transaction, before the batch wrote anything)
              x.transaction(() => {
                const tx = s.tx();
                const ck = (q: { keys: number[] }) => q.keys[0] % CHECKED;
                for (const q of queries) {
                  assert.deepEqual(
                    tx.keyed(key(ck(q)), q.limit),
                    expected(model, [ck(q)], -1, q.limit),
                    `${label} keyed`,
                  );
                }
                // read at once, as a batch's checks do: the same first entries
                tx.prefetch!(queries.map((q) => key(ck(q))));
                for (const q of queries) {
                  assert.deepEqual(
                    tx.keyed(key(ck(q)), 1),
                    expected(model, [ck(q)], -1, 1),
                    `${label} prefetched`,
                  );
                }
              });
            };
            for (const b of batches) {
              let tx: ReturnType<SqlStreams["tx"]> | undefined;
              const mine: Model = new Map();
              try {
                w.transaction(() => {
                  tx = writer.tx();
                  for (const ks of b.entries) {
                    const idx = next++;
                    // the pool's keys 0-3 are what checks look up (as a (steward, id) key
                    // always is); the others only searches
                    const checked = ks.filter((k) => k < CHECKED),
                      plain = ks.filter((k) => k >= CHECKED);
                    tx.putKeys(idx, checked.map(key), plain.map(key));
                    // the batch's own keys answer its later lookups
                    for (const k of checked) assert.ok(tx.keyed(key(k), 64).includes(idx));
                    for (const k of ks) mine.set(k, [...(mine.get(k) ?? []), idx]);
                  }
                  tx.flush();
                  if (b.rollBack) throw new Error("rolled back");
                });
                tx!.committed();
                for (const [k, l] of mine) model.set(k, [...(model.get(k) ?? []), ...l]);
              } catch (e) {
                if ((e as Error).message !== "rolled back") throw e;
                next -= b.entries.length; // the indices are used again, as a sequencer would
              }
              check("writer", writer, w);
              check("reader", reader, r);
            }
            // held entries never pass the lag (lag 0: none held)
            const held = Number(w.all("SELECT count(DISTINCT idx) AS n FROM search_tail")[0].n);
            assert.ok(held <= lag, `${held} entries held, lag ${lag}`);
            // a new connection, and a generation bumped (a backfill's swap) under old ones
            const fresh = open(path);
            try {
              check("reopened", new SqlStreams(fresh, "", { rows: 4, lag }), fresh);
            } finally {
              fresh.close();
            }
            w.transaction(() => bumpTailGen(w, "", ""));
            check("reader after a swap", reader, r);
          } finally {
            w.close();
            r.close();
          }
        },
      ),
      { numRuns: 120 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("insertRows: every row lands, whatever the count and the statement's rows", async () => {
  const dir = await Deno.makeTempDir();
  const x = openSqliteExecutor(`${dir}/r.sqlite`, { synchronous: "NORMAL" });
  try {
    x.run("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c INTEGER)");
    let base = 0;
    for (const rows of [1, 2, 3, 8, 64]) {
      for (const count of [0, 1, 2, 5, 63, 64, 65, 130, 200]) {
        const args = [];
        for (let i = 0; i < count; i++) args.push(base + i, `v${base + i}`, i);
        const calls: number[] = [];
        const counting = {
          ...x,
          all: x.all.bind(x),
          transaction: x.transaction.bind(x),
          run: (sql: string, ...p: (string | number | null | Uint8Array)[]) => {
            calls.push(p.length / 3);
            return x.run(sql, ...p);
          },
        };
        const one = "INSERT INTO t (a, b, c) VALUES (?, ?, ?)";
        insertRows(
          counting,
          rows,
          3,
          `INSERT INTO t (a, b, c) VALUES ${"(?, ?, ?), ".repeat(rows - 1)}(?, ?, ?)`,
          one,
          args,
        );
        const n = Number(
          x.all("SELECT count(*) AS n FROM t WHERE a >= ? AND a < ?", base, base + count)[0].n,
        );
        assert.equal(n, count, `rows ${rows}, count ${count}`);
        assert.equal(calls.reduce((a, b) => a + b, 0), count);
        // the remainder in statements of halving sizes: at most log2(rows) + 1 of them
        const rest = calls.filter((c) => c < rows).length;
        assert.ok(rest <= Math.log2(Math.max(1, rows)) + 1, `${rest} calls for the rest`);
        base += count;
      }
    }
    assert.throws(
      () => insertRows(x, 4, 3, "x", "INSERT INTO t (a, b, c) VALUES (?, ?, ?)", [1, 2]),
      RangeError,
    );
  } finally {
    x.close();
    await Deno.remove(dir, { recursive: true });
  }
});
