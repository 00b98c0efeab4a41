// `deno task fsck <data dir>` end to end: clean on a log written by openSqliteLog (exit 0), a
// report of problems on a tampered file (exit 1), a clear message on a missing store (exit 2);
// and the embedded default's key file is created with mode 0600 and reused.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openSqliteLog } from "../../log/sqlite/mod.ts";

const cli = new URL("../../log/sqlite/fsck_cli.ts", import.meta.url).pathname;

async function fsck(dir: string) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", cli, dir],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  return {
    code: o.code,
    out: new TextDecoder().decode(o.stdout),
    err: new TextDecoder().decode(o.stderr),
  };
}

Deno.test("fsck CLI: clean, tampered, missing; key file 0600 and reused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-fsck-" });
  try {
    const log = await openSqliteLog({ dir, batchAgeMs: 1 });
    const signer = log.signer();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => log.append(new TextEncoder().encode(`f${i}`))),
    );
    await log.close();
    assert.equal((await Deno.stat(`${dir}/log-key.hex`)).mode! & 0o777, 0o600);
    const again = await openSqliteLog({ dir });
    assert.equal(again.signer(), signer);
    await again.close();

    const ok = await fsck(dir);
    assert.equal(ok.code, 0, ok.err);
    const report = JSON.parse(ok.out);
    assert.equal(report.ok, true);
    assert.equal(report.entries, 40);

    const db = new DatabaseSync(`${dir}/log.sqlite`);
    db.prepare("UPDATE entries SET bytes = ? WHERE idx = 7").run(
      new TextEncoder().encode("tampered"),
    );
    db.close();
    const bad = await fsck(dir);
    assert.equal(bad.code, 1, bad.err);
    assert.ok(JSON.parse(bad.out).problems.some((p: string) => p.startsWith("entry 7:")), bad.out);
    // Opening proves the head, the edge tiles and the last tile's entries (O(log n)): entry 7 is
    // fsck's to find, but a tampered entry in the last tile (32..39) makes open refuse.
    await (await openSqliteLog({ dir })).close();
    const db2 = new DatabaseSync(`${dir}/log.sqlite`);
    db2.prepare("UPDATE entries SET bytes = ? WHERE idx = 39").run(
      new TextEncoder().encode("tampered"),
    );
    db2.close();
    await assert.rejects(
      openSqliteLog({ dir }),
      /Cannot open log: entry 39 does not hash to its stored leaf hash/,
    );

    const missing = await fsck(`${dir}/nope`);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /Cannot (read log key|check log)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
