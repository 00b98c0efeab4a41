// The witness role on the Worker (docs/WITNESS.md, docs/EDGE.md), in parity with the embedded
// default: one script of add-checkpoint requests (first checkpoint, a consistent extension, the
// same tree again, a stale old size, a fork, an unknown origin, a bad signature, a malformed body)
// goes to `deno task start` and to the Worker under local workerd, both with the same witness key;
// statuses, media types and bodies must match (each cosignature line verified under the witness
// vkey, then masked: its timestamp is the clock's). The Worker's state lives in its Durable Object:
// a restarted runtime keeps the cosigned size.
import assert from "node:assert/strict";
import { sha256Hasher } from "../../log/mod.ts";
import { signCheckpoint } from "../../log/c2sp/checkpoint.ts";
import { cosignatureVkey, ed25519Vkey, openNote, verifierFromVkey } from "../../log/c2sp/note.ts";
import { formatAddCheckpoint } from "../../log/c2sp/witness.ts";
import { startService } from "../../fixtures/service.ts";
import { testTree } from "../c2sp/_tree.ts";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { initWitnessKey } from "../../log/sqlite/witness_pin_file.ts";

const T = { sanitizeResources: false, sanitizeOps: false };
const ORIGIN = "edge.witness.test/log/sha256";
const LOG_SECRET = new Uint8Array(32).fill(0x31);
const WITNESS_HEX = "32".repeat(32);
const WITNESS_NAME = "edge.witness.test/w";
const WVKEY = cosignatureVkey(WITNESS_NAME, new Uint8Array(32).fill(0x32));
const ADMIN = "edge-witness-admin-token";

async function script(base: string): Promise<string[]> {
  const t = testTree(sha256Hasher);
  const other = testTree(sha256Hasher, (i) => `fork ${i}`);
  const enc = new TextEncoder();
  const cp = (n: number, root = t.root(n), origin = ORIGIN, secret = LOG_SECRET) =>
    enc.encode(signCheckpoint({ origin, size: n, root }, secret));
  const steps: (Uint8Array<ArrayBuffer> | string)[] = [
    formatAddCheckpoint(0, [], cp(10)),
    formatAddCheckpoint(10, await t.proof(10, 25), cp(25)),
    formatAddCheckpoint(25, [], cp(25)),
    formatAddCheckpoint(10, await t.proof(10, 30), cp(30)),
    formatAddCheckpoint(25, [], cp(25, other.root(25))),
    formatAddCheckpoint(0, [], cp(5, t.root(5), "edge.witness.test/other")),
    formatAddCheckpoint(0, [], cp(5, t.root(5), ORIGIN, new Uint8Array(32).fill(9))),
    `old 25\n${"x".repeat(10)}\n\n`,
  ];
  const out: string[] = [];
  for (const body of steps) {
    const res = await fetch(`${base}/add-checkpoint`, { method: "POST", body });
    const type = (res.headers.get("content-type") ?? "").split(";")[0];
    let text = await res.text();
    if (res.status === 200) {
      const size = out.length === 0 ? 10 : 25;
      await openNote(new TextDecoder().decode(cp(size)) + text, [verifierFromVkey(WVKEY)]);
      text = "<cosignature>";
    } else if (type === "application/problem+json") text = JSON.parse(text).code;
    out.push(`${res.status} ${type} ${text.trim()}`);
  }
  return out;
}

Deno.test({
  name: "edge: the witness role answers as the embedded default; its state survives a restart",
  ...T,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-edge-witness-" });
    const logs = ed25519Vkey(ORIGIN, LOG_SECRET);
    const env = { JC_WITNESS_LOGS: logs, JC_WITNESS_NAME: WITNESS_NAME };
    await Deno.writeTextFile(`${tmp}/wkey.hex`, WITNESS_HEX + "\n", { mode: 0o600 });
    await initWitnessKey(`${tmp}/wkey.hex`); // the edge's witness key, a new embedded witness
    const svc = await startService({
      ...env,
      DATA_DIR: `${tmp}/svc`,
      JC_WITNESS_KEY_FILE: `${tmp}/wkey.hex`,
    });
    let expected: string[];
    try {
      assert.equal((await (await fetch(`${svc.url}/v1/log/key`)).json()).witness_vkey, WVKEY);
      expected = await script(svc.url);
    } finally {
      await svc.stop();
    }
    assert.deepEqual(expected.map((l) => l.split(" ")[0]), [
      "200",
      "200",
      "200",
      "409",
      "422",
      "404",
      "403",
      "400",
    ]);
    assert.equal(expected[3], "409 text/x.tlog.size 25");
    let w = await startWorker(`${tmp}/edge`, { ...env, JC_WITNESS_KEY: WITNESS_HEX });
    try {
      const base = w.url.href.replace(/\/$/, "");
      assert.equal((await (await fetch(`${base}/v1/log/key`)).json()).witness_vkey, WVKEY);
      assert.deepEqual(await script(base), expected, w.logTail());
      await w.stop();
      w = await startWorker(`${tmp}/edge`, { ...env, JC_WITNESS_KEY: WITNESS_HEX });
      const again = await fetch(`${w.url.href.replace(/\/$/, "")}/add-checkpoint`, {
        method: "POST",
        body: formatAddCheckpoint(
          0,
          [],
          new TextEncoder().encode(
            signCheckpoint(
              { origin: ORIGIN, size: 3, root: testTree(sha256Hasher).root(3) },
              LOG_SECRET,
            ),
          ),
        ),
      });
      assert.equal(again.status, 409);
      assert.equal(await again.text(), "25\n");
    } finally {
      await w.stop();
    }
  },
});

Deno.test({
  name:
    "edge: the collector runs in the Durable Object; the Worker serves the cosigned checkpoint, per shard",
  ...T,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-edge-collector-" });
    const name = "edge.collector.test/a";
    const aVkey = ed25519Vkey(`${name}/sha256`, new Uint8Array(32).fill(0x2a)); // TEST_LOG_KEY
    await Deno.writeTextFile(`${tmp}/wkey.hex`, WITNESS_HEX + "\n", { mode: 0o600 });
    await initWitnessKey(`${tmp}/wkey.hex`); // the edge's witness key, a new embedded witness
    const b = await startService({
      DATA_DIR: `${tmp}/b`,
      JC_WITNESS_LOGS: aVkey,
      JC_WITNESS_NAME: WITNESS_NAME,
      JC_WITNESS_KEY_FILE: `${tmp}/wkey.hex`,
    });
    let b2: Awaited<ReturnType<typeof startService>> | undefined;
    const w = await startWorker(`${tmp}/edge`, {
      JC_LOG_NAME: name,
      JC_WITNESSES: `${b.url} ${WVKEY}`,
      JC_ADMIN_TOKEN: ADMIN,
    });
    try {
      const base = w.url.href.replace(/\/$/, "");
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${base}/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: validEnvelope(i, steward(21)),
        });
        assert.equal(res.status, 201, await res.text());
      }
      let note = "";
      for (let i = 0; i < 150; i++) {
        note = await (await fetch(`${base}/log/sha256/checkpoint`)).text();
        if (note.includes(`— ${WITNESS_NAME} `) && note.startsWith(`${name}/sha256\n5\n`)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const o = await openNote(note, [verifierFromVkey(WVKEY), verifierFromVkey(aVkey)]);
      assert.equal(o.verified.length, 2, `${note}\n${w.logTail()}`);
      const health = await (await fetch(`${base}/healthz`)).json();
      assert.equal(health.witnesses[0].cosignedSize, 5, JSON.stringify(health));
      assert.equal(health.witness_alarm, false);

      // docs/SHARDS.md: after a rotation the frozen s0 keeps its cosigned final checkpoint, and
      // s1's collector (in s1's own object) gets s1's checkpoints cosigned by the same witness once
      // the witness knows s1's vkey (B restarted on its port with both logs).
      const rot = await fetch(`${base}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      assert.equal(rot.status, 200, await rot.text());
      const dir = await (await fetch(`${base}/v1/logs`)).json();
      const s1 = dir.directory.shards[1];
      assert.equal(s1.prefix, "/shards/s1");
      const port = new URL(b.url).port;
      await b.stop();
      b2 = await startService({
        DATA_DIR: `${tmp}/b`,
        PORT: port,
        JC_WITNESS_LOGS: `${aVkey},${s1.vkeys.sha256}`,
        JC_WITNESS_NAME: WITNESS_NAME,
        JC_WITNESS_KEY_FILE: `${tmp}/wkey.hex`,
      });
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${base}/shards/s1/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: validEnvelope(100 + i, steward(21)),
        });
        assert.equal(res.status, 201, await res.text());
      }
      let s1note = "";
      for (let i = 0; i < 150; i++) {
        s1note = await (await fetch(`${base}/shards/s1/log/sha256/checkpoint`)).text();
        if (s1note.includes(`— ${WITNESS_NAME} `) && s1note.startsWith(`${name}/s1/sha256\n3\n`)) {
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      const o1 = await openNote(s1note, [
        verifierFromVkey(WVKEY),
        verifierFromVkey(s1.vkeys.sha256),
      ]);
      assert.equal(o1.verified.length, 2, `${s1note}\n${w.logTail()}`);
      const s0note = await (await fetch(`${base}/log/sha256/checkpoint`)).text();
      assert.ok(s0note.startsWith(`${name}/sha256\n5\n`), s0note);
      const o0 = await openNote(s0note, [verifierFromVkey(WVKEY), verifierFromVkey(aVkey)]);
      assert.equal(o0.verified.length, 2, "the frozen s0's final checkpoint stays cosigned");
    } finally {
      await w.stop();
      await b.stop().catch(() => {});
      await b2?.stop();
      await removeBundle();
    }
  },
});
