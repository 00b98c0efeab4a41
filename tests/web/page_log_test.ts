/// <reference lib="dom" />
// Issue 13, "In the log?": the page checks what the log says, in Chromium, trusting nothing:
// a logged receipt is `data-inclusion="verified"` (first visit `data-consistency="first-seen"`,
// then `verified` after the log grew); a tile corrupted in transit is `failed`; a browser that saw
// another tree at the same size (a split view: a second service with the same key and different
// entries) gets the security warning with both signed statements, downloadable; a receipt that was
// never logged is `absent`.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { c2sp } from "../../log/mod.ts";
import { initLogPin } from "../../log/sqlite/mod.ts";
import { launchChromium, shot } from "../../fixtures/browser.ts";
import { type Service, startService } from "../../fixtures/service.ts";
import { defaultValidPositives } from "./_vectors.ts";
import { append, verifyOnPage } from "./_log_panel.ts";

Deno.test("page log panel: verified, corrupted tile, split view warning, absent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-page-log-" });
  const key = `${dir}/log.key`;
  // A and B share their keys (the log key; the operator key where the service has shards):
  // same keys, other entries.
  const env = {
    JC_KEY_FILE: key,
    JC_LOG_NAME: "page.test/log",
    JC_OPERATOR_KEY_FILE: `${dir}/operator.key`,
  };
  const a = await startService({ ...env, DATA_DIR: `${dir}/a` });
  const browser = await launchChromium();
  const [r0, r1, r2, r3] = await defaultValidPositives();
  let b: Service | undefined;
  try {
    await append(a.url, r0);
    await append(a.url, r1);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(a.url + "/");
    await page.waitForSelector("html[data-ready=true]", { state: "attached" });
    let s = await verifyOnPage(page, r1, ["consistency", "quorum"]);
    // The operator's default policy with no witness configured is `quorum none`: met.
    assert.deepEqual(s, {
      verdict: "valid",
      inclusion: "verified",
      consistency: "first-seen",
      quorum: "met",
      warning: null,
    });

    // The log grows: consistency from the remembered checkpoint is proven from tiles.
    await append(a.url, r2);
    s = await verifyOnPage(page, r0, ["consistency", "quorum"]);
    assert.deepEqual(s, {
      verdict: "valid",
      inclusion: "verified",
      consistency: "verified",
      quorum: "met",
      warning: null,
    });

    // A policy whose quorum is not met (a witness that never cosigned): shown as such.
    const logKey = await (await fetch(`${a.url}/v1/log/key`)).json();
    const witness = c2sp.cosignatureVkey("witness.example/w1", new Uint8Array(32).fill(9));
    const policy = `log ${logKey.vkeys.sha256}\nwitness W1 ${witness}\nquorum W1\n`;
    await page.setInputFiles("#policy", {
      name: "strict.policy",
      mimeType: "text/plain",
      buffer: Buffer.from(policy),
    });
    await page.waitForFunction(() =>
      document.getElementById("policy-status")?.textContent?.startsWith("Using policy")
    );
    s = await verifyOnPage(page, r0, ["consistency", "quorum"]);
    assert.equal(s.quorum, "not-met");
    assert.equal(s.inclusion, "verified"); // the entry is proven; the checkpoint lacks the quorum
    assert.match(await page.textContent("[data-field=quorum]") ?? "", /NOT met/);
    await page.setInputFiles("#policy", []);

    // Never logged: absent (and still consistent).
    s = await verifyOnPage(page, r3, ["consistency", "quorum"]);
    assert.equal(s.inclusion, "absent");

    // A tile corrupted in transit: the proof cannot be checked against the signed root.
    await page.route("**/log/blake3/tile/0/**", async (route) => {
      const res = await route.fetch();
      const body = new Uint8Array(await res.body());
      body[0] ^= 1;
      await route.fulfill({ response: res, body: Buffer.from(body) });
    });
    s = await verifyOnPage(page, r1, ["consistency", "quorum"]);
    assert.equal(s.inclusion, "failed");
    await page.unroute("**/log/blake3/tile/0/**");

    // Split view: B has the same key and log name but other entries; the browser that saw A's
    // tree at size 3 is shown B's checkpoint at size 3.
    // B is a new log under A's key (made beforehand): its own signed-head pin, made explicitly;
    // A's pin (beside the key) holds size 3 and refuses B's empty store (issue 27).
    const pinB = await initLogPin(key, `${dir}/b-log.key.pin`);
    b = await startService({ ...env, DATA_DIR: `${dir}/b`, JC_PIN_FILE: pinB });
    await append(b.url, r3);
    await append(b.url, r2);
    await append(b.url, r1);
    const pageB = await ctx.newPage(); // same browser profile: same localStorage origin? no: origin differs
    await pageB.goto(b.url + "/");
    await pageB.waitForSelector("html[data-ready=true]", { state: "attached" });
    // Seed B's origin with what this browser saw from A (the same log key and origin).
    const seenA = await page.evaluate(() => ({ ...localStorage }));
    await pageB.evaluate((kv) => {
      for (const [k, v] of Object.entries(kv)) localStorage.setItem(k, v as string);
    }, seenA);
    s = await verifyOnPage(pageB, r1, ["consistency", "quorum"]);
    assert.equal(s.consistency, "failed");
    assert.equal(s.warning, "shown");
    const evidence = await pageB.evaluate(() => ({
      before: document.querySelector("[data-evidence=before]")?.textContent ?? "",
      now: document.querySelector("[data-evidence=now]")?.textContent ?? "",
    }));
    assert.match(evidence.before, /^page\.test\/log\/blake3\n3\n/);
    assert.match(evidence.now, /^page\.test\/log\/blake3\n3\n/);
    assert.notEqual(evidence.before, evidence.now);
    await shot(pageB, "security-warning");
    const [download] = await Promise.all([
      pageB.waitForEvent("download"),
      pageB.click("[data-action=download-evidence]"),
    ]);
    const saved = await Deno.readTextFile(await download.path());
    assert.ok(saved.includes(evidence.before) && saved.includes(evidence.now));
    await ctx.close();
  } finally {
    await browser.close();
    await a.stop();
    await b?.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
