// A Worker for tests/api/worker_pool_test.ts: its own small protocol (not one of the service's),
// so the pool is tested apart from its users. `{init: {fail?}}` is answered ready or failed; a
// batch `{ids, jobs}` is answered `{ids, results}`, each job in turn: `{echo}` (answered with the
// batch's size), `{spin: ms}` (busy for that long, uninterruptible), `{hang: true}` (never
// answered), `{crash: true}` (the thread fails), `{fail: message}` (a job error), `{refuse: true}`
// (the whole message answered as unexpected).
/// <reference lib="deno.worker" />

type Job =
  | { echo: unknown }
  | { spin: number }
  | { hang: true }
  | { crash: true }
  | { fail: string }
  | { refuse: true };

self.onmessage = (
  ev: MessageEvent<{ init: { fail?: string } } | { ids: number[]; jobs: Job[] }>,
) => {
  const m = ev.data;
  if ("init" in m) {
    return self.postMessage(m.init.fail ? { failed: m.init.fail } : { ready: true });
  }
  const results: unknown[] = [];
  for (const j of m.jobs) {
    if ("hang" in j) return;
    if ("refuse" in j) return self.postMessage({ unexpected: "worker-message-unexpected" });
    if ("crash" in j) {
      setTimeout(() => {
        throw new Error("drill: crash");
      });
      return;
    }
    if ("spin" in j) {
      const t = performance.now();
      while (performance.now() - t < j.spin) { /* busy */ }
      results.push({ value: { spun: j.spin } });
    } else if ("fail" in j) results.push({ error: j.fail });
    else results.push({ value: { echo: j.echo, batch: m.jobs.length } });
  }
  self.postMessage({ ids: m.ids, results });
};
