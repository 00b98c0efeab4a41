// Shards' pins in pin_dir (api/deno/shard_files.ts, issue 27): a pin there counts as its shard even when
// the shard's folder is gone (an older data directory restored: the start stops, never moves it
// aside), and a shard cut short by a crash (an empty tree) has its pin moved aside with its folder,
// so the next rotation can make that shard again under a new key. Real files.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { sqliteShardFiles } from "../../api/deno/shard_files.ts";

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
    assert.equal(await files.holdsEntries(1), false, "an empty tree");
    // a later shard's pin with no folder (its data directory older than the pins)
    await Deno.writeFile(`${pins}/s2.pin`, new Uint8Array(512));
    assert.deepEqual(files.folders(), [1, 2]);
    assert.equal(await files.holdsEntries(2), true);
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

Deno.test("shard files: a rotation cut short while the shard's store was being made holds no entries; one that signed entries does", async () => {
  // A SIGKILL inside a rotation (tests/e2e/shards_test.ts, under load) can leave the new shard's
  // key and its pin at size 0 with the store missing, 0 bytes, or without its schema: nothing was
  // ever appended to it (its directory state was never written), so it is moved aside, never
  // refused as `shard-unlisted`.
  const tmp = await Deno.makeTempDir({ prefix: "jc-shard-cut-" });
  const data = `${tmp}/data`;
  try {
    const files = sqliteShardFiles(data, `${data}/log-key.hex`, { batchAgeMs: 1 });
    await (await files.openLog(0, "cut.test/log", false)).close();
    await (await files.openLog(1, "cut.test/log/s1", true)).close();
    const db = `${data}/shards/s1/log.sqlite`;
    await Deno.remove(db);
    assert.equal(await files.holdsEntries(1), false, "key and pin at 0, no store");
    await Deno.writeFile(db, new Uint8Array(0));
    assert.equal(await files.holdsEntries(1), false, "a 0-byte store");
    const { DatabaseSync } = await import("node:sqlite");
    new DatabaseSync(db).exec("CREATE TABLE other (x)");
    assert.equal(await files.holdsEntries(1), false, "a store without its schema");
    // a shard that signed entries (its pin past 0) holds entries, store or not
    await Deno.remove(db);
    const log = await files.openLog(2, "cut.test/log/s2", true);
    const { validEnvelope } = await import("../../fixtures/app.ts");
    await log.append(validEnvelope(1));
    await log.close();
    await Deno.remove(`${data}/shards/s2/log.sqlite`);
    assert.equal(await files.holdsEntries(2), true, "a pin past 0");
    await Deno.remove(`${data}/shards/s2/log-key.hex`);
    assert.equal(await files.holdsEntries(2), true, "a pin without its key: cannot be told");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
