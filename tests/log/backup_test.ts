// `deno task backup` end to end (issue 16): a copy taken while the real service (`deno task
// start`) appends under 16 concurrent clients; the copy opens, fsck is clean, and its latest head
// is a signed head of the source (the source's GET /v1/log/tree-heads/{size} answers the same
// head); restored (the service started on the copy) it serves the same head and appends again.
// Also: --help prints the usage with exit 0; a destination that already holds a store is refused.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startService } from "../../fixtures/service.ts";
import { validEnvelope } from "../../fixtures/app.ts";

const ROOT = new URL("../../", import.meta.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function task(args: string[]) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "backup", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: o.code,
    out: new TextDecoder().decode(o.stdout),
    err: new TextDecoder().decode(o.stderr),
  };
}

Deno.test("deno task backup --help: usage, exit 0", async () => {
  const r = await task(["--help"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Usage: deno task backup DATA_DIR DEST/);
  assert.match(r.out, /Restore/);
  const bad = await task(["only-one-arg"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /Usage: deno task backup/);
});

Deno.test("deno task backup: online copy while appending; fsck clean; its head is the source's; restore serves it", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-backup-" });
  const data = `${tmp}/data`, dest = `${tmp}/copy`;
  const svc = await startService({ DATA_DIR: data, JC_BATCH_AGE_MS: "2" });
  let copySize = 0, copyRoot = "";
  try {
    for (let i = 0; i < 50; i++) {
      const r = await fetch(svc.url + "/v1/log/entries", {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: validEnvelope(70_000 + i),
      });
      assert.equal(r.status, 201);
      await r.body?.cancel();
    }
    let stop = false, n = 0, appended = 0;
    const writers = Array.from({ length: 16 }, async (_, w) => {
      while (!stop) {
        const r = await fetch(svc.url + "/v1/log/entries", {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: validEnvelope(100_000 + w * 100_000 + n++),
        });
        assert.equal(r.status, 201);
        await r.body?.cancel();
        appended++;
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    const before = appended;
    const res = await task([data, dest]);
    const during = appended - before;
    stop = true;
    await Promise.all(writers);
    assert.equal(res.code, 0, res.err + res.out);
    const report = JSON.parse(res.out);
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    assert.equal(report.proofs[0].fsck_ok, true);
    assert.equal(report.proofs[0].head_in_source, true);
    assert.equal(report.proofs[0].pin_ok, true);
    assert.ok(during > 0, "no append happened while the backup ran: not an online copy");
    copySize = report.shards[0].size;
    copyRoot = report.shards[0].root;
    assert.ok(report.shards[0].pin.size <= copySize, "the pin copied is reached by the copy");
    assert.ok(copySize >= 50);
    // The copy's head is a signed head of the running source.
    const h = await (await fetch(`${svc.url}/v1/log/tree-heads/${copySize}`)).json();
    assert.equal(h.root, copyRoot);
    const latest = await (await fetch(`${svc.url}/v1/log/tree-head`)).json();
    assert.ok(latest.size > copySize, "the source went on appending past the copy");
    // A second backup into the same destination is refused, the copy untouched.
    const again = await task([data, dest]);
    assert.equal(again.code, 2);
    assert.match(again.err, /already exists/);
    const mode = (await Deno.stat(`${dest}/log-key.hex`)).mode! & 0o777;
    assert.equal(mode, 0o600);
  } finally {
    await svc.stop("SIGTERM");
  }
  // Restore: the service started on the copy serves the copy's head, signed by the same key.
  const restored = await startService({ DATA_DIR: dest });
  try {
    assert.equal(restored.signer, svc.signer);
    const head = await (await fetch(`${restored.url}/v1/log/tree-head`)).json();
    assert.equal(head.size, copySize);
    assert.equal(head.root, copyRoot);
    const r = await fetch(restored.url + "/v1/log/entries", {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: validEnvelope(9_999_999),
    });
    assert.equal(r.status, 201);
    assert.equal((await r.json()).index, copySize);
  } finally {
    await restored.stop("SIGTERM");
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("deno task backup: rotations during the copy; the copy holds exactly the shards its shards.json lists and opens", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-backup-rot-" });
  const data = `${tmp}/data`;
  // a rotation every 40 entries under 8 writers: several during each copy
  const svc = await startService({ DATA_DIR: data, JC_BATCH_AGE_MS: "2", JC_SHARD_MAX_SIZE: "40" });
  const reports: { shards: { id: string; size: number; root: string; frozen_size: number }[] }[] =
    [];
  // Writers pause once a rotation happened during a copy, until that backup ends: its next
  // attempt then sees no rotation, so the backup converges whatever the machine's load (a
  // rotation on every retry, as 8 writers on 40-entry shards could, would be a log filling a
  // shard faster than one shard copies).
  let stop = false, paused = false, n = 0;
  try {
    const active = async () => {
      const d = await (await fetch(`${svc.url}/v1/logs`)).json();
      return d.directory.shards.at(-1).prefix as string;
    };
    const writers = Array.from({ length: 8 }, async (_, w) => {
      while (!stop) {
        if (paused) {
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        const prefix = await active();
        const r = await fetch(`${svc.url}${prefix === "/" ? "" : prefix}/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: validEnvelope(3_000_000 + w * 100_000 + n++),
        });
        assert.ok(r.status === 201 || r.status === 409, `append ${r.status}`);
        await r.body?.cancel();
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    let attempts = 0;
    const shardCount = async () =>
      (await (await fetch(`${svc.url}/v1/logs`)).json()).directory.shards.length as number;
    for (let i = 0; i < 3; i++) {
      paused = false;
      let done = false;
      const copying = task([data, `${tmp}/copy-${i}`]).finally(() => done = true);
      // once the copy has begun (its .partial exists), run on until the next rotation
      while (!done && !existsSync(`${tmp}/copy-${i}.partial`)) await sleep(5);
      for (const n0 = await shardCount(); !done && await shardCount() === n0;) await sleep(5);
      paused = true;
      const res = await copying;
      assert.equal(res.code, 0, res.err + res.out);
      const rep = JSON.parse(res.out);
      assert.equal(rep.ok, true);
      attempts += rep.attempts;
      reports.push(rep);
    }
    stop = true;
    await Promise.all(writers);
    const last = reports.at(-1)!;
    assert.ok(last.shards.length >= 2, "no rotation happened before the last copy");
    console.log(
      `3 copies while rotating: shards ${reports.map((r) => r.shards.length).join(", ")}, ` +
        `attempts ${attempts}`,
    );
    // each frozen shard is at its final size; each copy's head is one the source signed
    for (const rep of reports) {
      for (const s of rep.shards) {
        if (s.frozen_size !== null) assert.equal(s.size, s.frozen_size);
        const prefix = s.id === "s0" ? "" : `/shards/${s.id}`;
        const h = await (await fetch(`${svc.url}${prefix}/v1/log/tree-heads/${s.size}`)).json();
        assert.equal(h.root, s.root, `${s.id} at ${s.size}`);
      }
    }
  } finally {
    stop = true;
    await svc.stop("SIGTERM");
  }
  try {
    // Each copy, started as it is: it opens (no shard-unlisted, no shards-state-behind) and
    // serves its copied heads.
    for (const [i, rep] of reports.entries()) {
      const s = await startService({ DATA_DIR: `${tmp}/copy-${i}` });
      try {
        const d = await (await fetch(`${s.url}/v1/logs`)).json();
        assert.deepEqual(
          d.directory.shards.map((x: { id: string; size: number }) => [x.id, x.size]),
          rep.shards.map((x) => [x.id, x.size]),
        );
      } finally {
        await s.stop("SIGTERM");
      }
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
