// Shards' pins in pin_dir (api/shard_files.ts, issue 27): a pin there counts as its shard even when
// the shard's folder is gone (an older data directory restored: the start stops, never moves it
// aside), and a shard cut short by a crash (an empty tree) has its pin moved aside with its folder,
// so the next rotation can make that shard again under a new key. Real files.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { sqliteShardFiles } from "../../api/shard_files.ts";

Deno.test("shard files: a shard's pin in pin_dir is a shard without its folder; an empty shard's pin goes aside with it", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-shard-pindir-" });
  const data = `${tmp}/data`, pins = `${tmp}/pins`;
  try {
    const files = sqliteShardFiles(
      data,
      `${data}/log-key.hex`,
      { batchAgeMs: 1 },
      `${pins}/s0.pin`,
      pins,
    );
    await (await files.openLog(0, "pindir.test/log", false)).close();
    await (await files.openLog(1, "pindir.test/log/s1", true)).close();
    assert.equal((await Deno.stat(pins)).mode! & 0o777, 0o700);
    assert.ok(existsSync(`${pins}/s1.pin`));
    assert.equal(existsSync(`${data}/shards/s1/log-key.hex.pin`), false);
    assert.deepEqual(files.folders(), [1]);
    assert.equal(files.holdsEntries(1), false, "an empty tree");
    // a later shard's pin with no folder (its data directory older than the pins)
    await Deno.writeFile(`${pins}/s2.pin`, new Uint8Array(512));
    assert.deepEqual(files.folders(), [1, 2]);
    assert.equal(files.holdsEntries(2), true);
    await Deno.remove(`${pins}/s2.pin`);
    // s1 unlisted and empty (a rotation cut short): its folder and its pin go aside
    const moved = files.discardFrom(1);
    assert.equal(moved.length, 2);
    assert.equal(existsSync(`${pins}/s1.pin`), false);
    assert.ok(moved.some((m) => m.startsWith(`${pins}/discarded/s1-`)));
    assert.deepEqual(files.folders(), []);
    // the next rotation makes s1 again, with a new key and a new pin
    await (await files.openLog(1, "pindir.test/log/s1", true)).close();
    assert.ok(existsSync(`${pins}/s1.pin`));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
