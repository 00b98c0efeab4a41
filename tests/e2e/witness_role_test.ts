// The service as a C2SP tlog-witness (docs/WITNESS.md), over real HTTP to the real service process:
// the test plays a SHA-256 log (its own key and tree), the service witnesses it. Every status code
// of tlog-witness by its own test, malformed bodies refused without a state change, 50 concurrent
// add-checkpoint for one origin (the stored size only moves forward, every cosignature verifies),
// the state survives a restart, and the cosignatures verify in Python (PyNaCl) from the spec's
// message layout.
import assert from "node:assert/strict";
import { sha256Hasher } from "../../log/mod.ts";
import { signCheckpoint } from "../../log/c2sp/checkpoint.ts";
import {
  cosignatureTimestamp,
  ed25519Vkey,
  openNote,
  parseSignatureLine,
  verifierFromVkey,
} from "../../log/c2sp/note.ts";
import { formatAddCheckpoint } from "../../log/c2sp/witness.ts";
import { ed25519GenerateSecret } from "../../verify/mod.ts";
import { testTree } from "../c2sp/_tree.ts";
import { runPython } from "../verify/_python.ts";
import { type Service, startService } from "../../fixtures/service.ts";

const ORIGIN = "example.test/witnessed/sha256";
const enc = new TextEncoder();

/** A test log: a key, a tree, and add-checkpoint bodies for it. */
function testLog(origin = ORIGIN, secret = ed25519GenerateSecret(), entry?: (i: number) => string) {
  const tree = testTree(sha256Hasher, entry);
  const vkey = ed25519Vkey(origin, secret);
  const checkpoint = (size: number, root = tree.root(size)) =>
    signCheckpoint({ origin, size, root }, secret);
  return {
    vkey,
    tree,
    checkpoint,
    async body(old: number, size: number, opts: { proof?: Uint8Array[]; note?: string } = {}) {
      const proof = opts.proof ?? (old === 0 ? [] : await tree.proof(old, size));
      return formatAddCheckpoint(old, proof, enc.encode(opts.note ?? checkpoint(size)));
    },
  };
}

async function post(svc: Service, body: Uint8Array<ArrayBuffer> | string) {
  const res = await fetch(`${svc.url}/add-checkpoint`, { method: "POST", body });
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    text: await res.text(),
  };
}

async function witnessVkey(svc: Service): Promise<string> {
  const k = await (await fetch(`${svc.url}/v1/log/key`)).json();
  assert.equal(typeof k.witness_vkey, "string", "GET /v1/log/key publishes witness_vkey");
  return k.witness_vkey;
}

async function cosignedSize(svc: Service, log: ReturnType<typeof testLog>): Promise<number> {
  // old 0 with a size-0 checkpoint: 409 tells the stored size (200 only while nothing is stored)
  const r = await post(svc, await log.body(0, 0));
  if (r.status === 200) return 0;
  assert.equal(r.status, 409, r.text);
  return Number(r.text.trim());
}

async function withWitness(
  fn: (svc: Service, log: ReturnType<typeof testLog>, dir: string) => Promise<void>,
  env: Record<string, string> = {},
) {
  const dir = await Deno.makeTempDir({ prefix: "jc-witness-" });
  const log = testLog();
  const svc = await startService({
    DATA_DIR: dir,
    JC_WITNESS_LOGS: log.vkey,
    JC_WITNESS_NAME: "witness.test/w1",
    ...env,
  });
  try {
    await fn(svc, log, dir);
  } finally {
    await svc.stop();
  }
}

const T = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "witness 200: cosignature/v1 lines that verify (TS and Python), timestamp now",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      const wvkey = await witnessVkey(svc);
      assert.match(wvkey, /^witness\.test\/w1\+[0-9a-f]{8}\+/);
      const r1 = await post(svc, await log.body(0, 10));
      assert.equal(r1.status, 200, r1.text);
      assert.match(r1.text, /^— witness\.test\/w1 [A-Za-z0-9+/]+=*\n$/);
      const note = log.checkpoint(10) + r1.text;
      const opened = await openNote(note, [verifierFromVkey(wvkey)]);
      assert.equal(opened.verified.length, 1);
      const t = cosignatureTimestamp(parseSignatureLine(r1.text.trimEnd()).sig)!;
      assert.ok(Math.abs(Number(t) - Date.now() / 1000) < 120, "timestamp is now, not zero");
      // the next checkpoint with a proof from 10
      const r2 = await post(svc, await log.body(10, 300));
      assert.equal(r2.status, 200, r2.text);
      const note2 = log.checkpoint(300) + r2.text;
      // Python, from the spec's message layout (conformance/python/jcverify/cosignature.py)
      const py = await runCosignaturePython([note, note2], wvkey, log.vkey);
      assert.deepEqual(py, [[true, true], [true, true]]);
      // same size, same root: cosigned again
      assert.equal((await post(svc, await log.body(300, 300))).status, 200);
    }),
});

Deno.test({
  name: "witness 409: an old size that is not the cosigned one; text/x.tlog.size names it",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      assert.equal((await post(svc, await log.body(0, 10))).status, 200);
      assert.equal((await post(svc, await log.body(10, 300))).status, 200);
      const r = await post(svc, await log.body(10, 400));
      assert.equal(r.status, 409);
      assert.equal(r.type, "text/x.tlog.size");
      assert.equal(r.text, "300\n");
      // old 0 after a cosignature: 409 too (a client learning the size)
      const z = await post(svc, await log.body(0, 400));
      assert.equal(z.status, 409);
      assert.equal(z.text, "300\n");
    }),
});

async function runCosignaturePython(notes: string[], wvkey: string, lvkey: string) {
  const script = `
import json, sys
sys.path.insert(0, "conformance/python")
from jcverify.cosignature import check
req = json.load(sys.stdin)
print(json.dumps([[check(n, v)["ok"] for v in req["vkeys"]] for n in req["notes"]]))
`;
  return await runPython(script, { notes, vkeys: [wvkey, lvkey] });
}

Deno.test({
  name: "witness 404: an origin it does not witness",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      const other = testLog("example.test/other");
      const r404 = await post(svc, await other.body(0, 5));
      assert.equal(r404.status, 404, r404.text);
      assert.equal(JSON.parse(r404.text).code, "witness-unknown-origin");
      assert.equal(await cosignedSize(svc, log), 0, "nothing was stored");
    }),
});

Deno.test({
  name: "witness 403: no signature by the origin's key, or one that does not verify",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      // same origin, another key: no signature by the trusted key
      const impostor = testLog(ORIGIN);
      const r403 = await post(svc, await impostor.body(0, 5));
      assert.equal(r403.status, 403, r403.text);
      assert.equal(JSON.parse(r403.text).code, "witness-bad-signature");
      // the trusted key's name and ID with a signature that does not verify
      const cp = log.checkpoint(5);
      const sigStart = cp.lastIndexOf(" ") + 1;
      const flipped = cp.slice(0, sigStart + 10) +
        (cp[sigStart + 10] === "A" ? "B" : "A") + cp.slice(sigStart + 11);
      const rBad = await post(svc, await log.body(0, 5, { note: flipped }));
      assert.equal(rBad.status, 403, rBad.text);
      assert.equal(await cosignedSize(svc, log), 0, "nothing was stored");
    }),
});

Deno.test({
  name: "witness 400: old size above the checkpoint's size",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      const r400 = await post(svc, await log.body(6, 5, { proof: [] }));
      assert.equal(r400.status, 400, r400.text);
      assert.equal(JSON.parse(r400.text).code, "witness-old-size-too-large");
      assert.equal(await cosignedSize(svc, log), 0, "nothing was stored");
    }),
});

Deno.test({
  name: "witness 422: a bad proof, a root mismatch, a bad empty root, proof lines from 0",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      // size 0 with a root that is not the empty tree's
      const r0 = await post(
        svc,
        await log.body(0, 0, { note: log.checkpoint(0, log.tree.root(1)) }),
      );
      assert.equal(r0.status, 422, r0.text);
      assert.equal(JSON.parse(r0.text).code, "witness-empty-root");
      // old 0 with proof lines
      const rp = await post(svc, await log.body(0, 8, { proof: [log.tree.root(1)] }));
      assert.equal(rp.status, 422);
      assert.equal(JSON.parse(rp.text).code, "witness-proof-not-empty");
      assert.equal((await post(svc, await log.body(0, 8))).status, 200);
      // a proof that does not verify
      const bad = await log.tree.proof(8, 20);
      bad[0] = bad[1];
      const rb = await post(svc, await log.body(8, 20, { proof: bad }));
      assert.equal(rb.status, 422);
      assert.equal(JSON.parse(rb.text).code, "witness-bad-proof");
      // the same size with another root (a fork, signed by the log key)
      const fork = await post(
        svc,
        await log.body(8, 8, { note: log.checkpoint(8, log.tree.root(7)) }),
      );
      assert.equal(fork.status, 422);
      assert.equal(JSON.parse(fork.text).code, "witness-root-mismatch");
      // titled as the witness's refusal, not as a receipt's ("Invalid receipt")
      assert.equal(JSON.parse(fork.text).title, "Witness refusal: root mismatch");
      assert.equal(await cosignedSize(svc, log), 8);
    }),
});

Deno.test({
  name: "witness: malformed bodies are 400 (or 413) and change nothing",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      assert.equal((await post(svc, await log.body(0, 4))).status, 200);
      const cp = log.checkpoint(9);
      const proof = (await log.tree.proof(4, 9)).map((h) => btoa(String.fromCharCode(...h)));
      const H = proof[0];
      const cases: [string, string | Uint8Array<ArrayBuffer>, number][] = [
        ["missing blank line", `old 4\n${proof.join("\n")}\n${cp}`, 400],
        ["64 proof lines", `old 4\n${`${H}\n`.repeat(64)}\n${cp}`, 400],
        ["non-base64 proof line", `old 4\n${"*".repeat(43)}=\n\n${cp}`, 400],
        ["no old line", `${proof.join("\n")}\n\n${cp}`, 400],
        ["old with a leading zero", `old 04\n${proof.join("\n")}\n\n${cp}`, 400],
        ["checkpoint not a note", `old 4\n${proof.join("\n")}\n\nnot a checkpoint\n`, 400],
        ["oversize", `old 4\n\n${"x".repeat(70_000)}`, 413],
        ["not UTF-8", new Uint8Array([...enc.encode("old 4\n\n"), 0xff, 0xfe, 0x0a]), 400],
      ];
      for (const [what, body, status] of cases) {
        const r = await post(svc, body);
        assert.equal(r.status, status, `${what}: ${r.text}`);
      }
      assert.equal(await cosignedSize(svc, log), 4, "no malformed body moved the state");
      assert.equal((await post(svc, await log.body(4, 9))).status, 200, "the good one still works");
    }),
});

Deno.test({
  name: "witness: 50 concurrent add-checkpoint for one origin: the size only moves forward",
  ...T,
  fn: () =>
    withWitness(async (svc, log) => {
      const wvkey = await witnessVkey(svc);
      assert.equal((await post(svc, await log.body(0, 100))).status, 200);
      // 50 requests, all from 100, to sizes 101..150, in parallel
      const sizes = Array.from({ length: 50 }, (_, i) => 101 + i);
      const bodies = await Promise.all(sizes.map((s) => log.body(100, s)));
      const answers = await Promise.all(bodies.map((b) => post(svc, b)));
      const accepted = sizes.filter((_, i) => answers[i].status === 200);
      assert.ok(accepted.length >= 1, "at least one wins");
      for (const [i, a] of answers.entries()) {
        assert.ok(a.status === 200 || a.status === 409, `${sizes[i]}: ${a.status} ${a.text}`);
        if (a.status === 200) {
          // every cosignature issued verifies over its own checkpoint
          await openNote(log.checkpoint(sizes[i]) + a.text, [verifierFromVkey(wvkey)]);
        }
      }
      // Racing from one old size, only the first to swap can win: every later one sees a new size.
      assert.equal(accepted.length, 1, `only one of the 50 can win: ${accepted}`);
      const stored = await cosignedSize(svc, log);
      assert.equal(stored, Math.max(...accepted));
      // 50 more at once, a chain stored→stored+1→...: however they interleave, the accepted ones
      // form a chain from the stored size and the stored size is the largest accepted.
      const chain = Array.from({ length: 50 }, (_, i) => [stored + i, stored + i + 1]);
      const cb = await Promise.all(chain.map(([a, b]) => log.body(a, b)));
      const ca = await Promise.all(cb.map((b) => post(svc, b)));
      const won = chain.filter((_, i) => ca[i].status === 200);
      for (const [i, a] of ca.entries()) {
        assert.ok(a.status === 200 || a.status === 409, `${chain[i]}: ${a.status} ${a.text}`);
        if (a.status === 200) {
          await openNote(log.checkpoint(chain[i][1]) + a.text, [verifierFromVkey(wvkey)]);
        }
      }
      let at = stored;
      for (const [a, b] of won) {
        assert.equal(a, at, `accepted ${a}→${b} does not extend ${at}: ${JSON.stringify(won)}`);
        at = b;
      }
      assert.equal(await cosignedSize(svc, log), at, "stored = the largest accepted");
    }),
});

Deno.test({
  name: "witness: a restarted witness keeps its state (an older checkpoint is refused)",
  ...T,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-witness-restart-" });
    const log = testLog();
    const env = { DATA_DIR: dir, JC_WITNESS_LOGS: log.vkey, JC_WITNESS_NAME: "witness.test/w1" };
    let svc = await startService(env);
    const vkey1 = await witnessVkey(svc);
    assert.equal((await post(svc, await log.body(0, 50))).status, 200);
    await svc.stop("SIGKILL"); // a crash: what was answered is durable
    svc = await startService(env);
    try {
      assert.equal(await witnessVkey(svc), vkey1, "the witness key persists");
      const st = await Deno.stat(`${dir}/witness-key.hex`);
      assert.equal(st.mode! & 0o777, 0o600);
      const older = await post(svc, await log.body(0, 20));
      assert.equal(older.status, 409);
      assert.equal(older.text, "50\n");
      assert.equal((await post(svc, await log.body(50, 60))).status, 200);
    } finally {
      await svc.stop();
    }
  },
});

Deno.test({
  name: "witness: the witness key is never the log key; no witness role answers 404",
  ...T,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-witness-key-" });
    await Deno.mkdir(`${dir}/d`);
    await assert.rejects(
      startService({
        DATA_DIR: `${dir}/d`,
        JC_KEY_FILE: `${dir}/k.hex`,
        JC_WITNESS_KEY_FILE: `${dir}/k.hex`,
        JC_WITNESS_LOGS: testLog().vkey,
      }),
      /holds the log key/,
    );
    const svc = await startService({ DATA_DIR: `${dir}/e` });
    try {
      const r = await post(svc, await testLog().body(0, 1));
      assert.equal(r.status, 404);
    } finally {
      await svc.stop();
    }
  },
});
