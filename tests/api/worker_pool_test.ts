// api/services/pool/worker_pool.ts, each property once, on real Workers (tests/api/_pool_worker.ts):
// the bounded queue, the time limit per job (queued: dropped; running: its Worker replaced), a
// dead Worker replaced (thread failed, unexpected answer, silent for stallMs) with its jobs
// retried or failed, a failed init, batching of one event-loop turn, least-loaded dispatch and
// the metrics hooks. The users' own tests (verify_pool_test, worker_messages_test,
// tests/rdf/units_test, tests/rdf/hostile_test) check the pool as they use it.
import assert from "node:assert/strict";
import {
  JobError,
  JobLostError,
  JobQueueFullError,
  JobTimeoutError,
  type WorkerEvent,
  WorkerPool,
  type WorkerPoolOptions,
  type WorkerProtocol,
  WorkerStartError,
} from "../../api/services/pool/mod.ts";

type Job = Record<string, unknown>;

function protocol(init: { fail?: string } = {}): WorkerProtocol<Job, Job> {
  return {
    url: new URL("./_pool_worker.ts", import.meta.url),
    init: { init },
    request: (ids, jobs) => ({ msg: { ids, jobs } }),
    read(data): WorkerEvent<Job> {
      const m = data as Record<string, unknown>;
      if ("unexpected" in m) return { unexpected: String(m.unexpected) };
      if ("ready" in m || "failed" in m) return m as WorkerEvent<Job>;
      const results = (m.results as ({ value: Job } | { error: string })[]).map((r) =>
        "value" in r ? r : { error: new JobError("Error", r.error) }
      );
      return { ids: m.ids as number[], results };
    },
  };
}

async function withPool(
  o: WorkerPoolOptions & { init?: { fail?: string } },
  body: (pool: WorkerPool<Job, Job>, replaced: string[]) => Promise<void>,
): Promise<void> {
  const replaced: string[] = [];
  const pool = new WorkerPool(protocol(o.init), {
    ...o,
    onReplaced: (why) => replaced.push(why.message),
  });
  try {
    await body(pool, replaced);
  } finally {
    pool.close();
  }
}

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e) => e as Error);

Deno.test("WorkerPool: answers jobs; a job error comes back as its error", async () => {
  await withPool({}, async (pool) => {
    await pool.ready();
    assert.deepEqual(await pool.run({ echo: 1 }), { echo: 1, batch: 1 });
    const e = await failure(pool.run({ fail: "no such thing" }));
    assert.ok(e instanceof JobError && e.message === "no such thing", String(e));
    assert.equal(pool.starts, 1);
    assert.equal(pool.load, 0);
  });
});

Deno.test("WorkerPool: the queue is bounded per Worker; force passes it", async () => {
  await withPool({ maxQueued: 2 }, async (pool) => {
    await pool.ready();
    const a = pool.run({ spin: 300 });
    const b = pool.run({ echo: "b" });
    const e = await failure(pool.run({ echo: "c" }));
    assert.ok(e instanceof JobQueueFullError && e.queued === 2, String(e));
    const forced = pool.run({ echo: "d" }, { force: true });
    assert.equal(pool.load, 3);
    await Promise.all([a, b, forced]);
    assert.equal(pool.starts, 1);
  });
});

Deno.test("WorkerPool: a job queued past its limit is dropped, the Worker kept", async () => {
  await withPool({}, async (pool, replaced) => {
    await pool.ready();
    const running = pool.run({ spin: 600 }, { timeoutMs: 5_000 });
    const e = await failure(pool.run({ echo: 1 }, { timeoutMs: 100 }));
    assert.ok(e instanceof JobTimeoutError && !e.started && e.ms === 100, String(e));
    await running;
    assert.equal(pool.starts, 1);
    assert.deepEqual(replaced, []);
  });
});

Deno.test("WorkerPool: a job running past its limit ends its Worker; a successor runs the queue", async () => {
  await withPool({}, async (pool, replaced) => {
    await pool.ready();
    const slow = failure(pool.run({ spin: 3_000 }, { timeoutMs: 200 }));
    const next = pool.run({ echo: "after" }, { timeoutMs: 20_000 });
    const e = await slow;
    assert.ok(e instanceof JobTimeoutError && e.started, String(e));
    assert.equal(pool.starts, 2);
    assert.equal(pool.replaced, 1);
    assert.match(replaced[0], /time limit of 200 ms/);
    assert.deepEqual(await next, { echo: "after", batch: 1 });
  });
});

Deno.test("WorkerPool: a failed thread or an unexpected answer replaces the Worker; jobs fail unless retried", async () => {
  await withPool({}, async (pool, replaced) => {
    await pool.ready();
    const e = await failure(pool.run({ crash: true }));
    assert.ok(e instanceof JobLostError, String(e));
    assert.match(replaced[0], /it failed in its worker/);
    const u = await failure(pool.run({ refuse: true }));
    assert.ok(u instanceof JobLostError && /refused a message/.test(u.message), String(u));
    assert.equal(pool.replaced, 2);
    assert.deepEqual(await pool.run({ echo: 2 }), { echo: 2, batch: 1 });
  });
  // With retry, the jobs in flight on a Worker that dies are sent again (once).
  await withPool({ size: 2, concurrency: Infinity, retry: true }, async (pool) => {
    await pool.ready();
    const echoes = [pool.run({ echo: 1 }), pool.run({ echo: 2 })];
    pool.postRaw(0, { ids: [0], jobs: [{ crash: true }] });
    pool.postRaw(1, { ids: [0], jobs: [{ crash: true }] });
    assert.deepEqual((await Promise.all(echoes)).map((v) => v.echo), [1, 2]);
  });
});

Deno.test("WorkerPool: a Worker silent for stallMs with jobs in flight is replaced, its jobs retried", async () => {
  await withPool(
    { size: 2, concurrency: Infinity, retry: true, stallMs: 500 },
    async (pool, replaced) => {
      await pool.ready();
      pool.terminateWorker(0); // no error event reaches the pool
      const jobs = [pool.run({ echo: 1 }), pool.run({ echo: 2 }), pool.run({ echo: 3 })];
      assert.deepEqual((await Promise.all(jobs)).map((v) => v.echo), [1, 2, 3]);
      assert.equal(pool.replaced, 1);
      assert.match(replaced[0], /answered nothing for 500 ms/);
      // A job that hangs on every Worker fails after its one retry.
      const e = await failure(pool.run({ hang: true }));
      assert.ok(e instanceof JobLostError, String(e));
    },
  );
});

Deno.test("WorkerPool: a failed init fails the start and its jobs; the next job starts a fresh Worker", async () => {
  await withPool({ init: { fail: "no key" } }, async (pool, replaced) => {
    const e = await failure(pool.ready());
    assert.ok(e instanceof WorkerStartError && e.reason === "no key", String(e));
    const j = await failure(pool.run({ echo: 1 }));
    assert.ok(j instanceof WorkerStartError, String(j));
    assert.equal(pool.starts, 2);
    assert.deepEqual(replaced, []);
  });
});

Deno.test("WorkerPool: batching sends one turn's jobs in one message; dispatch goes to the least loaded", async () => {
  await withPool({ size: 2, concurrency: Infinity, batch: true }, async (pool) => {
    await pool.ready();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.run({ echo: i })));
    assert.deepEqual(answers.map((a) => a.batch), Array(10).fill(5));
    assert.equal(pool.inFlight, 0);
  });
  await withPool({ size: 2 }, async (pool) => {
    await pool.ready();
    const t0 = performance.now();
    await Promise.all([pool.run({ spin: 400 }), pool.run({ spin: 400 })]);
    assert.ok(performance.now() - t0 < 780, "two Workers ran the two jobs at once");
  });
});

Deno.test("WorkerPool: batchMax caps the jobs of one message; the rest go in the next ones", async () => {
  // issue 29: one turn's 10 jobs to one Worker in messages of at most 4 (4, 4, 2), all answered
  await withPool({ size: 1, concurrency: Infinity, batch: true, batchMax: 4 }, async (pool) => {
    await pool.ready();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.run({ echo: i })));
    assert.deepEqual(answers.map((a) => a.echo), Array.from({ length: 10 }, (_, i) => i));
    assert.deepEqual(answers.map((a) => a.batch), [4, 4, 4, 4, 4, 4, 4, 4, 2, 2]);
    assert.equal(pool.inFlight, 0);
  });
});

Deno.test("WorkerPool: a closed pool refuses; close fails what was queued", async () => {
  const pool = new WorkerPool(protocol(), {});
  await pool.ready();
  const queued = failure(pool.run({ hang: true }));
  pool.close();
  assert.ok((await queued) instanceof JobLostError);
  assert.ok((await failure(pool.run({ echo: 1 }))) instanceof JobLostError);
  assert.throws(() => new WorkerPool(protocol(), { size: 0 }), /size must be >= 1/);
});
