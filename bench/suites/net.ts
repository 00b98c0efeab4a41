// What net/ costs (issue 18): requests per second through `request()` (deadline timers, manual
// redirects, budgeted streaming read, strict UTF-8 + JSON) beside the machine's own limit, raw
// `fetch` + `res.json()` against the same 127.0.0.1 server in the same run; and how fast a hostile
// endless body is cut (time from request to net-body-too-large at the 64 KiB checkpoint budget).
import { NetError, request } from "../../net/mod.ts";

const SHORT = Deno.env.get("BENCH_SHORT") === "1";

async function perSecond(ms: number, f: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    await f();
    n++;
  }
  return Math.round(n / ((performance.now() - t0) / 1000));
}

export default async function (): Promise<Record<string, unknown>> {
  const head = JSON.stringify({
    size: 5,
    root: "ab".repeat(32),
    timestamp: 1,
    signature: "cd".repeat(64),
  });
  const chunk = new TextEncoder().encode("a".repeat(65_536));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (new URL(req.url).pathname === "/endless") {
      return new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) }));
    }
    return new Response(head, { headers: { "content-type": "application/json" } });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const ms = SHORT ? 1000 : 3000;
  try {
    const raw = await perSecond(ms, async () => await (await fetch(`${base}/`)).json());
    const net = await perSecond(
      ms,
      async () => (await request(`${base}/`, { kind: "checkpoint" })).json(),
    );
    const cuts: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await request(`${base}/endless`, { kind: "checkpoint" }).catch((e) => {
        if (!(e instanceof NetError) || e.code !== "net-body-too-large") throw e;
      });
      cuts.push(performance.now() - t0);
    }
    cuts.sort((a, b) => a - b);
    return {
      small_json_get_per_s: {
        net_request: net,
        raw_fetch_limit: raw,
        ratio: Math.round((net / raw) * 100) / 100,
      },
      endless_body_cut_ms: {
        p50: Math.round(cuts[10] * 10) / 10,
        max: Math.round(cuts[19] * 10) / 10,
        budget_bytes: 65_536,
      },
      note:
        "one connection at a time over 127.0.0.1, same server, same run; a shared 2-core machine",
    };
  } finally {
    await server.shutdown();
  }
}
