// A split view must not go unnoticed: two services run with the same log key but different
// entries. The monitor CLI, pointed at one and then the other with the same state file, alarms
// (exit 3). Also exercises the client CLI's submit, prove and head against the real service.
import assert from "node:assert/strict";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { monitoredSize, runClient, startService } from "../../fixtures/service.ts";
import { entryLeafHash, toHex } from "../../verify/mod.ts";
import { initLogPin } from "../../log/sqlite/mod.ts";

Deno.test({
  name: "e2e: client CLI; monitor CLI alarms on a split view (same key, different trees)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-split-" });
    const keyFile = `${tmp}/log-key.hex`;
    const a = await startService({ DATA_DIR: `${tmp}/a`, JC_KEY_FILE: keyFile });
    // B, a new log under A's key, with its own signed-head pin: sharing A's, each service would
    // overwrite the other's signed heads (issue 27)
    const pinB = await initLogPin(keyFile, `${tmp}/b-log-key.hex.pin`);
    const b = await startService({ DATA_DIR: `${tmp}/b`, JC_KEY_FILE: keyFile, JC_PIN_FILE: pinB });
    try {
      assert.equal(a.signer, b.signer, "both services sign with the same key");
      const s = steward(5);
      // A and B get different entries
      for (let i = 0; i < 3; i++) {
        const f = `${tmp}/a${i}.cose`;
        await Deno.writeFile(f, validEnvelope(100 + i, s));
        const r = await runClient(["submit", f, "--url", a.url]);
        assert.equal(r.code, 0, r.stderr);
        const j = JSON.parse(r.stdout);
        assert.equal(j.index, i);
        assert.equal(j.verified, true);
      }
      for (let i = 0; i < 5; i++) {
        const f = `${tmp}/b${i}.hex`;
        await Deno.writeTextFile(f, toHex(validEnvelope(200 + i, s)));
        assert.equal((await runClient(["submit", f, "--url", b.url])).code, 0);
      }
      // prove and head via the CLI
      const leaf = toHex(entryLeafHash(validEnvelope(101, s)));
      const p = await runClient(["prove", leaf, "--url", a.url]);
      assert.equal(p.code, 0, p.stderr);
      assert.equal(JSON.parse(p.stdout).index, 1);
      const p2 = await runClient(["prove", "2", "--url", a.url, "--signer", a.signer]);
      assert.equal(JSON.parse(p2.stdout).leaf_hash, toHex(entryLeafHash(validEnvelope(102, s))));
      const h = await runClient(["head", "--url", b.url]);
      assert.equal(JSON.parse(h.stdout).size, 5);
      // pinning another signer is a failed check (exit 3)
      const wrong = await runClient(["head", "--url", a.url, "--signer", steward(6).did]);
      assert.equal(wrong.code, 3, wrong.stderr);

      const state = `${tmp}/monitor.json`;
      const m1 = await runClient(["monitor", a.url, "--state", state, "--once"]);
      assert.equal(m1.code, 0, m1.stderr);
      // A grows: still consistent
      await Deno.writeFile(`${tmp}/a3.cose`, validEnvelope(103, s));
      assert.equal((await runClient(["submit", `${tmp}/a3.cose`, "--url", a.url])).code, 0);
      const m2 = await runClient(["monitor", a.url, "--state", state, "--once"]);
      assert.equal(m2.code, 0, m2.stderr);
      assert.equal(monitoredSize(m2.stdout), 4);
      // same key, different tree: ALARM
      const m3 = await runClient(["monitor", b.url, "--state", state, "--once"]);
      assert.equal(m3.code, 3, `monitor must alarm on the split view: ${m3.stdout} ${m3.stderr}`);
      assert.match(m3.stderr, /ALARM/);
      assert.match(m3.stderr, /split view|equivocation|went back/);
      // and equal sizes with different roots: B grows to 4? B is at 5; make A reach 5 too
      await Deno.writeFile(`${tmp}/a4.cose`, validEnvelope(104, s));
      assert.equal((await runClient(["submit", `${tmp}/a4.cose`, "--url", a.url])).code, 0);
      const m4 = await runClient(["monitor", a.url, "--state", state, "--once"]);
      assert.equal(m4.code, 0, m4.stderr);
      const m5 = await runClient(["monitor", b.url, "--state", state, "--once"]);
      assert.equal(m5.code, 3);
      assert.match(m5.stderr, /two signed roots at size 5|equivocation/);
    } finally {
      await a.stop();
      await b.stop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
