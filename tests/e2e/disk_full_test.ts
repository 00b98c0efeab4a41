// A full disk, end to end (issue 16): the real service (`deno task start`, SQLite) with its data
// directory on a 3 MiB tmpfs, appended to until the filesystem is full. While the store refuses
// writes every append is answered 503 `storage-unavailable` with Retry-After, /healthz reports
// degraded (503, failing check `storage-write`), and reads (entries, proofs, heads) are still
// served. Once space returns (`mount -o remount,size=64m`) /healthz is ok again and appends are
// accepted; after the run nothing acknowledged is lost and `deno task fsck` is clean. The tmpfs
// is always unmounted. Where mounting is refused (not root, no CAP_SYS_ADMIN) the same outcomes
// are checked on the memory store's fault injection (`full`), and the test says so loudly.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { testApp, validEnvelope } from "../../fixtures/app.ts";
import { createMemoryStore, openLog } from "../../log/mod.ts";
import { entryLeafHash, toHex } from "../../verify/mod.ts";

const COSE = { "content-type": "application/cose" };

async function sh(cmd: string[]): Promise<{ code: number; err: string }> {
  const o = await new Deno.Command(cmd[0], { args: cmd.slice(1), stderr: "piped", stdout: "null" })
    .output();
  return { code: o.code, err: new TextDecoder().decode(o.stderr) };
}

/** Polls `f` until it answers true or `ms` pass. */
async function until(f: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await f()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

Deno.test("disk full (tmpfs): 503 + Retry-After, /healthz degraded, reads served, recovery, nothing lost, fsck clean", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-diskfull-" });
  const mounted = await sh(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", dir]);
  if (mounted.code !== 0) {
    console.error(
      `\n!!! disk-full test: cannot mount a tmpfs (${mounted.err.trim()}); ` +
        "checking the same outcomes on the memory store's injected full disk instead !!!\n",
    );
    await Deno.remove(dir, { recursive: true });
    await memoryFallback();
    return;
  }
  try {
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const acked = new Map<string, number>(); // leaf hash → index
    try {
      // Append until the filesystem is full: 32 at a time until a whole round is refused (503),
      // then one at a time until three in a row are (a nearly full disk still takes small batches).
      let n = 0, refused: Response | undefined, full = false, streak = 0;
      for (let round = 0; round < 2000 && !full; round++) {
        const size = refused ? 1 : 32;
        const envs = Array.from({ length: size }, () => validEnvelope(500_000 + n++));
        const answers = await Promise.all(envs.map(async (e) => {
          const r = await fetch(svc.url + "/v1/log/entries", {
            method: "POST",
            headers: COSE,
            body: e,
          });
          return { e, r, body: await r.json() };
        }));
        for (const a of answers) {
          if (a.r.status === 201) acked.set(a.body.leaf_hash, a.body.index);
          else {
            assert.equal(a.r.status, 503, JSON.stringify(a.body));
            assert.equal(a.body.code, "storage-unavailable");
            assert.ok(Number(a.r.headers.get("retry-after")) >= 1, "Retry-After");
            refused = a.r;
          }
        }
        if (size === 1) streak = answers[0].r.status === 503 ? streak + 1 : 0;
        full = streak >= 3;
      }
      assert.ok(refused, "the 3 MiB filesystem never filled");
      assert.ok(acked.size > 100, `only ${acked.size} appends before the disk was full`);

      // Still full: another append is refused the same way; /healthz says degraded.
      const again = await fetch(svc.url + "/v1/log/entries", {
        method: "POST",
        headers: COSE,
        body: validEnvelope(900_000),
      });
      const againBody = await again.json();
      assert.equal(again.status, 503, JSON.stringify(againBody));
      assert.equal(againBody.code, "storage-unavailable");
      assert.ok(again.headers.get("retry-after"));
      const hz = await fetch(svc.url + "/healthz");
      const hzBody = await hz.json();
      assert.equal(hz.status, 503, JSON.stringify(hzBody));
      assert.equal(hzBody.health, "degraded");
      assert.equal(hzBody.failing, "storage-write");
      assert.ok(hz.headers.get("retry-after"));

      // Reads are served: the head, acknowledged entries and their proofs.
      const head = await (await fetch(svc.url + "/v1/log/tree-head")).json();
      assert.ok(head.size >= acked.size);
      for (const index of [...acked.values()].slice(-5)) {
        const e = await fetch(`${svc.url}/v1/log/entries/${index}`);
        assert.equal(e.status, 200);
        await e.body?.cancel();
        const p = await fetch(
          `${svc.url}/v1/log/proof/inclusion?index=${index}&size=${head.size}`,
        );
        assert.equal(p.status, 200);
        await p.body?.cancel();
      }

      // Space returns: /healthz is ok again (its write probe succeeds), appends are accepted.
      const grown = await sh(["mount", "-o", "remount,size=64m", dir]);
      assert.equal(grown.code, 0, grown.err);
      assert.ok(
        await until(async () => {
          const r = await fetch(svc.url + "/healthz");
          await r.body?.cancel();
          return r.status === 200;
        }, 10_000),
        "/healthz did not recover",
      );
      const later = await Promise.all(
        [900_000, 900_001, 900_002].map((k) =>
          fetch(svc.url + "/v1/log/entries", {
            method: "POST",
            headers: COSE,
            body: validEnvelope(k),
          }).then(async (r) => ({ status: r.status, body: await r.json() }))
        ),
      );
      for (const l of later) {
        assert.ok(l.status === 201 || l.status === 200, JSON.stringify(l.body));
        acked.set(l.body.leaf_hash, l.body.index);
      }
    } finally {
      await svc.stop("SIGTERM");
    }
    // Nothing acknowledged is lost (reopened by a fresh process), and fsck is clean.
    const svc2 = await startService({ DATA_DIR: dir });
    try {
      for (const [leaf, index] of acked) {
        const r = await fetch(`${svc2.url}/v1/log/entries/${index}`, {
          headers: { accept: "application/cose" },
        });
        assert.equal(r.status, 200, `acknowledged entry ${index} lost`);
        assert.equal(toHex(entryLeafHash(new Uint8Array(await r.arrayBuffer()))), leaf);
      }
    } finally {
      await svc2.stop("SIGTERM");
    }
    const fsck = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "fsck", dir],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(
      fsck.code,
      0,
      new TextDecoder().decode(fsck.stdout) + new TextDecoder().decode(fsck.stderr),
    );
  } finally {
    const u = await sh(["umount", dir]);
    if (u.code !== 0) await sh(["umount", "-l", dir]);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

/** The same outcomes where no tmpfs can be mounted: the memory store's injected full disk. */
async function memoryFallback(): Promise<void> {
  const store = createMemoryStore();
  const log = await openLog(store, { secretKey: new Uint8Array(32).fill(3), batchAgeMs: 1 });
  const { app } = await testApp({}, () => log);
  const post = (n: number) =>
    app.request("/v1/log/entries", { method: "POST", headers: COSE, body: validEnvelope(n) });
  const first = await post(1);
  assert.equal(first.status, 201);
  store.full = true;
  const r = await post(2);
  assert.equal(r.status, 503);
  assert.equal((await r.json()).code, "storage-unavailable");
  assert.ok(r.headers.get("retry-after"));
  const hz = await app.request("/healthz");
  assert.equal(hz.status, 503);
  assert.equal((await hz.json()).failing, "storage-write");
  assert.equal((await app.request("/v1/log/entries/0")).status, 200);
  store.full = false;
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal((await app.request("/healthz")).status, 200);
  assert.equal((await post(2)).status, 201);
}

Deno.test(
  "disk full (memory store's injected fault): the same outcomes over the app",
  memoryFallback,
);
