// `deno task restore`'s rules (api/deno/restore.ts; docs/OPERATIONS.md "Restore") on real files: a
// data directory written by the real service, backed up (api/deno/backup.ts), then restored under each
// condition in process. A target still holding a store, a key in place that is another log's, a
// backup without keys whose key is missing, and a file that is no proven backup are refused with
// their codes and write nothing; a pin in place is kept when the backup's is older and advanced
// when the backup's is newer; a backup made without keys restores beside the keys in place.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startService } from "../../fixtures/service.ts";
import { validEnvelope } from "../../fixtures/app.ts";
import { backupDataDir } from "../../api/deno/backup.ts";
import { defaultPaths } from "../../api/deno/backup_layout.ts";
import { restoreDataDir } from "../../api/deno/restore.ts";
import { ed25519GenerateSecret, toHex } from "../../verify/mod.ts";

async function appendN(url: string, k: number, from: number) {
  for (let i = 0; i < k; i++) {
    const r = await fetch(`${url}/v1/log/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: validEnvelope(from + i),
    });
    assert.equal(r.status, 201);
    await r.body?.cancel();
  }
}

const refused = (code: string) => (e: unknown) => {
  assert.equal((e as { code?: string }).code, code, (e as Error).message);
  return true;
};

Deno.test({
  name: "restore: refusals write nothing; a pin in place is kept or advanced, never moved back",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-restore-rules-" });
    const data = `${tmp}/data`;
    try {
      const svc = await startService({ DATA_DIR: data, JC_BATCH_AGE_MS: "2" });
      await appendN(svc.url, 4, 10);
      await svc.stop("SIGTERM");
      const src = defaultPaths(data);
      const old = await backupDataDir(src, `${tmp}/old`);
      const noKey = await backupDataDir(src, `${tmp}/nokey`, { copyKeys: false });
      assert.ok(old.ok && noKey.ok);
      assert.equal(existsSync(`${tmp}/nokey/log-key.hex`), false);
      assert.equal(existsSync(`${tmp}/nokey/log-key.hex.pin`), true, "pins are copied always");
      const svc2 = await startService({ DATA_DIR: data, JC_BATCH_AGE_MS: "2" });
      await appendN(svc2.url, 3, 20);
      await svc2.stop("SIGTERM");
      const fresh = await backupDataDir(src, `${tmp}/new`);
      assert.equal(fresh.shards[0].size, 7);

      // The target still holds its store.
      await assert.rejects(restoreDataDir(`${tmp}/old`, src), refused("restore-target-not-empty"));
      // The stores moved aside, the key and pin (at 7) left in place: the older backup is refused.
      for (
        const f of ["log.sqlite", "shards.json", "witness.sqlite"].flatMap((
          f,
        ) => [f, `${f}-wal`, `${f}-shm`])
      ) {
        if (existsSync(`${data}/${f}`)) await Deno.rename(`${data}/${f}`, `${tmp}/${f}.aside`);
      }
      await assert.rejects(restoreDataDir(`${tmp}/old`, src), refused("store-behind-signed-head"));
      assert.equal(existsSync(`${data}/log.sqlite`), false, "refused: nothing written");
      assert.equal(existsSync(`${data}/log.sqlite.partial`), false);
      // Not a backup.
      await assert.rejects(restoreDataDir(tmp, src), refused("restore-not-a-backup"));
      // Another log's key in place.
      const other = `${tmp}/other`;
      await Deno.mkdir(other);
      await Deno.writeTextFile(
        `${other}/log-key.hex`,
        toHex(ed25519GenerateSecret()) + "\n",
        { mode: 0o600 },
      );
      await assert.rejects(
        restoreDataDir(`${tmp}/new`, defaultPaths(other)),
        refused("restore-key-mismatch"),
      );
      // Without keys, into an empty directory: the key must be put back first.
      await assert.rejects(
        restoreDataDir(`${tmp}/nokey`, defaultPaths(`${tmp}/empty`)),
        refused("log-key-missing"),
      );
      assert.equal(existsSync(`${tmp}/empty`), false, "refused: the directory it made is gone");

      // The newest backup beside the key and pin in place: the pin is kept (it is the newest).
      const r = await restoreDataDir(`${tmp}/new`, src);
      assert.deepEqual(r.shards, [{ id: "s0", size: 7, pin: "kept", pinned_size: 7 }]);
      assert.deepEqual(r.keys_restored, [], "every key was in place");
      const back = await startService({ DATA_DIR: data });
      try {
        const h = await (await fetch(`${back.url}/v1/log/tree-head`)).json();
        assert.equal(h.size, 7);
      } finally {
        await back.stop("SIGTERM");
      }

      // A pin in place older than the backup's (itself put back from an old copy): advanced.
      const lost = `${tmp}/lost`;
      await Deno.mkdir(lost, { mode: 0o700 });
      for (const k of ["log-key.hex", "operator-key.hex"]) {
        await Deno.copyFile(`${tmp}/old/${k}`, `${lost}/${k}`);
        await Deno.chmod(`${lost}/${k}`, 0o600);
      }
      await Deno.copyFile(`${tmp}/old/log-key.hex.pin`, `${lost}/log-key.hex.pin`);
      const r2 = await restoreDataDir(`${tmp}/nokey`, defaultPaths(lost));
      assert.equal(r2.shards[0].pin, "kept", "the no-key backup is as old as this pin");
      for (const f of ["log.sqlite", "shards.json", "witness.sqlite"]) {
        await Deno.remove(`${lost}/${f}`, { recursive: true }).catch(() => {});
      }
      const r3 = await restoreDataDir(`${tmp}/new`, defaultPaths(lost));
      assert.deepEqual(r3.shards[0], { id: "s0", size: 7, pin: "from-backup", pinned_size: 7 });
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
