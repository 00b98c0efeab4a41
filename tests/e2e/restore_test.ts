// The documented backup and restore, end to end on a rotated, witnessing log (issue 27; docs/
// OPERATIONS.md "Backup", "Restore"), real processes and real files throughout: log A (two shards,
// its log key and pin outside the data directory as on a secret mount) is witnessed by service W
// (the witness role); a monitor (`client monitor --once`, its state kept) and the page (Chromium:
// it pins the key and remembers the checkpoint) watch A. `deno task backup` runs under load
// (writers appending), the log goes on; then, writers stopped, the final backups of A and W.
// Refusal first: with the stores moved aside and the pins left in place, restoring the backup
// taken under load (older than the active shard's pin) is refused by `deno task restore`
// (store-behind-signed-head, nothing written), and the same files put back by hand make the start
// refuse with the same code: never a fork. Then both data directories are lost (deleted) and
// restored from the final backups; after the restore the monitor, the page and the witness see
// the same keys and no fork (the witness cosigns the restored log's next checkpoints), and the
// audit of every head ever served (tests/e2e/_heads_audit.ts) passes.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { validEnvelope } from "../../fixtures/app.ts";
import { ROOT, type Service, startService } from "../../fixtures/service.ts";
import { type AppendAnswer, HeadsAudit } from "./_heads_audit.ts";
import { cosigned, freePort } from "./_cosigned.ts";
import { cosignatureVkey } from "../../log/c2sp/note.ts";
import { openDirectory, shardUrl } from "../../log/shards/mod.ts";
import { ed25519GenerateSecret, toHex } from "../../verify/mod.ts";
import { initWitnessKey } from "../../log/sqlite/witness_pin_file.ts";
import { launchChromium } from "../../fixtures/browser.ts";
import { verifyOnPage } from "../web/_log_panel.ts";
import { defaultValidPositives } from "../web/_vectors.ts";

const TOKEN = "restore-admin-token";
const dec = new TextDecoder();

async function task(args: string[], env: Record<string, string>, xdg?: string) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...(xdg ? { XDG_STATE_HOME: xdg } : {}), ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = dec.decode(o.stdout), err = dec.decode(o.stderr);
  return { code: o.code, out, err, what: `exit ${o.code}\n${err}${out}` };
}

/** The last JSON line a command printed. */
const lastJson = (out: string) => JSON.parse(out.trim().split("\n").at(-1)!);

Deno.test({
  name:
    "restore: a rotated, witnessing log backed up under load, lost and restored: monitor, page and witness see no change of key and no fork; an older backup is refused",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-restore-" });
    const secrets = `${tmp}/secrets`, aDir = `${tmp}/a`, wDir = `${tmp}/w`, xdg = `${tmp}/xdg`;
    await Deno.mkdir(secrets, { mode: 0o700 });
    await Deno.mkdir(wDir, { mode: 0o700 });
    await Deno.mkdir(xdg);
    const witSecret = ed25519GenerateSecret();
    const witKey = `${wDir}/witness-key.hex`; // W's key in its data directory: lost with it
    await Deno.writeTextFile(witKey, toHex(witSecret) + "\n", { mode: 0o600 });
    await initWitnessKey(witKey);
    const witnessVkey = cosignatureVkey("w.restore.test/witness", witSecret);
    const portA = freePort(), portW = freePort();
    // A's log key and its pin outside the data directory (JC_KEY_FILE; the pin beside it)
    const aEnv = {
      DATA_DIR: aDir,
      PORT: String(portA),
      JC_LOG_NAME: "a.restore.test/log",
      JC_KEY_FILE: `${secrets}/a-log-key.hex`,
      JC_ADMIN_TOKEN: TOKEN,
      JC_BATCH_AGE_MS: "2",
      JC_WITNESSES: `http://127.0.0.1:${portW} ${witnessVkey}`,
    };
    const audit = new HeadsAudit();
    const services = new Set<Service>();
    const start = async (env: Record<string, string>) => {
      const s = await startService(env);
      services.add(s);
      return s;
    };
    const stop = async (s: Service) => {
      services.delete(s);
      await s.stop("SIGTERM");
    };
    let n = 0;
    const append = async (base: string, body: Uint8Array = validEnvelope(500_000 + n++)) => {
      const r = await fetch(`${base}/v1/log/entries`, {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: body as Uint8Array<ArrayBuffer>,
      });
      assert.equal(r.status, 201);
      await audit.append(await r.json() as AppendAnswer);
    };
    const monitor = async () => {
      const m = await task(
        [
          "client",
          "monitor",
          `http://127.0.0.1:${portA}`,
          "--state",
          `${tmp}/monitor.json`,
          "--once",
        ],
        {},
        xdg,
      );
      assert.equal(m.code, 0, m.what);
      return lastJson(m.out);
    };
    const browser = await launchChromium();
    const [r0, r1] = await defaultValidPositives();
    try {
      let a = await start(aEnv);
      for (let i = 0; i < 5; i++) await append(a.url);
      const rot = await fetch(`${a.url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200);
      const { note, operator_vkey } = await rot.json();
      const d = await openDirectory(note, operator_vkey);
      const [s0, s1] = d.shards;
      const s1Url = shardUrl(a.url, s1.prefix, "").href.replace(/\/$/, "");
      const wEnv = {
        DATA_DIR: wDir,
        PORT: String(portW),
        JC_LOG_NAME: "w.restore.test/log",
        JC_WITNESS_NAME: "w.restore.test/witness",
        JC_WITNESS_LOGS: d.shards.map((s) => s.vkeys.sha256).join(","),
      };
      let w = await start(wEnv);
      for (let i = 0; i < 5; i++) await append(s1Url);
      await append(s1Url, r0);
      await audit.checkpoints(a.url);
      const m1 = await monitor();
      assert.deepEqual(m1.shards.map((s: { id: string }) => s.id), ["s0", "s1"]);
      // The page sees the log: key pinned, checkpoint remembered.
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(a.url + "/");
      await page.waitForSelector("html[data-ready=true]", { state: "attached" });
      let seen = await verifyOnPage(page, r0, ["consistency", "shard"]);
      assert.deepEqual([seen.inclusion, seen.shard, seen.warning], ["verified", "s1", null]);

      // Backup under load: 8 writers append to s1 while `deno task backup` copies.
      let writing = true, during = 0;
      const writers = Array.from({ length: 8 }, async () => {
        while (writing) {
          await append(s1Url);
          during++;
        }
      });
      await new Promise((r) => setTimeout(r, 200));
      const before = during;
      const b1 = await task(["backup", aDir, `${tmp}/backup-1`], aEnv);
      const whileCopying = during - before;
      await new Promise((r) => setTimeout(r, 300)); // the log goes on past the copy
      writing = false;
      await Promise.all(writers);
      assert.equal(b1.code, 0, b1.what);
      const rep1 = JSON.parse(b1.out);
      assert.ok(whileCopying > 0, "no append while the backup ran: not an online copy");
      assert.deepEqual(rep1.shards.map((s: { id: string }) => s.id), ["s0", "s1"]);
      assert.equal(rep1.shards[0].frozen_size, 5);
      assert.ok(rep1.proofs.every((p: Record<string, boolean>) => p.head_in_source && p.fsck_ok));
      console.log(
        `backup under load: ${rep1.shards[1].size} entries in s1, ${whileCopying} appended ` +
          `while copying, ${rep1.copy_ms} ms, ${rep1.bytes} bytes, attempts ${rep1.attempts}`,
      );
      for (const f of ["log-key.hex", "operator-key.hex", "shards.json", "shards/s1/log-key.hex"]) {
        assert.equal((await Deno.stat(`${tmp}/backup-1/${f}`)).mode! & 0o777, 0o600, f);
      }
      assert.equal((await Deno.stat(`${tmp}/backup-1/shards/s1`)).mode! & 0o777, 0o700);
      const cpA = await audit.checkpoints(a.url);
      const m2 = await monitor();
      const s1Size = cpA.get(s1.signer)!.size;
      assert.ok(s1Size > rep1.shards[1].size, "the log went on past the backup under load");
      assert.equal(m2.shards[1].size, s1Size);
      // W cosigned the latest s1 checkpoint; then the final backups (no writer: every head served)
      await cosigned(shardUrl(a.url, s1.prefix, "/log/sha256/checkpoint").href, s1Size, [
        s1.vkeys.sha256,
        witnessVkey,
      ]);
      const b2 = await task(["backup", aDir, `${tmp}/backup-2`], aEnv);
      assert.equal(b2.code, 0, b2.what);
      assert.equal(JSON.parse(b2.out).shards[1].size, s1Size);
      const bw = await task(["backup", wDir, `${tmp}/backup-w`], {});
      assert.equal(bw.code, 0, bw.what);
      const repW = JSON.parse(bw.out);
      assert.equal(repW.witness.pin, true);
      assert.equal(repW.witness.state, true);
      assert.ok(existsSync(`${tmp}/backup-w/witness-key.hex`));
      await stop(a);
      await stop(w);

      // Refused: the stores moved aside, pins left in place; backup-1 is behind s1's pin.
      await Deno.mkdir(`${tmp}/aside/shards/s1`, { recursive: true });
      for (
        const f of [
          "log.sqlite",
          "shards.json",
          "witness.sqlite",
          "shards/s1/log.sqlite",
          "shards/s1/witness.sqlite",
        ]
      ) {
        for (const x of ["", "-wal", "-shm"]) {
          if (existsSync(`${aDir}/${f}${x}`)) {
            await Deno.rename(`${aDir}/${f}${x}`, `${tmp}/aside/${f}${x}`);
          }
        }
      }
      const r1x = await task(["restore", `${tmp}/backup-1`, aDir], aEnv);
      assert.equal(r1x.code, 1, r1x.what);
      assert.match(r1x.err, /\[store-behind-signed-head\]/);
      assert.equal(existsSync(`${aDir}/log.sqlite`), false, "a refused restore writes nothing");
      assert.equal(existsSync(`${aDir}/shards/s1/log.sqlite`), false);
      assert.equal(existsSync(`${aDir}/shards.json`), false);
      // By hand (the files copied, the live pins kept): the start refuses, it never forks.
      for (const f of ["log.sqlite", "shards.json", "shards/s1/log.sqlite"]) {
        await Deno.copyFile(`${tmp}/backup-1/${f}`, `${aDir}/${f}`);
      }
      await assert.rejects(start(aEnv), /store-behind-signed-head/);

      // Lost: both data directories deleted (A's key and pin survive on their own mount).
      await Deno.remove(aDir, { recursive: true });
      await Deno.remove(wDir, { recursive: true });
      const ra = await task(["restore", `${tmp}/backup-2`, aDir], aEnv);
      assert.equal(ra.code, 0, ra.what);
      const restored = JSON.parse(ra.out);
      assert.deepEqual(restored.shards.map((s: { pin: string }) => s.pin), ["kept", "from-backup"]);
      const rw = await task(["restore", `${tmp}/backup-w`, wDir], {});
      assert.equal(rw.code, 0, rw.what);
      assert.equal(JSON.parse(rw.out).witness.pin, "from-backup");
      w = await start(wEnv);
      a = await start(aEnv);
      assert.equal(a.signer, s0.signer);

      // The log goes on; the witness cosigns its next checkpoints (no fork), both shards.
      for (let i = 0; i < 3; i++) await append(s1Url);
      await append(s1Url, r1);
      await cosigned(shardUrl(a.url, s1.prefix, "/log/sha256/checkpoint").href, s1Size + 4, [
        s1.vkeys.sha256,
        witnessVkey,
      ]);
      await cosigned(shardUrl(a.url, s0.prefix, "/log/sha256/checkpoint").href, 5, [
        s0.vkeys.sha256,
        witnessVkey,
      ]);
      // The monitor, against the heads it remembered: same keys, consistent, directory succeeds.
      const m3 = await monitor();
      assert.equal(m3.shards[1].size, s1Size + 4);
      // The page, with the key it pinned and the checkpoint it remembered: no warning.
      seen = await verifyOnPage(page, r1, ["consistency", "shard"]);
      assert.deepEqual(
        [seen.inclusion, seen.consistency, seen.shard, seen.warning],
        ["verified", "verified", "s1", null],
      );
      seen = await verifyOnPage(page, r0, ["consistency", "shard"]);
      assert.deepEqual([seen.inclusion, seen.warning], ["verified", null]);
      await ctx.close();
      const r = await audit.assertAll(a.url);
      console.log(`audit: ${r.heads} heads, ${r.entries} acknowledged entries, no fork`);
    } finally {
      await browser.close();
      for (const s of services) await s.stop("SIGKILL");
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
