// `pin_dir` (issue 27; docs/STORAGE.md "Signed-head pin", docs/OPERATIONS.md "Restore"): every
// log's signed-head pin (s0's and each shard's) in one durable directory outside the data
// directory, so that losing the whole data directory and restoring an older copy of it is told at
// start for every shard, not only s0. Real processes and files throughout: a rotated log (s0
// frozen, s1 active) with pin_dir set is backed up twice (`deno task backup`); the data directory
// is deleted; the older backup is refused by `deno task restore` and, copied by hand (its pins
// beside the keys included), by the start itself (`store-behind-signed-head`, naming s1's pin in
// pin_dir); the newest backup restores, starts, and the audit of every head served passes. Then
// the migration: a deployment whose pins sit beside their keys sets pin_dir for the first time;
// the pins move there, a rollback of s1 (or of the whole data directory, its old pins included)
// is refused, and a pin lost from pin_dir is `signed-head-pin-missing`, never a silent start.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { validEnvelope } from "../../fixtures/app.ts";
import { ROOT, type Service, startService } from "../../fixtures/service.ts";
import { type AppendAnswer, HeadsAudit } from "./_heads_audit.ts";
import { freePort } from "./_cosigned.ts";
import { openDirectory, shardUrl } from "../../log/shards/mod.ts";

const TOKEN = "pin-dir-admin-token";
const dec = new TextDecoder();
let n = 0; // distinct entries across harnesses (one log may be served by two)

async function task(args: string[], env: Record<string, string>) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = dec.decode(o.stdout), err = dec.decode(o.stderr);
  return { code: o.code, out, err, what: `exit ${o.code}\n${err}${out}` };
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true, mode: 0o700 });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** A log and its audit: start, append (to a shard's URL), rotate. */
function harness(env: Record<string, string>, audit = new HeadsAudit()) {
  const services = new Set<Service>();
  return {
    audit,
    async start() {
      const s = await startService(env);
      services.add(s);
      return s;
    },
    async stop(s: Service) {
      services.delete(s);
      await s.stop("SIGTERM");
    },
    async append(base: string, count: number) {
      for (let i = 0; i < count; i++) {
        const r = await fetch(`${base}/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: validEnvelope(700_000 + n++) as Uint8Array<ArrayBuffer>,
        });
        assert.equal(r.status, 201);
        await audit.append(await r.json() as AppendAnswer);
      }
    },
    /** Rotates; the new active shard's base URL. */
    async rotate(url: string) {
      const rot = await fetch(`${url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200);
      const { note, operator_vkey } = await rot.json();
      const d = await openDirectory(note, operator_vkey);
      return shardUrl(url, d.shards.at(-1)!.prefix, "").href.replace(/\/$/, "");
    },
    async close() {
      for (const s of services) await s.stop("SIGKILL");
    },
  };
}

Deno.test({
  name:
    "pin_dir: a rotated log's data directory lost and an older backup restored (by deno task restore or by hand) is refused at s1's pin; the newest restores and the audit passes",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-pindir-" });
    const dir = `${tmp}/data`, pins = `${tmp}/pins`;
    const env = {
      DATA_DIR: dir,
      PORT: String(freePort()), // one URL across restarts
      JC_PIN_DIR: pins,
      JC_ADMIN_TOKEN: TOKEN,
      JC_BATCH_AGE_MS: "2",
      JC_LOG_NAME: "pindir.test/log",
    };
    const h = harness(env);
    try {
      let a = await h.start();
      await h.append(a.url, 3);
      const s1Url = await h.rotate(a.url);
      await h.append(s1Url, 3);
      assert.doesNotMatch(a.stderr(), /pin lives in the data directory/);
      // every pin in pin_dir (0700), none beside the keys in the data directory
      assert.equal((await Deno.stat(pins)).mode! & 0o777, 0o700);
      for (const f of ["s0.pin", "s1.pin"]) assert.ok(existsSync(`${pins}/${f}`), f);
      for (const f of ["log-key.hex.pin", "shards/s1/log-key.hex.pin"]) {
        assert.equal(existsSync(`${dir}/${f}`), false, f);
      }
      const b1 = await task(["backup", dir, `${tmp}/backup-1`], env);
      assert.equal(b1.code, 0, b1.what);
      const m1 = JSON.parse(await Deno.readTextFile(`${tmp}/backup-1/backup.json`));
      assert.equal(m1.source.pinDir, pins, "the manifest says where the pins live");
      assert.equal(m1.shards[1].pin.size, 3);
      await h.append(s1Url, 3);
      await h.audit.checkpoints(a.url);
      await h.stop(a);
      const b2 = await task(["backup", dir, `${tmp}/backup-2`], env);
      assert.equal(b2.code, 0, b2.what);

      // The whole data directory lost: the older backup is refused, nothing written.
      await Deno.remove(dir, { recursive: true });
      const r1 = await task(["restore", `${tmp}/backup-1`, dir], env);
      assert.equal(r1.code, 1, r1.what);
      assert.match(r1.err, /\[store-behind-signed-head\]/);
      assert.ok(r1.err.includes(`${pins}/s1.pin`), r1.err);
      assert.equal(existsSync(dir), false, "a refused restore writes nothing");
      // By hand (the backup copied as it is, its older pins beside the keys): the start refuses.
      await copyTree(`${tmp}/backup-1`, dir);
      const refused = await h.start().then(() => "", (e) => String(e));
      assert.match(refused, /store-behind-signed-head/);
      assert.ok(refused.includes(`pin ${pins}/s1.pin`), refused);
      assert.equal(existsSync(`${pins}/discarded`), false, "no pin moved aside");

      // The newest backup restores (pins kept in pin_dir, never moved back) and starts.
      await Deno.remove(dir, { recursive: true });
      const r2 = await task(["restore", `${tmp}/backup-2`, dir], env);
      assert.equal(r2.code, 0, r2.what);
      const rep = JSON.parse(r2.out);
      assert.deepEqual(rep.shards.map((s: { pin: string }) => s.pin), ["kept", "kept"]);
      assert.equal(existsSync(`${dir}/shards/s1/log-key.hex.pin`), false);
      a = await h.start();
      await h.append(s1Url, 2);
      const r = await h.audit.assertAll(a.url);
      console.log(`audit: ${r.heads} heads, ${r.entries} acknowledged entries, no fork`);
    } finally {
      await h.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "pin_dir set for the first time: pins beside the keys are adopted into it; then a rollback of s1 or of the whole data directory is refused, a lost pin is signed-head-pin-missing",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-pindir-mig-" });
    const dir = `${tmp}/data`, pins = `${tmp}/pins`;
    const env = {
      DATA_DIR: dir,
      PORT: String(freePort()), // one URL across restarts
      JC_ADMIN_TOKEN: TOKEN,
      JC_BATCH_AGE_MS: "2",
      JC_LOG_NAME: "pindir-mig.test/log",
    };
    const h = harness(env);
    const withDir = harness({ ...env, JC_PIN_DIR: pins }, h.audit);
    try {
      let a = await h.start();
      await h.append(a.url, 2);
      const s1Url = await h.rotate(a.url);
      await h.append(s1Url, 2);
      await h.stop(a);
      // without pin_dir, a rotation warns once that the shard's pin lives in the data directory
      assert.equal(
        a.stderr().match(/s1's signed-head pin lives in the data directory/g)?.length,
        1,
      );
      for (const f of ["log-key.hex.pin", "shards/s1/log-key.hex.pin"]) {
        assert.ok(existsSync(`${dir}/${f}`), f);
      }
      await copyTree(dir, `${tmp}/old`); // the whole data directory, its pins included

      // pin_dir set: the pins are adopted (the former ones renamed .moved, kept), the log goes on
      a = await withDir.start();
      assert.doesNotMatch(a.stderr(), /pin lives in the data directory/);
      for (const f of ["s0.pin", "s1.pin"]) assert.ok(existsSync(`${pins}/${f}`), f);
      for (const f of ["log-key.hex.pin", "shards/s1/log-key.hex.pin"]) {
        assert.equal(existsSync(`${dir}/${f}`), false, f);
        assert.ok(existsSync(`${dir}/${f}.moved`), f);
      }
      await withDir.append(s1Url, 3);
      await withDir.audit.checkpoints(a.url);
      await withDir.stop(a);

      await copyTree(dir, `${tmp}/newest`);
      // s1 rolled back (its older store put back): refused at its pin in pin_dir
      for (const x of ["", "-wal", "-shm"]) {
        await Deno.remove(`${dir}/shards/s1/log.sqlite${x}`).catch(() => {});
        if (existsSync(`${tmp}/old/shards/s1/log.sqlite${x}`)) {
          await Deno.copyFile(
            `${tmp}/old/shards/s1/log.sqlite${x}`,
            `${dir}/shards/s1/log.sqlite${x}`,
          );
        }
      }
      let refused = await withDir.start().then(() => "", (e) => String(e));
      assert.match(refused, /store-behind-signed-head/);
      assert.ok(refused.includes(`pin ${pins}/s1.pin`), refused);
      // the whole data directory rolled back, its old pins beside the keys: refused the same way
      await Deno.remove(dir, { recursive: true });
      await copyTree(`${tmp}/old`, dir);
      refused = await withDir.start().then(() => "", (e) => String(e));
      assert.match(refused, /store-behind-signed-head/);
      assert.ok(refused.includes(`pin ${pins}/s1.pin`), refused);
      // the newest data directory back, s1's pin lost from pin_dir: never a silent start
      await Deno.remove(dir, { recursive: true });
      await Deno.rename(`${tmp}/newest`, dir);
      await Deno.rename(`${pins}/s1.pin`, `${tmp}/s1.pin`);
      refused = await withDir.start().then(() => "", (e) => String(e));
      assert.match(refused, /signed-head-pin-missing/);
      await Deno.rename(`${tmp}/s1.pin`, `${pins}/s1.pin`);
      a = await withDir.start();
      await withDir.append(s1Url, 1);
      const r = await withDir.audit.assertAll(a.url);
      console.log(`audit after migration: ${r.heads} heads, ${r.entries} entries, no fork`);
    } finally {
      await h.close();
      await withDir.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
