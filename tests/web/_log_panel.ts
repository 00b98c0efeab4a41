/// <reference lib="dom" />
// The verification page's log panel, for the tests that drive it (page_log_test, page_shards_test):
// append a receipt to a service (or a shard's base URL), and verify one on the page reading the
// panel's outcome attributes once it has settled.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "playwright-core";

/** Appends `env` at `base` (a service or a shard's base URL); its index. */
export async function append(base: string, env: Uint8Array): Promise<number> {
  const r = await fetch(`${base}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: env as Uint8Array<ArrayBuffer>,
  });
  const j = await r.json();
  assert.ok(r.status === 201 || r.status === 200, `append ${r.status} ${JSON.stringify(j)}`);
  return j.index;
}

/**
 * Drops `env` on the page and answers the verdict, the panel's `data-inclusion`, each of `extra`
 * (`data-<name>` of the panel, e.g. "consistency", "quorum", "shard") and whether a warning shows.
 */
export async function verifyOnPage(
  page: Page,
  env: Uint8Array,
  extra: string[],
): Promise<Record<string, string | null>> {
  const attrs = ["inclusion", ...extra];
  await page.evaluate((names) => {
    document.getElementById("result")!.removeAttribute("data-verdict");
    for (const a of names) document.getElementById("log-panel")!.removeAttribute(`data-${a}`);
  }, attrs);
  await page.setInputFiles("#file", {
    name: "r.cose",
    mimeType: "application/cose",
    buffer: Buffer.from(env),
  });
  await page.waitForSelector("#log-panel[data-inclusion]", { state: "attached" });
  return await page.evaluate((names) => {
    const p = document.getElementById("log-panel")!;
    const out: Record<string, string | null> = {
      verdict: document.getElementById("result")!.getAttribute("data-verdict"),
    };
    for (const a of names) out[a] = p.getAttribute(`data-${a}`);
    out.warning = p.querySelector("[data-warning]") ? "shown" : null;
    return out;
  }, attrs);
}
