// Dev tool (issue 29 tuning): the `bulk` figure of `deno task bench http` alone, beside raw
// verifies in the same run: `deno run -A bench/bulk_only.ts [MS]` (JC_BENCH_BULK_SIZE,
// JC_BENCH_BULK_CONNS as for bench http; JC_BENCH_SERVER_STDERR=FILE keeps the server's stderr).
import { LogClient } from "../client/mod.ts";
import { startService } from "../fixtures/service.ts";
import { rawWebCryptoVerifiesPerSecond } from "./suites/_limits.ts";
import { SigningPool } from "./suites/_pool.ts";
import { Conn } from "./suites/_conn.ts";
import { bulkLoop } from "./suites/_bulk_http.ts";

const MS = Number(Deno.args[0] ?? 6000);
const SIZE = Number(Deno.env.get("JC_BENCH_BULK_SIZE") ?? 256);
const CONNS = Number(Deno.env.get("JC_BENCH_BULK_CONNS") ?? 8);
const raw = await rawWebCryptoVerifiesPerSecond(2000);
const pool = await SigningPool.create(Math.ceil(raw * MS / 1000) + 2 * SIZE * CONNS, (e) => e);
const dataDir = await Deno.makeTempDir({ prefix: "jc-bench-bulk-" });
const svc = await startService({ DATA_DIR: dataDir });
const port = Number(new URL(svc.url).port);
const conns = await Promise.all(Array.from({ length: CONNS }, () => Conn.open(port)));
try {
  const bulk = await bulkLoop({
    url: svc.url,
    pid: svc.pid,
    conns,
    envelope: () => pool.take(),
    client: new LogClient(svc.url, svc.signer),
    raw,
    ms: MS,
    size: SIZE,
  });
  console.log(JSON.stringify({ raw, bulk }, null, 1));
  const stderrTo = Deno.env.get("JC_BENCH_SERVER_STDERR");
  if (stderrTo) Deno.writeTextFileSync(stderrTo, svc.stderr());
} finally {
  for (const c of conns) c.close();
  await svc.stop();
  await Deno.remove(dataDir, { recursive: true });
}
