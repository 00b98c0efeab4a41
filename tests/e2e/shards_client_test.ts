// Clients follow the shard directory (docs/SHARDS.md, docs/CLIENTS.md "Shards"), over real HTTP on
// 127.0.0.1: real embedded services as shards behind the sharded front of tests/e2e/_sharded.ts.
// `client submit` appends to the active shard and follows one 409 shard-frozen (never two);
// `head`/`prove` pick a shard; the operator key is trusted on first use and a different one
// refused; `monitor` checks every shard and the directory's succession, alarming with a stable
// code on each violation and passing a legitimate rotation; a service without /v1/logs (404) is
// one log, as before.
import assert from "node:assert/strict";
import { c2sp } from "../../log/mod.ts";
import { didKeyFromPublicKey, ed25519PublicKey } from "../../verify/mod.ts";
import { LogClient } from "../../client/mod.ts";
import type { Directory } from "../../log/shards/mod.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { ROOT } from "../../fixtures/service.ts";
import { type Sharded, startSharded } from "./_sharded.ts";
import { serveDir } from "../publication/_static.ts";

/** `deno task client …` with its own state directory (operators.json, monitor.json). */
async function cli(args: string[], stateHome: string) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${ROOT}client/main.ts`, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", XDG_STATE_HOME: stateHome },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  const stdout = dec.decode(o.stdout), stderr = dec.decode(o.stderr);
  const last = stdout.trim().split("\n").at(-1);
  let json: Record<string, unknown> = {};
  try {
    json = last ? JSON.parse(last) : {};
  } catch { /* not JSON */ }
  return { code: o.code, stdout, stderr, json, what: `exit ${o.code}\n${stderr}${stdout}` };
}

const s = steward(12);
let n = 0;
async function envelopeFile(dir: string): Promise<string> {
  const f = `${dir}/e${n}.cose`;
  await Deno.writeFile(f, validEnvelope(1000 + n++, s));
  return f;
}

/** Appends `k` entries straight to instance `i` (as if through the service, before a rotation). */
async function fill(fx: Sharded, i: number, k: number) {
  const c = new LogClient(fx.services[i].url, fx.services[i].signer);
  for (let j = 0; j < k; j++) await c.submit(validEnvelope(5000 + n++, s));
}

const posts = (fx: Sharded) => fx.seen.filter((x) => x.startsWith("POST "));

Deno.test({
  name:
    "shards: client submit follows the active shard and one 409 shard-frozen; head and prove pick a shard; TOFU operator key",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-shards-client-" });
    const fx = await startSharded(3);
    try {
      const url = ["--url", fx.url];
      // Before the directory exists (404): one log at the root, output as before.
      fx.hooks.noDirectory = true;
      const a0Envelope = await envelopeFile(dir);
      const a0 = await cli(["submit", a0Envelope, ...url], dir);
      assert.equal(a0.code, 0, a0.what);
      assert.equal(a0.json.index, 0);
      assert.equal("shard" in a0.json, false, "no directory: no shard in the output");
      await assert.rejects(Deno.stat(`${dir}/jouleclaw/operators.json`), Deno.errors.NotFound);
      fx.hooks.noDirectory = false;

      const a1 = await cli(["submit", await envelopeFile(dir), ...url], dir);
      assert.equal(a1.code, 0, a1.what);
      assert.deepEqual([a1.json.shard, a1.json.index], ["s0", 1]);
      // Trusted on first use and remembered.
      const known = JSON.parse(await Deno.readTextFile(`${dir}/jouleclaw/operators.json`));
      assert.equal(known.operators[fx.url], fx.operatorVkey);

      await fx.rotate(); // s0 frozen at 2, s1 active
      const e2 = await envelopeFile(dir);
      const a2 = await cli(["submit", e2, ...url], dir);
      assert.equal(a2.code, 0, a2.what);
      assert.deepEqual([a2.json.shard, a2.json.index], ["s1", 0]);
      assert.equal(posts(fx).at(-1), "POST /shards/s1/v1/log/entries");

      // A client that read the directory just before a rotation: 409 names s2, one retry there.
      const stale = await fx.note();
      await fx.rotate(); // s1 frozen at 1, s2 active
      fx.hooks.queue.push(stale);
      const before = posts(fx).length;
      const a3 = await cli(["submit", await envelopeFile(dir), ...url], dir);
      assert.equal(a3.code, 0, a3.what);
      assert.deepEqual([a3.json.shard, a3.json.index], ["s2", 0]);
      assert.deepEqual(posts(fx).slice(before), [
        "POST /shards/s1/v1/log/entries",
        "POST /shards/s2/v1/log/entries",
      ]);

      // A second 409: an error with a clear message, exit 1, and never a third try.
      fx.hooks.activeFrozen = true;
      const b0 = posts(fx).length;
      const a4 = await cli(["submit", await envelopeFile(dir), ...url], dir);
      assert.equal(a4.code, 1, a4.what);
      assert.match(a4.stderr, /answered 409 shard-frozen, and so did s2, .*; not retrying again/);
      assert.equal(posts(fx).length - b0, 2);
      fx.hooks.activeFrozen = false;

      // head: the active shard, or --shard.
      const h = await cli(["head", ...url], dir);
      assert.equal(h.code, 0, h.what);
      assert.deepEqual([h.json.shard, h.json.size, h.json.verified], ["s2", 1, true]);
      const h0 = await cli(["head", ...url, "--shard", "s0"], dir);
      assert.deepEqual([h0.code, h0.json.shard, h0.json.size], [0, "s0", 2], h0.what);
      const hx = await cli(["head", ...url, "--shard", "s7"], dir);
      assert.equal(hx.code, 1, hx.what);
      assert.match(hx.stderr, /Cannot find shard s7: the directory lists s0, s1, s2/);

      // prove: an index is in --shard, else the active one; a leaf is found in whichever shard
      // holds it.
      const p0 = await cli(["prove", "0", ...url], dir);
      assert.equal(p0.code, 0, p0.what);
      assert.deepEqual([p0.json.from, p0.json.shard], ["tiles", "s2"]);
      const p1 = await cli(["prove", "0", ...url, "--shard", "s1"], dir);
      assert.equal(p1.code, 0, p1.what);
      assert.deepEqual([p1.json.from, p1.json.shard], ["tiles", "s1"]);
      assert.equal((p1.json.views as { sha256: { size: number } }).sha256.size, 1);
      const leaf = a1.json.leaf_hash as string;
      const pl = await cli(["prove", "--leaf", leaf, ...url], dir);
      assert.equal(pl.code, 0, pl.what);
      assert.deepEqual([pl.json.shard, pl.json.index, pl.json.leaf_hash], ["s0", 1, leaf]);
      const pa = await cli(["prove", "--leaf", leaf, ...url, "--source", "api"], dir);
      assert.deepEqual([pa.code, pa.json.shard, pa.json.index], [0, "s0", 1], pa.what);

      // A receipt's tlog-proof names its shard by origin: verify-proof finds the shard's key.
      const tp = `${dir}/s1-0.tlog-proof`;
      const pt = await cli(["prove", "0", ...url, "--shard", "s1", "--tlog-proof", tp], dir);
      assert.equal(pt.code, 0, pt.what);
      const vu = await cli(["verify-proof", e2, tp, "--url", fx.url], dir);
      assert.equal(vu.code, 0, vu.what);
      assert.equal(vu.json.origin, "sharded.test/log/s1/blake3");
      const vx = await cli(["verify-proof", a0Envelope, tp, "--url", fx.url], dir);
      assert.equal(vx.code, 3, vx.what);
      assert.match(vx.stderr, /CHECK FAILED: .*tlog-proof-bad-inclusion/);

      // mirror: every shard below its prefix, the directory last; the mirror answers as the service.
      const m = `${dir}/mirror`;
      const mi = await cli(["mirror", fx.url, m], dir);
      assert.equal(mi.code, 0, mi.what);
      assert.deepEqual((mi.json.shards as { id: string }[]).map((x) => x.id), ["s0", "s1", "s2"]);
      // The active shard's report at the top level, as a one-log mirror prints it.
      assert.equal(mi.json.shard, "s2");
      assert.equal((mi.json.views as { sha256: { size: number } }).sha256.size, 1);
      await Deno.stat(`${m}/log/sha256/checkpoint`);
      await Deno.stat(`${m}/shards/s2/log/blake3/checkpoint`);
      await Deno.stat(`${m}/v1/logs`);
      const again = await cli(["mirror", fx.url, m], dir);
      assert.equal(again.code, 0, again.what);
      const one = await cli(["mirror", fx.url, `${dir}/one`, "--shard", "s1"], dir);
      assert.equal(one.code, 0, one.what);
      assert.equal((one.json.views as { blake3: { size: number } }).blake3.size, 1);
      await Deno.stat(`${dir}/one/log/blake3/checkpoint`);
      const vd = await cli([
        "verify-proof",
        e2,
        tp,
        "--directory",
        `${m}/v1/logs`,
        "--operator-key",
        fx.operatorVkey,
      ], dir);
      assert.equal(vd.code, 0, vd.what);
      const vn = await cli(["verify-proof", e2, tp, "--directory", `${m}/v1/logs`], dir);
      assert.equal(vn.code, 2, vn.what);
      const srv = await serveDir(m);
      try {
        // The static mirror follows its own directory: s1's entry proven from its tiles.
        const pm = await cli(["prove", "0", "--url", srv.url, "--shard", "s1"], dir);
        assert.equal(pm.code, 0, pm.what);
        assert.deepEqual([pm.json.shard, pm.json.leaf_hash], ["s1", a2.json.leaf_hash]);
      } finally {
        await srv.close();
      }
      // A frozen shard whose checkpoint is not the directory's final one: nothing of it mirrored.
      const d = await fx.directory();
      d.shards[1].root = { ...d.shards[1].root!, blake3: c2sp.toBase64(new Uint8Array(32)) };
      fx.hooks.queue.push(fx.sign(d));
      const bad = await cli(["mirror", fx.url, `${dir}/bad`], dir);
      assert.equal(bad.code, 3, bad.what);
      assert.match(bad.stderr, /shard-final-mismatch/);
      await assert.rejects(Deno.stat(`${dir}/bad/shards/s1`), Deno.errors.NotFound);

      // The operator key: pinned right passes; pinned wrong, or announced other, is refused (3).
      const pin = await cli(["head", ...url, "--operator-key", fx.operatorVkey], dir);
      assert.equal(pin.code, 0, pin.what);
      const other = c2sp.ed25519Vkey(fx.base, new Uint8Array(32).fill(9));
      const wrong = await cli(["head", ...url, "--operator-key", other], dir);
      assert.equal(wrong.code, 3, wrong.what);
      assert.match(wrong.stderr, /operator-key-changed/);
      fx.hooks.announce = other;
      const changed = await cli(["head", ...url], dir);
      assert.equal(changed.code, 3, changed.what);
      assert.match(changed.stderr, /CHECK FAILED: .*operator-key-changed/);
      fx.hooks.announce = undefined;
    } finally {
      await fx.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

/** A copy of `d` with shard `i` changed by `f`. */
function withShard(d: Directory, i: number, f: (x: Directory["shards"][0]) => void): Directory {
  const c = structuredClone(d);
  f(c.shards[i]);
  return c;
}

Deno.test({
  name:
    "shards: the monitor checks every shard and the directory's succession; each violation alarms with its code; a rotation passes",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-shards-monitor-" });
    const fx = await startSharded(3);
    try {
      const state = `${dir}/monitor.json`;
      const mon = (file = state, ...more: string[]) =>
        cli(["monitor", fx.url, "--state", file, "--once", ...more], dir);
      // A state from before shards: the root monitored as one log (404 on /v1/logs), from tiles.
      await fill(fx, 0, 5);
      fx.hooks.noDirectory = true;
      const m0 = await mon();
      assert.equal(m0.code, 0, m0.what);
      assert.equal(m0.json.from, "tiles");
      assert.equal("shards" in m0.json, false);
      fx.hooks.noDirectory = false;
      // It still loads; the service now publishes a directory: every shard (one), checked.
      await fill(fx, 0, 3);
      const m1 = await mon();
      assert.equal(m1.code, 0, m1.what);
      assert.deepEqual([m1.json.shard, m1.json.size], ["s0", 8]);
      assert.match(m1.json.message as string, /trusted on first use/);
      // As the one-log monitor prints it: the checkpoints seen before shards carry on (same key).
      assert.equal(m1.json.from, "tiles");
      assert.match(
        m1.json.message as string,
        /^blake3 8 extends 5; sha256 8 extends 5; views bound/,
      );
      const oneShard = await fx.note();

      // A legitimate rotation passes: s0 frozen at its final checkpoints, s1 active.
      await fx.rotate();
      await fill(fx, 1, 4);
      const m2 = await mon();
      assert.equal(m2.code, 0, m2.what);
      const shards = m2.json.shards as { id: string; state: string; size: number }[];
      assert.deepEqual(shards.map((x) => [x.id, x.state, x.size]), [["s0", "frozen", 8], [
        "s1",
        "active",
        4,
      ]]);
      assert.match(m2.json.message as string, /succeeds the last one/);
      const good = await Deno.readTextFile(state);

      // Each violation alarms (3) with its code, and leaves the state file as it was.
      const d = await fx.directory();
      const otherKey = new Uint8Array(32).fill(33);
      const cases: [string, () => void][] = [
        ["directory-rollback", () => fx.hooks.queue.push(oneShard)],
        ["directory-frozen-changed", () => {
          fx.hooks.queue.push(fx.sign(withShard(d, 0, (x) => {
            x.size = 7;
          })));
        }],
        ["directory-shard-removed", () => {
          const c = structuredClone(d);
          c.shards = [{ ...c.shards[0], state: "active" }];
          delete c.shards[0].root;
          fx.hooks.queue.push(fx.sign(c));
        }],
        ["directory-shard-changed", () => {
          fx.hooks.queue.push(fx.sign(withShard(d, 1, (x) => {
            x.vkeys = {
              blake3: c2sp.ed25519Vkey(`${x.log_name}/blake3`, otherKey),
              sha256: c2sp.ed25519Vkey(`${x.log_name}/sha256`, otherKey),
            };
            x.signer = didKeyFromPublicKey(ed25519PublicKey(otherKey));
          })));
        }],
        ["operator-key-changed", () => {
          fx.hooks.announce = c2sp.ed25519Vkey(fx.base, otherKey);
          fx.hooks.queue.push(fx.sign(d, otherKey));
        }],
        ["directory-withdrawn", () => fx.hooks.noDirectory = true],
        ["note-", () => fx.hooks.queue.push(fx.sign(d, otherKey))], // not the operator's signature
      ];
      for (const [code, set] of cases) {
        set();
        const r = await mon();
        fx.hooks.queue.length = 0;
        fx.hooks.announce = undefined;
        fx.hooks.noDirectory = false;
        assert.equal(r.code, 3, `${code}: ${r.what}`);
        assert.ok(String(r.json.code).startsWith(code), `${code}: ${r.what}`);
        assert.match(r.stderr, /^ALARM: /m);
        assert.equal(await Deno.readTextFile(state), good, `${code}: the state is unchanged`);
      }

      // A frozen shard whose checkpoint is not the directory's final root, for a new monitor.
      const fresh = `${dir}/fresh.json`;
      const wrongRoot = c2sp.toBase64(new Uint8Array(32).fill(1));
      fx.hooks.queue.push(fx.sign(withShard(d, 0, (x) => {
        x.root = { ...x.root!, sha256: wrongRoot };
      })));
      const f = await mon(fresh);
      assert.equal(f.code, 3, f.what);
      assert.equal(f.json.code, "shard-final-mismatch");
      assert.match(f.stderr, /frozen shard s0: its sha256 checkpoint/);
      // The same over the API (its BLAKE3 head against the final BLAKE3 root).
      fx.hooks.queue.push(fx.sign(withShard(d, 0, (x) => {
        x.root = { ...x.root!, blake3: wrongRoot };
      })));
      const fa = await mon(`${dir}/fresh-api.json`, "--source", "api");
      assert.equal(fa.code, 3, fa.what);
      assert.equal(fa.json.code, "shard-final-mismatch");

      // Another legitimate rotation, from the saved state: passes, three shards.
      await fx.rotate();
      await fill(fx, 2, 2);
      const m3 = await mon();
      assert.equal(m3.code, 0, m3.what);
      assert.equal((m3.json.shards as unknown[]).length, 3);
      assert.deepEqual([m3.json.shard, m3.json.size], ["s2", 2]);
      // And over the API, every shard pinned to its signer from the directory.
      const m4 = await mon(`${dir}/api.json`, "--source", "api");
      assert.equal(m4.code, 0, m4.what);
      assert.deepEqual(
        (m4.json.shards as { from: string }[]).map((x) => x.from),
        ["api", "api", "api"],
      );

      // A frozen shard that moves (an entry appended behind the directory's back): alarm.
      await fill(fx, 0, 1);
      for (const t = Date.now();; await new Promise((r) => setTimeout(r, 50))) {
        const cp = await (await fetch(`${fx.services[0].url}/log/sha256/checkpoint`)).text();
        if (cp.split("\n")[1] === "9") break;
        assert.ok(Date.now() - t < 20_000, "s0's checkpoint reaches 9");
      }
      const moved = await mon();
      assert.equal(moved.code, 3, moved.what);
      assert.equal(moved.json.code, "shard-final-mismatch");
      assert.match(moved.stderr, /frozen shard s0: its blake3 checkpoint is size 9/);
    } finally {
      await fx.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
