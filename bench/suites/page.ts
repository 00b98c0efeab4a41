// Issue 13's bench: the verification page's bundle size (raw and gzip) and the time from navigation
// to verdict for a ~2 KB receipt in headless Chromium (`/?index=N`: fetch the entry, verify it in
// the page), beside the same receipt through the CLI in the same run (in-process `runCli`, and
// `deno task verify` as a process, which is what a person runs).
import { type CliIo, runCli } from "../../verify/cli.ts";
import { APP_JS, VERIFIER_HTML } from "../../web/mod.ts";
import { didSigner, seal } from "../../conformance/gen/build.ts";
import { CHROMIUM, launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";

const short = Deno.env.get("JC_BENCH_SHORT") === "1";

async function gzipSize(text: string): Promise<number> {
  const s = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(s).arrayBuffer()).byteLength;
}

/** A valid JCR-1 receipt of about 2 KB (many tools touched). */
function receipt2k(): Uint8Array {
  const signer = didSigner("bench-page");
  const tools = Array.from({ length: 24 }, (_, i) => ({
    tool_id: `iac:bench.tool.${i}`,
    joules_uj: 1000 + i,
    energy_provenance: "HwShunt",
  }));
  return seal({
    jc_receipt: "1",
    id: "rcpt-bench-2k",
    closed_at: "2026-11-30T12:00:00Z",
    input_hash: "ab".repeat(32),
    tier: "L3",
    joules_uj: tools.reduce((a, t) => a + t.joules_uj, 0) + 5,
    energy_provenance: "HwShunt",
    steward: signer.kid,
    tools_touched: tools,
    claims: [],
  }, signer);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function (): Promise<Record<string, unknown>> {
  const env = receipt2k();
  const out: Record<string, unknown> = {
    bundle_bytes: new TextEncoder().encode(APP_JS).length,
    bundle_gzip_bytes: await gzipSize(APP_JS),
    verifier_html_gzip_bytes: await gzipSize(VERIFIER_HTML),
    receipt_bytes: env.length,
  };
  const runs = short ? 2 : 10;
  // The CLI, in-process (the same verify/ code, no browser).
  const io: CliIo = {
    readFile: () => Promise.resolve(env),
    readStdin: () => Promise.resolve(env),
    out: () => {},
    err: () => {},
  };
  const inproc: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    if (await runCli(["--compact", "r.cose"], io) !== 0) {
      throw new Error("the bench receipt is invalid");
    }
    inproc.push(performance.now() - t0);
  }
  out.cli_in_process_ms_median = +median(inproc).toFixed(2);
  // The CLI as a person runs it: a process.
  const file = await Deno.makeTempFile({ suffix: ".cose" });
  await Deno.writeFile(file, env);
  const proc: number[] = [];
  for (let i = 0; i < Math.min(runs, 5); i++) {
    const t0 = performance.now();
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../verify/cli.ts", import.meta.url).pathname,
        "--compact",
        file,
      ],
      stdout: "null",
      stderr: "null",
    }).output();
    if (r.code !== 0) throw new Error(`deno task verify exited ${r.code}`);
    proc.push(performance.now() - t0);
  }
  await Deno.remove(file);
  out.cli_process_ms_median = +median(proc).toFixed(1);

  // The page: navigation to verdict for the logged receipt.
  const svc = await startService({ JC_STORE: "memory" });
  const browser = await launchChromium();
  try {
    const r = await fetch(`${svc.url}/v1/log/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: env as Uint8Array<ArrayBuffer>,
    });
    const { index } = await r.json();
    const page = await browser.newPage();
    const nav: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await page.goto(`${svc.url}/?index=${index}`);
      await page.waitForSelector("#result[data-verdict=valid]", { state: "attached" });
      nav.push(performance.now() - t0);
    }
    out.page_navigation_to_verdict_ms_median = +median(nav).toFixed(1);
    out.page_navigation_to_verdict_ms_min = +Math.min(...nav).toFixed(1);
    out.runs = runs;
    out.browser = CHROMIUM;
  } finally {
    await browser.close();
    await svc.stop();
  }
  return out;
}
