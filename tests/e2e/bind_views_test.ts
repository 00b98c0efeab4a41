// The monitor binds the two views (docs/WITNESS.md): a log whose SHA-256 view (the witnessed one)
// and BLAKE3 view are both signed by its key but commit to different entries — here entry 5 of
// 600, far from the newest bundle that the per-poll bundle check compares — is caught by
// recomputing both roots from the bundles, and both signed statements are saved as evidence. The
// logs are static directories served by python3 -m http.server.
import assert from "node:assert/strict";
import { entryOf, serveDir, staticLog, vkeyOf, writeFiles } from "../publication/_static.ts";
import { runClient } from "../../fixtures/service.ts";

const T = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name:
    "monitor: views bound from the bundles; a BLAKE3 head over other entries alarms with evidence",
  ...T,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-bind-" });
    const honest = staticLog(600);
    const other = Array.from({ length: 600 }, (_, i) => i === 5 ? entryOf(9999) : entryOf(i));
    const forked = staticLog(600, undefined, undefined, other);
    const split = new Map(honest);
    for (const [path, bytes] of forked) if (path.startsWith("log/blake3/")) split.set(path, bytes);
    await writeFiles(`${tmp}/honest`, honest);
    await writeFiles(`${tmp}/split`, split);
    const a = await serveDir(`${tmp}/honest`);
    const b = await serveDir(`${tmp}/split`);
    try {
      const key = ["--log-key", vkeyOf("sha256"), "--source", "tiles", "--once"];
      const ok = await runClient(["monitor", a.url, "--state", `${tmp}/s1.json`, ...key]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /views bound at 600/);
      const state = JSON.parse(await Deno.readTextFile(`${tmp}/s1.json`));
      assert.equal(state.bind.size, 600);
      // a second poll reads nothing new
      const again = await runClient(["monitor", a.url, "--state", `${tmp}/s1.json`, ...key]);
      assert.equal(again.code, 0, again.stderr);
      // tailing: 300 first, then 600 (only the new bundles are read)
      await writeFiles(`${tmp}/h300`, staticLog(300));
      const h300 = await serveDir(`${tmp}/h300`);
      try {
        const s3 = ["--state", `${tmp}/s3.json`, ...key];
        const p1 = await runClient(["monitor", h300.url, ...s3]);
        assert.equal(p1.code, 0, p1.stderr);
        assert.match(p1.stdout, /views bound at 300/);
        const p2 = await runClient(["monitor", a.url, ...s3]);
        assert.equal(p2.code, 0, p2.stderr);
        assert.match(p2.stdout, /views bound at 600/);
      } finally {
        await h300.close();
      }

      const ev = `${tmp}/evidence`;
      const bad = await runClient([
        "monitor",
        b.url,
        "--state",
        `${tmp}/s2.json`,
        "--evidence",
        ev,
        ...key,
      ]);
      assert.equal(bad.code, 3, `${bad.stdout} ${bad.stderr}`);
      assert.match(bad.stderr, /do not commit to the same entries/);
      const [dir] = [...Deno.readDirSync(ev)].map((e) => e.name);
      const files = [...Deno.readDirSync(`${ev}/${dir}`)].map((e) => e.name).sort();
      assert.deepEqual(files, [
        "blake3-checkpoint.txt",
        "recomputed.json",
        "sha256-checkpoint.txt",
      ]);
      const b3 = await Deno.readTextFile(`${ev}/${dir}/blake3-checkpoint.txt`);
      assert.match(b3, /^static\.example\/jc\/blake3\n600\n/);
    } finally {
      await a.close();
      await b.close();
    }
  },
});
