// A frozen shard's final checkpoint is witnessed like any other (docs/SHARDS.md "Lifecycle"): A
// logs with one witness configured (B); A rotates, so s0 is frozen at its final size and s1 is
// active; B, configured with both shards' SHA-256 vkeys from A's signed directory, cosigns A's
// final s0 checkpoint (served at the root) and s1's (served below /shards/s1).
import assert from "node:assert/strict";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { type Service, startService } from "../../fixtures/service.ts";
import { cosignatureVkey } from "../../log/c2sp/note.ts";
import { cosigned, freePort } from "./_cosigned.ts";
import { openDirectory, shardUrl } from "../../log/shards/mod.ts";
import { ed25519GenerateSecret, toHex } from "../../verify/mod.ts";
import { initWitnessKey } from "../../log/sqlite/witness_pin_file.ts";

const TOKEN = "witness-shards-admin-token";

Deno.test({
  name: "shards: a frozen shard's final checkpoint and the active shard's are witnessed",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-shards-wit-" });
    const witSecret = ed25519GenerateSecret();
    await Deno.writeTextFile(`${tmp}/b-witness-key.hex`, toHex(witSecret) + "\n", { mode: 0o600 });
    await initWitnessKey(`${tmp}/b-witness-key.hex`); // a key made here: a new witness, explicitly
    const witnessVkey = cosignatureVkey("b.shards.test/witness", witSecret);
    const portB = freePort();
    const services: Service[] = [];
    try {
      const a = await startService({
        DATA_DIR: `${tmp}/a`,
        JC_LOG_NAME: "a.shards.test/log",
        JC_ADMIN_TOKEN: TOKEN,
        JC_WITNESSES: `http://127.0.0.1:${portB} ${witnessVkey}`,
      });
      services.push(a);
      const append = async (prefix: string, n: number) => {
        const res = await fetch(shardUrl(a.url, prefix, "/v1/log/entries"), {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: validEnvelope(n, steward(4)),
        });
        assert.equal(res.status, 201);
        await res.body?.cancel();
      };
      for (let i = 0; i < 3; i++) await append("/", i);
      const rot = await fetch(`${a.url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200);
      const { note, operator_vkey } = await rot.json();
      const d = await openDirectory(note, operator_vkey);
      for (let i = 10; i < 12; i++) await append("/shards/s1", i);
      const b = await startService({
        DATA_DIR: `${tmp}/b`,
        PORT: String(portB),
        JC_LOG_NAME: "b.shards.test/log",
        JC_WITNESS_KEY_FILE: `${tmp}/b-witness-key.hex`,
        JC_WITNESS_NAME: "b.shards.test/witness",
        JC_WITNESS_LOGS: d.shards.map((s) => s.vkeys.sha256).join(","),
      });
      services.push(b);
      const [s0, s1] = d.shards;
      await cosigned(shardUrl(a.url, s0.prefix, "/log/sha256/checkpoint").href, 3, [
        s0.vkeys.sha256,
        witnessVkey,
      ]);
      await cosigned(shardUrl(a.url, s1.prefix, "/log/sha256/checkpoint").href, 2, [
        s1.vkeys.sha256,
        witnessVkey,
      ]);
    } finally {
      for (const s of services) await s.stop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
