// The client over tiles, against static logs and mirrors served by python3 -m http.server (not
// our code): `prove` and `monitor` verify from tiles (both views), `mirror` copies a log
// incrementally and refuses a fork (exit 3), a mirror interrupted at random points and resumed is
// byte for byte the one made in one go, and the mirror is itself a complete log on which `prove`,
// `monitor` and `verify-proof` (offline) work.
import assert from "node:assert/strict";
import fc from "fast-check";
import { runClient } from "../../fixtures/service.ts";
import { c2sp } from "../../log/mod.ts";
import { mirrorLog } from "../../client/mirror.ts";
import { fsMirrorStore } from "../../client/mirror_fs.ts";
import { TileClient } from "../../client/tiles.ts";
import { toHex } from "../../verify/mod.ts";
import { entryOf, serveDir, STATIC_SECRET, staticLog, vkeyOf, writeFiles } from "./_static.ts";

const VK = vkeyOf("sha256");

async function listFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      if (e.isDirectory) await walk(`${d}/${e.name}`, `${rel}${e.name}/`);
      else out.set(`${rel}${e.name}`, c2sp.toBase64(await Deno.readFile(`${d}/${e.name}`)));
    }
  };
  await walk(dir, "");
  return out;
}

/** Replaces the whole content of `dir` with `files` (the remote log changes). */
async function replaceLog(dir: string, files: Map<string, Uint8Array>) {
  await Deno.remove(`${dir}/log`, { recursive: true }).catch(() => {});
  await writeFiles(dir, files);
}

const json = (s: string) => JSON.parse(s.trim().split("\n").at(-1)!);

Deno.test("client: prove and monitor from tiles; mirror; the mirror is a complete log", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-client-tiles-" });
  const remoteDir = `${tmp}/remote`;
  await writeFiles(remoteDir, staticLog(700, [300, 700]));
  const remote = await serveDir(remoteDir);
  try {
    // prove from tiles, both views, with the vkey of either view.
    const p = await runClient(["prove", "517", "--url", remote.url, "--log-key", VK]);
    assert.equal(p.code, 0, p.stderr);
    const r = json(p.stdout);
    assert.equal(r.from, "tiles");
    assert.equal(r.views.blake3.size, 700);
    assert.equal(r.views.sha256.size, 700);
    // A wrong key: the checkpoint does not verify (exit 2).
    const other = c2sp.ed25519Vkey("static.example/jc/blake3", new Uint8Array(32).fill(5));
    const bad = await runClient(["prove", "5", "--url", remote.url, "--log-key", other]);
    assert.equal(bad.code, 3, bad.stderr);
    assert.match(bad.stderr, /CHECK FAILED.*note-unverified/);
    // Beyond the tree: a not-found (exit 1, issue 28), neither a failed check nor a crash.
    const past = await runClient(["prove", "700", "--url", remote.url, "--log-key", VK]);
    assert.equal(past.code, 1, past.stderr);
    assert.match(past.stderr, /^Cannot prove entry 700: not found/);

    // mirror, then the mirror behind another static server.
    const mirrorDir = `${tmp}/mirror`;
    const m = await runClient(["mirror", remote.url, mirrorDir, "--log-key", VK]);
    assert.equal(m.code, 0, m.stderr);
    const mr = json(m.stdout);
    assert.equal(mr.views.blake3.size, 700);
    assert.equal(mr.bound, true);
    const files = await listFiles(mirrorDir);
    assert.equal(
      files.get("log/sha256/checkpoint"),
      await listFiles(remoteDir).then((f) => f.get("log/sha256/checkpoint")),
    );
    const mirror = await serveDir(mirrorDir);
    try {
      const state = `${tmp}/monitor.json`;
      const mon = await runClient([
        "monitor",
        mirror.url,
        "--log-key",
        VK,
        "--state",
        state,
        "--once",
      ]);
      assert.equal(mon.code, 0, mon.stderr);
      const proofFile = `${tmp}/e517.tlog-proof`;
      const pm = await runClient([
        "prove",
        "517",
        "--url",
        mirror.url,
        "--log-key",
        VK,
        "--tlog-proof",
        proofFile,
        "--view",
        "sha256",
      ]);
      assert.equal(pm.code, 0, pm.stderr);
      assert.deepEqual(json(pm.stdout).views, r.views);
      // verify-proof: offline (no --url, nothing served is asked).
      // The static log's entries are text, not COSE: given as {"envelope": hex}, a form every
      // envelope reader of the client takes (client/envelope_file.ts).
      const receipt = `${tmp}/e517.json`;
      await Deno.writeTextFile(receipt, JSON.stringify({ envelope: toHex(entryOf(517)) }));
      const v = await runClient([
        "verify-proof",
        receipt,
        proofFile,
        "--log-key",
        vkeyOf("blake3"),
      ]);
      assert.equal(v.code, 0, v.stderr);
      assert.equal(json(v.stdout).index, 517);
      assert.equal(json(v.stdout).view, "sha256");
      await Deno.writeTextFile(receipt, JSON.stringify({ envelope: toHex(entryOf(518)) }));
      const v2 = await runClient(["verify-proof", receipt, proofFile, "--log-key", VK]);
      assert.equal(v2.code, 3);
      assert.match(v2.stderr, /tlog-proof-bad-inclusion/);

      // The remote grows (same history): mirror fetches only what is new; monitor follows.
      await replaceLog(remoteDir, staticLog(1500, [300, 700, 1500]));
      const m2 = await runClient(["mirror", remote.url, mirrorDir, "--log-key", VK]);
      assert.equal(m2.code, 0, m2.stderr);
      const r2 = json(m2.stdout);
      assert.equal(r2.views.sha256.from, 700);
      assert.equal(r2.views.sha256.size, 1500);
      const mon2 = await runClient([
        "monitor",
        remote.url,
        "--log-key",
        VK,
        "--state",
        state,
        "--once",
      ]);
      assert.equal(mon2.code, 0, mon2.stderr);
      // The remote forks (entry 10 rewritten): mirror and monitor alarm, exit 3; nothing written.
      const before = await listFiles(mirrorDir);
      const forked = Array.from(
        { length: 1600 },
        (_, i) => (i === 10 ? new Uint8Array([9]) : entryOf(i)),
      );
      await replaceLog(remoteDir, staticLog(1600, undefined, STATIC_SECRET, forked));
      const m3 = await runClient(["mirror", remote.url, mirrorDir, "--log-key", VK]);
      assert.equal(m3.code, 3, m3.stderr);
      assert.match(m3.stderr, /ALARM: .*does not extend/);
      assert.deepEqual(await listFiles(mirrorDir), before);
      const mon3 = await runClient([
        "monitor",
        remote.url,
        "--log-key",
        VK,
        "--state",
        state,
        "--once",
      ]);
      assert.equal(mon3.code, 3, mon3.stderr);
      assert.match(mon3.stderr, /ALARM/);
    } finally {
      await mirror.close();
    }
  } finally {
    await remote.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("mirror: interrupted at random points and resumed equals one made in one go, byte for byte", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-mirror-resume-" });
  await writeFiles(`${tmp}/remote`, staticLog(2100, [1000, 2100]));
  const remote = await serveDir(`${tmp}/remote`);
  try {
    const once = `${tmp}/once`;
    const c0 = new TileClient(remote.url, VK);
    const r0 = await mirrorLog(c0, fsMirrorStore(once));
    assert.equal(r0.views.blake3.size, 2100);
    const want = await listFiles(once);
    // A second run fetches nothing but the two checkpoints.
    const again = new TileClient(remote.url, VK);
    const r1 = await mirrorLog(again, fsMirrorStore(once));
    assert.equal(again.fetches, 0);
    assert.equal(r1.views.sha256.written, 0);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 4 }),
        async (cuts) => {
          const dir = `${tmp}/resumed-${run++}`;
          for (const cut of cuts) {
            let n = 0;
            const failing: typeof fetch = (input, init) =>
              n++ >= cut
                ? Promise.reject(new TypeError("connection reset (injected)"))
                : fetch(input, init);
            const c = new TileClient(remote.url, VK, { fetch: failing });
            await mirrorLog(c, fsMirrorStore(dir)).catch(() => {});
          }
          await mirrorLog(new TileClient(remote.url, VK), fsMirrorStore(dir));
          assert.deepEqual(await listFiles(dir), want);
        },
      ),
      { numRuns: 6 },
    );
  } finally {
    await remote.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("mirror: SIGKILLed at random moments and resumed equals one made in one go, byte for byte", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-mirror-kill-" });
  await writeFiles(`${tmp}/remote`, staticLog(20_000, [5_000, 20_000]));
  const remote = await serveDir(`${tmp}/remote`);
  try {
    await mirrorLog(new TileClient(remote.url, VK), fsMirrorStore(`${tmp}/once`));
    const want = await listFiles(`${tmp}/once`);
    const dir = `${tmp}/killed`;
    const delays = Array.from({ length: 4 }, () => 300 + Math.floor(Math.random() * 2500));
    for (const ms of delays) {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("../../client/main.ts", import.meta.url).pathname,
          "mirror",
          remote.url,
          dir,
          "--log-key",
          VK,
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      const t = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already done */ }
      }, ms);
      await child.status;
      clearTimeout(t);
    }
    const last = await runClient(["mirror", remote.url, dir, "--log-key", VK]);
    assert.equal(last.code, 0, last.stderr);
    assert.deepEqual(await listFiles(dir), want, `killed after ${delays.join(", ")} ms`);
  } finally {
    await remote.close();
    await Deno.remove(tmp, { recursive: true });
  }
});
