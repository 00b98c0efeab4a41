// Runs in Chromium (tests/net/browser_test.ts bundles it for the browser): net/ against the
// hostile server from a page on the same origin, reporting each case's outcome to POST /__report.
import { BODY_LIMITS, isNetError, request } from "../../net/mod.ts";

const FAST = { connectMs: 1000, totalMs: 2000 };
const CASES: [string, string, keyof typeof BODY_LIMITS][] = [
  ["silent", "/silent/v1/log/tree-head", "checkpoint"],
  ["stall-headers", "/stall-headers/v1/log/tree-head", "checkpoint"],
  ["endless", "/endless/v1/log/tree-head", "checkpoint"],
  ["big-checkpoint", "/big-checkpoint/v1/log/tree-head", "checkpoint"],
  ["big-declared", "/big-declared/v1/log/tree-head", "checkpoint"],
  ["long-proof", "/long-proof/v1/log/proof/consistency?first=3&second=5", "proof"],
  ["redirect-loop", "/redirect-loop/v1/log/tree-head", "checkpoint"],
  ["bad-utf8", "/bad-utf8/x", "json"],
  ["bad-json", "/bad-json/x", "json"],
  ["good", "/long-proof/v1/log/tree-head", "checkpoint"],
];

async function run(): Promise<Record<string, { code: string; ms: number }>> {
  const out: Record<string, { code: string; ms: number }> = {};
  for (const [name, path, kind] of CASES) {
    const t0 = performance.now();
    let code = "ok";
    try {
      const res = await request(new URL(path, location.href), { ...FAST, kind });
      res.json();
    } catch (e) {
      code = isNetError(e) ? e.code : `not a NetError: ${e}`;
    }
    out[name] = { code, ms: Math.round(performance.now() - t0) };
  }
  out.environment = {
    code: typeof (globalThis as { Deno?: unknown }).Deno === "undefined" ? "browser" : "deno",
    ms: 0,
  };
  return out;
}

run().then(
  (r) => fetch("/__report", { method: "POST", body: JSON.stringify(r) }),
  (e) => fetch("/__report", { method: "POST", body: JSON.stringify({ error: String(e) }) }),
);
