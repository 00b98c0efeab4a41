// State that may not go backwards (issue 27) over real processes and real files: a log's store
// deleted, truncated, rolled back or replaced by an empty directory while its key (and pin) stay;
// the same for the active shard after a rotation; shards.json deleted or older; an unlisted shard
// holding entries; missing log and operator keys; a key file others may read; umask 000. Each
// time the service refuses to start with the stable code on stderr, and once the right files are
// back it starts, and the audit of every head ever served finds no fork and every acknowledged
// entry proven (tests/e2e/_heads_audit.ts).
import assert from "node:assert/strict";
import { ROOT, type Service, startService } from "../../fixtures/service.ts";
import { HeadsAudit } from "./_heads_audit.ts";
import { validEnvelope } from "../../fixtures/app.ts";
import { shardUrl } from "../../log/shards/mod.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };
const TOKEN = "test-admin-token-0123456789";
let serial = 0;

/** Appends `n` new entries to the active shard (following its 409), recording every answer. */
async function appendSome(svc: Service, audit: HeadsAudit, n: number): Promise<void> {
  let prefix = "/";
  for (let i = 0; i < n; i++) {
    const body = validEnvelope(500_000 + serial++);
    const post = () =>
      fetch(shardUrl(svc.url, prefix, "/v1/log/entries"), {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body,
      });
    let r = await post();
    if (r.status === 409) {
      prefix = (await r.json()).active.prefix;
      r = await post();
    }
    assert.equal(r.status, 201, await r.clone().text());
    await audit.append(await r.json());
  }
  await audit.checkpoints(svc.url);
}

/**
 * Starts the service expecting a refusal: its stderr. A service that starts listening instead is
 * stopped and the test fails (without the fix, it serves a forked log).
 */
async function refused(env: Record<string, string>): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "start"],
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1", NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const err = new Response(child.stderr).text();
  const first = await child.stdout.getReader().read();
  if (!first.done) {
    const line = new TextDecoder().decode(first.value);
    Deno.kill(JSON.parse(line.split("\n")[0]).pid, "SIGKILL");
    await child.status;
    throw new Error(`the service started instead of refusing: ${line}`);
  }
  assert.notEqual((await child.status).code, 0);
  return await err;
}

async function expectCode(env: Record<string, string>, code: string): Promise<string> {
  const err = await refused(env);
  assert.ok(err.includes(`[${code}]`), `expected ${code}, stderr: ${err}`);
  return err;
}

/** Copies every file of a store (`log.sqlite` and its WAL, if any) from `from` to `to`. */
async function copyStore(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for (const f of ["log.sqlite", "log.sqlite-wal", "log.sqlite-shm"]) {
    await Deno.remove(`${to}/${f}`).catch(() => {});
    await Deno.copyFile(`${from}/${f}`, `${to}/${f}`).catch(() => {});
  }
}

async function removeStore(dir: string): Promise<void> {
  for (const f of ["log.sqlite", "log.sqlite-wal", "log.sqlite-shm"]) {
    await Deno.remove(`${dir}/${f}`).catch(() => {});
  }
}

Deno.test({
  ...opts,
  name: "pin: s0's store deleted, truncated, rolled back or elsewhere refuses; restored, no fork",
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-pin-" });
    const data = `${tmp}/data`;
    const env = { DATA_DIR: data };
    const audit = new HeadsAudit();
    try {
      let svc = await startService(env);
      await appendSome(svc, audit, 3);
      await svc.stop();
      await copyStore(data, `${tmp}/old`); // 3 entries
      svc = await startService(env);
      await appendSome(svc, audit, 3);
      await svc.stop();
      await copyStore(data, `${tmp}/latest`); // 6 entries
      // a rollback: the older copy
      await removeStore(data);
      await copyStore(`${tmp}/old`, data);
      await expectCode(env, "store-behind-signed-head");
      // truncated to 0 bytes
      await removeStore(data);
      await Deno.writeFile(`${data}/log.sqlite`, new Uint8Array(0));
      await expectCode(env, "store-behind-signed-head");
      // deleted
      await removeStore(data);
      const err = await expectCode(env, "store-behind-signed-head");
      assert.match(err, /log\.sqlite/, "the message names the store");
      assert.equal((await Deno.stat(`${data}/log-key.hex`)).isFile, true);
      // an empty data directory, the key (and its pin) where they were
      await expectCode(
        { DATA_DIR: `${tmp}/empty`, JC_KEY_FILE: `${data}/log-key.hex` },
        "store-behind-signed-head",
      );
      // the latest store back: it opens, appends go on, nothing signed twice
      await copyStore(`${tmp}/latest`, data);
      svc = await startService(env);
      await appendSome(svc, audit, 2);
      const r = await audit.assertAll(svc.url);
      assert.equal(r.entries, 8);
      console.log(`audit: ${r.heads} heads, ${r.entries} entries proven`);
      await svc.stop();
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name: "pin: keys: a log key missing beside its store, a missing operator key, a 0644 key",
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-pin-keys-" });
    const data = `${tmp}/data`;
    const env = { DATA_DIR: data };
    const audit = new HeadsAudit();
    try {
      let svc = await startService(env);
      await appendSome(svc, audit, 2);
      await svc.stop();
      const key = await Deno.readFile(`${data}/log-key.hex`);
      await Deno.remove(`${data}/log-key.hex`);
      await expectCode(env, "log-key-missing");
      await Deno.writeFile(`${data}/log-key.hex`, key, { mode: 0o600 });
      const op = await Deno.readFile(`${data}/operator-key.hex`);
      await Deno.remove(`${data}/operator-key.hex`);
      const err = await expectCode(env, "operator-key-missing");
      assert.match(err, /operator key/);
      assert.doesNotMatch(err, /log key/);
      await Deno.writeFile(`${data}/operator-key.hex`, op, { mode: 0o600 });
      await Deno.chmod(`${data}/log-key.hex`, 0o644);
      await expectCode(env, "key-file-permissions");
      await Deno.chmod(`${data}/log-key.hex`, 0o600);
      await Deno.chmod(`${data}/operator-key.hex`, 0o640);
      assert.match(await expectCode(env, "key-file-permissions"), /operator key/);
      await Deno.chmod(`${data}/operator-key.hex`, 0o600);
      svc = await startService(env);
      await appendSome(svc, audit, 1);
      assert.equal((await audit.assertAll(svc.url)).entries, 3);
      await svc.stop();
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name: "pin: under umask 000 the data directory is 0700 and key and pin files 0600",
  ignore: Deno.build.os === "windows",
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-pin-umask-" });
    const data = `${tmp}/data`;
    try {
      const child = new Deno.Command("sh", {
        args: ["-c", `umask 000 && exec "${Deno.execPath()}" task -q start`],
        cwd: ROOT,
        env: { PORT: "0", HOST: "127.0.0.1", NO_COLOR: "1", DATA_DIR: data },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.getReader();
      const { value } = await reader.read();
      const hello = JSON.parse(new TextDecoder().decode(value).split("\n")[0]);
      Deno.kill(hello.pid, "SIGTERM");
      await child.status;
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
      assert.equal((await Deno.stat(data)).mode! & 0o777, 0o700);
      for (const f of ["log-key.hex", "log-key.hex.pin", "operator-key.hex"]) {
        assert.equal((await Deno.stat(`${data}/${f}`)).mode! & 0o777, 0o600, f);
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

async function rotate(url: string): Promise<void> {
  const r = await fetch(`${url}/v1/logs/rotate`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(r.status, 200, await r.text());
}

Deno.test({
  ...opts,
  name: "pin: shards: the active shard's store, shards.json lost or older, an unlisted shard",
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-pin-shards-" });
    const data = `${tmp}/data`;
    const env = { DATA_DIR: data, JC_ADMIN_TOKEN: TOKEN };
    const audit = new HeadsAudit();
    try {
      let svc = await startService(env);
      await appendSome(svc, audit, 3);
      const state0 = await Deno.readFile(`${data}/shards.json`);
      await rotate(svc.url);
      await appendSome(svc, audit, 3); // to s1, the active shard
      await svc.stop();
      const s1 = `${data}/shards/s1`;
      await copyStore(s1, `${tmp}/s1-latest`);
      const state1 = await Deno.readFile(`${data}/shards.json`);
      // the active shard's store deleted, then truncated
      await removeStore(s1);
      await expectCode(env, "store-behind-signed-head");
      await Deno.writeFile(`${s1}/log.sqlite`, new Uint8Array(0));
      await expectCode(env, "store-behind-signed-head");
      await copyStore(`${tmp}/s1-latest`, s1);
      // shards.json deleted: nothing moved aside, s0 not reopened
      await Deno.remove(`${data}/shards.json`);
      await expectCode(env, "shards-state-missing");
      // an older shards.json (before the rotation): s1 holds entries it does not list
      await Deno.writeFile(`${data}/shards.json`, state0);
      await expectCode(env, "shard-unlisted");
      // and with s1 out of the way, s0's own store says frozen where the state says active
      await Deno.rename(s1, `${tmp}/s1-aside`);
      await expectCode(env, "shards-state-behind");
      await Deno.rename(`${tmp}/s1-aside`, s1);
      await Deno.writeFile(`${data}/shards.json`, state1);
      // an unlisted shard folder holding entries (a copy of s1 as s2)
      await Deno.mkdir(`${data}/shards/s2`);
      await copyStore(s1, `${data}/shards/s2`);
      await Deno.copyFile(`${s1}/log-key.hex`, `${data}/shards/s2/log-key.hex`);
      await expectCode(env, "shard-unlisted");
      assert.equal((await Deno.stat(`${data}/shards/s2/log.sqlite`)).isFile, true, "not moved");
      await Deno.remove(`${data}/shards/s2`, { recursive: true });
      // a listed shard's key missing: never a new identity
      await Deno.rename(`${s1}/log-key.hex`, `${tmp}/s1-key`);
      await expectCode(env, "log-key-missing");
      await Deno.rename(`${tmp}/s1-key`, `${s1}/log-key.hex`);
      await Deno.stat(`${data}/shards/discarded`).then(
        () => assert.fail("nothing may be moved aside"),
        () => {},
      );
      // everything back: both shards serve, nothing signed twice, every entry proven
      svc = await startService(env);
      await appendSome(svc, audit, 2);
      const r = await audit.assertAll(svc.url);
      assert.equal(r.entries, 8);
      console.log(`audit: ${r.heads} heads, ${r.entries} entries proven over two shards`);
      await svc.stop();
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name: "pin: a data directory written before pins (schema 3 fixture) opens and is pinned",
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-pin-upgrade-" });
    const data = `${tmp}/data`;
    try {
      await Deno.mkdir(data);
      await Deno.copyFile(`${ROOT}tests/log/fixtures/schema3/log.sqlite`, `${data}/log.sqlite`);
      await Deno.writeTextFile(`${data}/log-key.hex`, "07".repeat(32) + "\n", { mode: 0o600 });
      const env = { DATA_DIR: data };
      const audit = new HeadsAudit();
      let svc = await startService(env);
      const cps = await audit.checkpoints(svc.url);
      assert.equal([...cps.values()][0].size, 4200);
      await svc.stop();
      assert.equal((await Deno.stat(`${data}/log-key.hex.pin`)).isFile, true, "pinned at start");
      svc = await startService(env);
      await appendSome(svc, audit, 1);
      await audit.assertAll(svc.url);
      await svc.stop();
      // from now on a rollback to the fixture is refused
      await removeStore(data);
      await Deno.copyFile(`${ROOT}tests/log/fixtures/schema3/log.sqlite`, `${data}/log.sqlite`);
      await expectCode(env, "store-behind-signed-head");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
