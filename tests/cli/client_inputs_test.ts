// The client reads inputs one way and says "not found" as a not-found (issue 28), against the real
// service: `verify-proof` takes a receipt as raw bytes, hex (any file name) or {"envelope": hex},
// the forms `submit` and `verify` take (it refused hex and JSON files with "entry 0 is not
// proven", exit 3); `prove` past the end of the log is exit 1 naming the size (it was exit 3, a
// failed check), from tiles and from the v1 API alike.
import assert from "node:assert/strict";
import { ROOT, runClient, startService } from "../../fixtures/service.ts";
import { toHex } from "../../verify/mod.ts";

Deno.test({
  name:
    "client: verify-proof reads every envelope form; prove past the end is a not-found (exit 1)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-client-inputs-" });
    const svc = await startService({ DATA_DIR: `${dir}/data` });
    try {
      const bytes = await Deno.readFile(`${ROOT}examples/receipt.cose`);
      await Deno.writeTextFile(`${dir}/receipt.txt`, toHex(bytes) + "\n");
      await Deno.writeTextFile(`${dir}/receipt.json`, JSON.stringify({ envelope: toHex(bytes) }));
      const s = await runClient(["submit", `${dir}/receipt.json`, "--url", svc.url]);
      assert.equal(s.code, 0, s.stderr);
      assert.equal(JSON.parse(s.stdout).index, 0);
      const vk = (await (await fetch(`${svc.url}/v1/log/key`)).json()).vkeys.sha256;
      const proof = `${dir}/e0.tlog-proof`;
      const p = await runClient([
        "prove",
        "0",
        "--url",
        svc.url,
        "--tlog-proof",
        proof,
        "--view",
        "sha256",
      ]);
      assert.equal(p.code, 0, p.stderr);
      for (
        const f of [`${ROOT}examples/receipt.cose`, `${dir}/receipt.txt`, `${dir}/receipt.json`]
      ) {
        const v = await runClient(["verify-proof", f, proof, "--log-key", vk]);
        assert.equal(v.code, 0, `${f}: ${v.stderr}`);
        assert.equal(JSON.parse(v.stdout).verified, true);
        assert.equal(JSON.parse(v.stdout).index, 0);
      }
      // another receipt is not proven by entry 0's proof: still a failed check
      const other = await runClient([
        "verify-proof",
        `${ROOT}examples/policy.cose`,
        proof,
        "--log-key",
        vk,
      ]);
      assert.equal(other.code, 3, other.stderr);
      // unusable content is a usage error naming the file, as for submit
      await Deno.writeTextFile(`${dir}/junk.txt`, "not a receipt\n");
      const junk = await runClient(["verify-proof", `${dir}/junk.txt`, proof, "--log-key", vk]);
      assert.equal(junk.code, 2, junk.stderr);
      assert.match(junk.stderr, /junk\.txt: Cannot read envelope/);

      // past the end: a not-found (1), naming the size, from tiles and from the API
      for (const extra of [[], ["--source", "api"]]) {
        const r = await runClient(["prove", "--index", "5", "--url", svc.url, ...extra]);
        assert.equal(r.code, 1, `${extra.join(" ")}: ${r.stderr}`);
        assert.equal(r.stdout, "");
        assert.match(r.stderr, /entry 5|index 5|not-found/);
        assert.doesNotMatch(r.stderr, /CHECK FAILED/);
      }
      const t = await runClient(["prove", "--index", "5", "--url", svc.url]);
      assert.match(
        t.stderr,
        /^Cannot prove entry 5: not found: the log's signed checkpoint has 1 entry \(0 to 0\)/,
      );
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
