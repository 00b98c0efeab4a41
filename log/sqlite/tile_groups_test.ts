// Tile groups on SQLite (docs/STORAGE.md "Tile groups"): the group reader serves many reads per
// read transaction; a group committed after its snapshot began is not in it (tileGroup answers
// undefined, never other bytes) while the store's own connection reads every tile of it at once;
// the snapshot ends after its reads or its time, and the new group is then one read.
import assert from "node:assert/strict";
import { openSqliteLog, openSqliteStorage } from "./mod.ts";
import { toHex } from "../crypto.ts";
import { blake3Hasher, sha256Hasher } from "../mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);

async function appendAll(log: Awaited<ReturnType<typeof openSqliteLog>>, from: number, n: number) {
  await Promise.all(
    Array.from({ length: n }, (_, i) => log.append(enc(`group entry ${from + i}`))),
  );
}

Deno.test("tile groups: a snapshot lacks a group committed after it began; the store's connection has it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-tile-groups-" });
  const log = await openSqliteLog({ dir, secretKey: new Uint8Array(32).fill(3), batchAgeMs: 1 });
  const reader = openSqliteStorage(`${dir}/log.sqlite`, {
    groupSnapshot: { ms: 60_000, reads: 4 },
  });
  try {
    await appendAll(log, 0, 256); // group 0 of level 0, both views
    const g0 = await reader.tileGroup!(0, 0);
    assert.equal(g0?.length, 8192); // this read began a snapshot (4 reads, no time limit)
    await appendAll(log, 256, 256); // group 1, committed after it
    assert.equal(await reader.tileGroup!(0, 1), undefined, "in the old snapshot");
    assert.equal(await reader.tileGroup!(0, 1, "sha256"), undefined, "in the old snapshot");
    // the store's own connection reads the tiles at once, from the new group row
    const tiles = await reader.tileRange!(0, 16, 16);
    assert.equal(tiles.every((t) => t?.length === 512), true);
    assert.equal(toHex((await reader.tile(0, 20))!), toHex(tiles[4]!));
    await reader.tileGroup!(0, 0); // the 4th read ends the snapshot
    const g1 = await reader.tileGroup!(0, 1); // a new one
    assert.equal(g1 && toHex(g1), tiles.map((t) => toHex(t!)).join(""));
    assert.equal(toHex((await reader.tileGroup!(0, 0))!), toHex(g0!)); // immutable
    // by time: a 1 ms snapshot ends on its own
    const quick = openSqliteStorage(`${dir}/log.sqlite`, { groupSnapshot: { ms: 1, reads: 1e9 } });
    try {
      await quick.tileGroup!(0, 0);
      await appendAll(log, 512, 256);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal((await quick.tileGroup!(0, 2))?.length, 8192);
    } finally {
      await quick.close();
    }
  } finally {
    await reader.close();
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tile groups: the log serves a full tile whose group its reader's snapshot lacks", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-tile-groups-" });
  const log = await openSqliteLog({
    dir,
    secretKey: new Uint8Array(32).fill(5),
    batchAgeMs: 1,
    groupSnapshot: { ms: 60_000, reads: 1_000 },
  });
  try {
    await appendAll(log, 0, 256);
    assert.equal((await log.tile("blake3", 0, 0, 256))?.length, 8192); // the snapshot begins
    await appendAll(log, 256, 256);
    for (const [view, h] of [["blake3", blake3Hasher], ["sha256", sha256Hasher]] as const) {
      const got = await log.tile(view, 0, 1, 256); // not in the snapshot: read from the tiles
      // level 0 holds the leaf hashes: entries 256..511 hashed here
      const want = Array.from(
        { length: 256 },
        (_, i) => toHex(h.leaf(enc(`group entry ${256 + i}`))),
      );
      assert.equal(toHex(got!), want.join(""), view);
    }
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tile groups: a closed store's group reader refuses, and closing twice is harmless", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-tile-groups-" });
  try {
    const log = await openSqliteLog({ dir, secretKey: new Uint8Array(32).fill(4), batchAgeMs: 1 });
    await appendAll(log, 0, 256);
    await log.close();
    const s = openSqliteStorage(`${dir}/log.sqlite`);
    assert.equal((await s.tileGroup!(0, 0))?.length, 8192);
    await s.close();
    await s.close();
    await assert.rejects(() => s.tileGroup!(0, 0));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
