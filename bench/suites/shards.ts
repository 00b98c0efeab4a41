// Shards (issue 12, docs/SHARDS.md): what the prefix dispatcher costs an unprefixed request, and
// how long a rotation holds appends. In process, memory store (no HTTP, no disk: the figures are
// the dispatcher's and the rotation's own work):
//  - GET /v1/log/tree-head through the root app alone and through the dispatcher then the root
//    app, in alternating rounds (requests/s each, and their ratio);
//  - the dispatcher's test alone (ns per unprefixed URL), beside `new URL()` of the same URL
//    (the machine's limit for anything that looks at a request's path: every router parses it);
//  - rotations of an 8-shard SQLite set in a temporary data directory (ms each: create the next
//    shard's store and key, drain, write the state), with appends running meanwhile.
import { testApp } from "../../fixtures/app.ts";
import { dispatchToShard, shardTarget } from "../../api/http/shard_dispatch.ts";
import { sqliteShardFiles } from "../../api/deno/shard_files.ts";
import { ShardSet } from "../../api/services/shard_set.ts";
import { count } from "./_short.ts";

const URL_ROOT = "http://127.0.0.1:8080/v1/log/tree-head";

async function rate(n: number, f: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await (await f()).arrayBuffer();
  return n / ((performance.now() - t0) / 1000);
}

export default async function (): Promise<Record<string, unknown>> {
  const { app } = await testApp();
  const plain = () => Promise.resolve(app.fetch(new Request(URL_ROOT)));
  const dispatched = async () => {
    const req = new Request(URL_ROOT);
    return await dispatchToShard(req, () => undefined) ?? await app.fetch(req);
  };
  const n = count(20_000, 200);
  await rate(n / 10, plain);
  await rate(n / 10, dispatched);
  const a: number[] = [], b: number[] = [];
  for (let round = 0; round < 5; round++) {
    a.push(await rate(n, plain));
    b.push(await rate(n, dispatched));
  }
  const median = (x: number[]) => x.slice().sort((p, q) => p - q)[Math.floor(x.length / 2)];
  const m = count(2_000_000, 10_000);
  let hits = 0;
  let t0 = performance.now();
  for (let i = 0; i < m; i++) if (shardTarget(URL_ROOT) !== undefined) hits++;
  const targetNs = (performance.now() - t0) * 1e6 / m;
  t0 = performance.now();
  for (let i = 0; i < m; i++) hits += new URL(URL_ROOT).pathname.length > 0 ? 0 : 1;
  const urlNs = (performance.now() - t0) * 1e6 / m;

  const dir = await Deno.makeTempDir({ prefix: "jc-bench-shards-" });
  const times: number[] = [];
  try {
    const set = await ShardSet.open({
      files: sqliteShardFiles(dir, `${dir}/log-key.hex`, { batchAgeMs: 1 }),
      operatorKey: () => new Uint8Array(32).fill(3),
      logName: "bench.example/log",
    });
    try {
      let stop = false;
      const bytes = (i: number) => new TextEncoder().encode(`bench entry ${i}`);
      const appender = (async () => {
        for (let i = 0; !stop; i++) await set.activeLog.append(bytes(i));
      })();
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 20));
        const t = performance.now();
        await set.rotate("bench");
        times.push(performance.now() - t);
      }
      stop = true;
      await appender;
    } finally {
      await set.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return {
    tree_head_per_s_root_app: Math.round(median(a)),
    tree_head_per_s_with_dispatcher: Math.round(median(b)),
    dispatcher_ratio: Number((median(b) / median(a)).toFixed(3)),
    dispatcher_test_ns: Number(targetNs.toFixed(1)),
    machine_limit_new_url_ns: Number(urlNs.toFixed(1)),
    rotation_ms_median: Number(median(times).toFixed(1)),
    rotation_ms_max: Number(Math.max(...times).toFixed(1)),
    rotations: times.length,
    hits,
  };
}
