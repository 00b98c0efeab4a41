/// <reference lib="dom" />
// Issue 13: every positive and negative conformance vector, chosen through the page's real file
// input in Chromium, gets the same verdict and the same per-step statuses and codes as the CLI
// (`deno task verify --config operator-config.json`), vector by vector; the drop path and the paste
// path on a sample; an input that is no envelope is "unusable" (the CLI's exit 2).
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { type CliIo, runCli } from "../../verify/cli.ts";
import { fromHex } from "../../verify/mod.ts";
import { launchChromium } from "../../fixtures/browser.ts";
import { ROOT, startService } from "../../fixtures/service.ts";

interface Vector {
  name: string;
  cose_sign1_hex?: string;
  envelope?: string;
}

async function vectors(): Promise<Vector[]> {
  const out: Vector[] = [];
  for (const f of ["jcr1", "siblings", "negative", "meter-reading", "outcomes"]) {
    const doc = JSON.parse(await Deno.readTextFile(`${ROOT}conformance/vectors/${f}.json`));
    out.push(...doc.vectors);
  }
  return out;
}

function hexOf(v: Vector): string {
  const h = v.cose_sign1_hex ?? v.envelope;
  if (typeof h !== "string") throw new Error(`vector ${v.name} has no envelope hex`);
  return h;
}

const CONFIG = `${ROOT}conformance/vectors/operator-config.json`;

/** The CLI's verdict and steps for one envelope, in-process. */
async function cliSays(
  envelope: Uint8Array,
): Promise<{ verdict: string; verdictClass?: string; steps: string[] }> {
  let out = "";
  const io: CliIo = {
    readFile: (p) => p === "input" ? Promise.resolve(envelope) : Deno.readFile(p),
    readStdin: () => Promise.resolve(envelope),
    out: (t) => (out += t),
    err: () => {},
  };
  const code = await runCli(["--config", CONFIG, "--compact", "input"], io);
  if (code === 2) return { verdict: "unusable", steps: [] };
  const r = JSON.parse(out) as {
    verdict: string;
    steps: { step: string; status: string; code?: string }[];
  };
  return {
    verdict: code === 0 ? "valid" : "invalid",
    // JCR-1 §6, SPEC §6: the report's class (valid, joule-unverified, alert, invalid)
    verdictClass: r.verdict,
    steps: r.steps.map((s) => `${s.step}:${s.status}:${s.status === "fail" ? s.code : ""}`),
  };
}

Deno.test("page: every conformance vector gets the CLI's verdict and codes in Chromium", async (t) => {
  const svc = await startService({ JC_STORE: "memory" });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(svc.url + "/");
    await page.waitForSelector("html[data-ready=true]", { state: "attached" });
    await page.setInputFiles("#config", {
      name: "operator-config.json",
      mimeType: "application/json",
      buffer: Buffer.from(await Deno.readFile(CONFIG)),
    });
    await page.waitForFunction(() =>
      document.getElementById("config-status")?.textContent?.startsWith("Loaded")
    );
    const all = await vectors();
    assert.ok(all.length >= 90, `expected the full vector set, got ${all.length}`);
    let compared = 0, outcomes = 0;
    const seen = { valid: 0, invalid: 0, unusable: 0 } as Record<string, number>;
    const classes: Record<string, number> = {};
    for (const v of all) {
      const env = fromHex(hexOf(v));
      const want = await cliSays(env);
      await page.evaluate(() => document.getElementById("result")!.removeAttribute("data-verdict"));
      await page.setInputFiles("#file", {
        name: `${v.name}.cose`,
        mimeType: "application/cose",
        buffer: Buffer.from(env),
      });
      await page.waitForSelector("#result[data-verdict]", { state: "attached" });
      const got = await page.evaluate(() => {
        const r = document.getElementById("result")!;
        return {
          verdict: r.getAttribute("data-verdict")!,
          verdictClass: r.getAttribute("data-verdict-class") ?? undefined,
          steps: [...r.querySelectorAll("[data-step]")].map((s) =>
            `${s.getAttribute("data-step")}:${s.getAttribute("data-status")}:${
              s.getAttribute("data-code") ?? ""
            }`
          ),
        };
      });
      assert.deepEqual(got, want, `vector ${v.name}`);
      if (v.name === "outcome-2-partial-negative-residual") {
        // JCP §5.3: the signed residual shown as signed, named a finding, never clamped
        const note = await page.textContent("[data-field=outcome-trace]");
        assert.equal(await page.textContent("[data-field=residual]"), "-300");
        assert.match(note ?? "", /negative: the activities claim more/);
        assert.match(note ?? "", /no per-token figure/);
        outcomes++;
      }
      seen[got.verdict]++;
      if (got.verdictClass) classes[got.verdictClass] = (classes[got.verdictClass] ?? 0) + 1;
      compared++;
    }
    assert.equal(compared, all.length);
    assert.equal(outcomes, 1, "the outcome receipt's trace note was checked");
    // Both outcomes really occur (the vectors hold 24+ positives and 71 negatives).
    assert.ok(seen.valid >= 20 && seen.invalid >= 60, JSON.stringify(seen));
    // every verdict class occurs, shown as the CLI's report has it
    assert.ok(
      classes.alert >= 1 && classes["joule-unverified"] >= 1 && classes.valid >= 1,
      JSON.stringify(classes),
    );
    assert.deepEqual(errors, []);

    await t.step("paste path and drop path give the same verdict", async () => {
      const sample = all[0];
      const want = await cliSays(fromHex(hexOf(sample)));
      await page.evaluate(() => document.getElementById("result")!.removeAttribute("data-verdict"));
      await page.fill("#hex", hexOf(sample));
      await page.click("#verify-hex");
      await page.waitForSelector("#result[data-verdict]", { state: "attached" });
      assert.equal(await page.getAttribute("#result", "data-verdict"), want.verdict);

      const neg = all.find((v) => v.name.startsWith("neg"))!;
      const wantNeg = await cliSays(fromHex(hexOf(neg)));
      await page.evaluate(() => document.getElementById("result")!.removeAttribute("data-verdict"));
      const bytes = [...fromHex(hexOf(neg))];
      const dt = await page.evaluateHandle((b: number[]) => {
        const d = new DataTransfer();
        d.items.add(new File([new Uint8Array(b)], "dropped.cose", { type: "application/cose" }));
        return d;
      }, bytes);
      await page.dispatchEvent("#drop", "drop", { dataTransfer: dt });
      await page.waitForSelector("#result[data-verdict]", { state: "attached" });
      assert.equal(await page.getAttribute("#result", "data-verdict"), wantNeg.verdict);
    });

    await t.step("text that is no envelope is unusable, as the CLI's exit 2", async () => {
      await page.evaluate(() => document.getElementById("result")!.removeAttribute("data-verdict"));
      await page.fill("#hex", "hello, not a receipt");
      await page.click("#verify-hex");
      await page.waitForSelector("#result[data-verdict]", { state: "attached" });
      assert.equal(await page.getAttribute("#result", "data-verdict"), "unusable");
      assert.equal(
        (await cliSays(new TextEncoder().encode("hello, not a receipt"))).verdict,
        "unusable",
      );
    });
  } finally {
    await browser.close();
    await svc.stop();
  }
});
