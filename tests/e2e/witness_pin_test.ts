// The witness never cosigns a fork after losing its state (issue 27, docs/WITNESS.md "Lost state or
// key"), over the real service process and real files: the witness cosigns a test log's
// checkpoints; then its state store is deleted, truncated, rolled back to an older copy, or the
// witness is pointed at an empty data directory with the old key file. Each time the service
// refuses to start (exit status 1, a stable code on stderr), and a fork of the log (same key and
// origin, another root at a cosigned size) gets no cosignature. A missing witness key beside its
// state or pin is refused, never replaced; a data directory written before pins is adopted once and
// guarded from then on; a state ahead of its pin (a crash between the swap and the pin write) is
// accepted; a damaged pin is refused.
import assert from "node:assert/strict";
import { sha256Hasher } from "../../log/mod.ts";
import { signCheckpoint } from "../../log/c2sp/checkpoint.ts";
import { ed25519Vkey } from "../../log/c2sp/note.ts";
import { formatAddCheckpoint } from "../../log/c2sp/witness.ts";
import { ed25519GenerateSecret } from "../../verify/mod.ts";
import { testTree } from "../c2sp/_tree.ts";
import { ROOT, type Service, startService } from "../../fixtures/service.ts";

const ORIGIN = "example.test/pinned/sha256";
const LOG_SECRET = ed25519GenerateSecret();
const enc = new TextEncoder();
const T = { sanitizeResources: false, sanitizeOps: false };

/**
 * A log under LOG_SECRET and ORIGIN; `fork` gives a split view: the same first 10 entries, others
 * after (another root at every size past 10, consistent with the cosigned size 10).
 */
function testLog(fork = false) {
  const tree = testTree(sha256Hasher, (i) => (fork && i >= 10 ? `fork ${i}` : `leaf ${i}`));
  return {
    vkey: ed25519Vkey(ORIGIN, LOG_SECRET),
    async body(old: number, size: number) {
      const proof = old === 0 ? [] : await tree.proof(old, size);
      const cp = signCheckpoint({ origin: ORIGIN, size, root: tree.root(size) }, LOG_SECRET);
      return formatAddCheckpoint(old, proof, enc.encode(cp));
    },
  };
}
const LOG = testLog();
const FORK = testLog(true);

async function post(svc: Service, body: Uint8Array<ArrayBuffer>) {
  const r = await fetch(`${svc.url}/add-checkpoint`, { method: "POST", body });
  return { status: r.status, text: await r.text() };
}

/** The environment of a witness of LOG with its state in `data` and its key at `keyFile`. */
function env(data: string, keyFile?: string): Record<string, string> {
  return {
    DATA_DIR: data,
    JC_WITNESS_LOGS: LOG.vkey,
    JC_WITNESS_NAME: "witness.test/pinned",
    ...(keyFile ? { JC_WITNESS_KEY_FILE: keyFile } : {}),
  };
}

/** A witness that cosigned LOG at 10 then 50, stopped cleanly; returns its data dir. */
async function cosigned(data: string, keyFile?: string): Promise<void> {
  const svc = await startService(env(data, keyFile));
  try {
    assert.equal((await post(svc, await LOG.body(0, 10))).status, 200);
    assert.equal((await post(svc, await LOG.body(10, 50))).status, 200);
  } finally {
    await svc.stop();
  }
}

/**
 * Starts the service with `e` and offers it the fork at the cosigned size 50, from `old` (0: as
 * to a witness that remembers nothing; 10: from the older copy's size, with the fork's proof). Returns the exit status and stderr of a refused start, or the
 * fork's answer when it started (what the defect did: 200, a cosigned fork).
 */
async function offerFork(e: Record<string, string>, old = 0) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "start"],
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1", JC_RATE_READ: "0", JC_RATE_WRITE: "0", ...e },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errText = new Response(child.stderr).text();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  if (first.done) {
    const status = await child.status;
    return { started: false, code: status.code, stderr: await errText, fork: 0 };
  }
  const hello = JSON.parse(new TextDecoder().decode(first.value).split("\n")[0]);
  const svc = { url: hello.listening } as Service;
  const r = await post(svc, await FORK.body(old, 50));
  Deno.kill(hello.pid, "SIGTERM");
  while (!(await reader.read()).done) { /* drain */ }
  await child.status;
  return { started: true, code: 0, stderr: await errText, fork: r.status };
}

function assertRefused(r: Awaited<ReturnType<typeof offerFork>>, code: string, names: string[]) {
  assert.equal(r.started, false, `the witness started and answered the fork ${r.fork}`);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`\\(${code}\\)`), r.stderr);
  for (const n of names) assert.ok(r.stderr.includes(n), `stderr names ${n}: ${r.stderr}`);
  assert.match(r.stderr, /witness key/);
  assert.doesNotMatch(r.stderr, /log key/);
}

async function tmp(prefix: string) {
  return await Deno.makeTempDir({ prefix: `jc-wpin-${prefix}-` });
}

async function removeState(data: string) {
  for (const f of ["witness.sqlite", "witness.sqlite-wal", "witness.sqlite-shm"]) {
    await Deno.remove(`${data}/${f}`).catch(() => {});
  }
}

Deno.test({
  name: "witness pin: a deleted state store refuses to start; the fork gets no cosignature",
  ...T,
  async fn() {
    const data = await tmp("deleted");
    await cosigned(data);
    await removeState(data);
    assertRefused(await offerFork(env(data)), "witness-state-behind", [
      `${data}/witness.sqlite`,
      `${data}/witness-key.hex.pin`,
    ]);
    assert.equal(await Deno.stat(`${data}/witness.sqlite`).catch(() => null), null);
  },
});

Deno.test({
  name: "witness pin: a state store truncated to 0 bytes refuses to start",
  ...T,
  async fn() {
    const data = await tmp("truncated");
    await cosigned(data);
    await removeState(data);
    await Deno.writeFile(`${data}/witness.sqlite`, new Uint8Array(0));
    assertRefused(await offerFork(env(data)), "witness-state-behind", [`${data}/witness.sqlite`]);
  },
});

Deno.test({
  name: "witness pin: an older copy of the state refuses to start (the size it names)",
  ...T,
  async fn() {
    const data = await tmp("rollback");
    let svc = await startService(env(data));
    try {
      assert.equal((await post(svc, await LOG.body(0, 10))).status, 200);
    } finally {
      await svc.stop();
    }
    const old = await Deno.readFile(`${data}/witness.sqlite`);
    svc = await startService(env(data));
    try {
      assert.equal((await post(svc, await LOG.body(10, 50))).status, 200);
    } finally {
      await svc.stop();
    }
    await removeState(data);
    await Deno.writeFile(`${data}/witness.sqlite`, old);
    const r = await offerFork(env(data), 10);
    assertRefused(r, "witness-state-behind", [ORIGIN]);
    assert.match(r.stderr, /cosigned size 50, stored 10/);
  },
});

Deno.test({
  name: "witness pin: an empty data directory with the old key file refuses to start",
  ...T,
  async fn() {
    // the key on its own mount (its pin beside it), the data directory ephemeral
    const keys = await tmp("keys");
    await cosigned(await tmp("first"), `${keys}/witness-key.hex`);
    const fresh = await tmp("fresh");
    assertRefused(await offerFork(env(fresh, `${keys}/witness-key.hex`)), "witness-state-behind", [
      `${fresh}/witness.sqlite`,
    ]);
    // the default layout: only the key file copied into an empty data directory (no pin, no state)
    const data = await tmp("default");
    await cosigned(data);
    const empty = await tmp("empty");
    await Deno.copyFile(`${data}/witness-key.hex`, `${empty}/witness-key.hex`);
    for (let i = 0; i < 2; i++) { // a refused start creates nothing: the second is refused too
      assertRefused(await offerFork(env(empty)), "witness-state-behind", [
        `${empty}/witness-key.hex`,
      ]);
    }
  },
});

Deno.test({
  name: "witness pin: a missing witness key beside its state or its pin is refused, never replaced",
  ...T,
  async fn() {
    const data = await tmp("nokey");
    await cosigned(data);
    await Deno.remove(`${data}/witness-key.hex`);
    assertRefused(await offerFork(env(data)), "witness-key-missing", [`${data}/witness-key.hex`]);
    assert.equal(await Deno.stat(`${data}/witness-key.hex`).catch(() => null), null, "no new key");
    // the pin alone (state lost too) still says the key had a state
    await removeState(data);
    assertRefused(await offerFork(env(data)), "witness-key-missing", [
      `${data}/witness-key.hex.pin`,
    ]);
  },
});

Deno.test({
  name: "witness pin: a data directory written before pins is adopted once, then guarded",
  ...T,
  async fn() {
    const data = await tmp("adopt");
    await cosigned(data);
    const old = await Deno.readFile(`${data}/witness.sqlite`);
    // today's data directory: state and key, no pin, no mark (a state written before pins)
    await Deno.remove(`${data}/witness-key.hex.pin`);
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(`${data}/witness.sqlite`);
    db.exec("DROP TABLE meta");
    db.close();
    const svc = await startService(env(data));
    try {
      assert.match(svc.stderr(), /pinned the existing state/);
      assert.equal((await post(svc, await LOG.body(50, 80))).status, 200);
      assert.equal((await post(svc, await FORK.body(0, 50))).status, 409, "the state is kept");
    } finally {
      await svc.stop();
    }
    assert.ok((await Deno.stat(`${data}/witness-key.hex.pin`)).isFile);
    // guarded from now on: the older copy (size 50 < pinned 80) is refused
    await removeState(data);
    await Deno.writeFile(`${data}/witness.sqlite`, old);
    assertRefused(await offerFork(env(data)), "witness-state-behind", [ORIGIN]);
    // and the pin, once written, may not vanish: the state remembers it was pinned
    await Deno.remove(`${data}/witness-key.hex.pin`);
    assertRefused(await offerFork(env(data)), "witness-pin-missing", [
      `${data}/witness-key.hex.pin`,
    ]);
  },
});

Deno.test({
  name: "witness pin: a state ahead of its pin starts (re-pinned); a damaged pin is refused",
  ...T,
  async fn() {
    const data = await tmp("ahead");
    let svc = await startService(env(data));
    try {
      assert.equal((await post(svc, await LOG.body(0, 10))).status, 200);
    } finally {
      await svc.stop();
    }
    const pin10 = await Deno.readFile(`${data}/witness-key.hex.pin`);
    svc = await startService(env(data));
    try {
      assert.equal((await post(svc, await LOG.body(10, 50))).status, 200);
    } finally {
      await svc.stop();
    }
    // the pin as a crash between the state's swap and the pin's write leaves it
    await Deno.writeFile(`${data}/witness-key.hex.pin`, pin10);
    svc = await startService(env(data));
    try {
      assert.match(svc.stderr(), /ahead of its pin for example\.test\/pinned\/sha256/);
      const r = await post(svc, await FORK.body(0, 50));
      assert.equal(r.status, 409, "the fork is refused: the state says 50");
      assert.equal(r.text, "50\n");
    } finally {
      await svc.stop();
    }
    await Deno.writeFile(`${data}/witness-key.hex.pin`, new Uint8Array(4096));
    assertRefused(await offerFork(env(data)), "witness-pin-damaged", [
      `${data}/witness-key.hex.pin`,
    ]);
  },
});

Deno.test({
  name: "witness pin: deno task witness:init makes a key made elsewhere a new witness, once",
  ...T,
  async fn() {
    const keys = await tmp("init");
    const keyFile = `${keys}/w.hex`;
    const { toHex } = await import("../../verify/mod.ts");
    await Deno.writeTextFile(keyFile, toHex(ed25519GenerateSecret()) + "\n", { mode: 0o600 });
    const data = await tmp("init-data");
    assertRefused(await offerFork(env(data, keyFile)), "witness-state-behind", [keyFile]);
    const init = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["task", "-q", "witness:init", keyFile],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
    const first = await init();
    assert.equal(first.code, 0, new TextDecoder().decode(first.stderr));
    const svc = await startService(env(data, keyFile));
    try {
      assert.equal((await post(svc, await LOG.body(0, 10))).status, 200);
    } finally {
      await svc.stop();
    }
    const again = await init();
    assert.equal(again.code, 1, "a key with a pin is not new");
    assert.match(new TextDecoder().decode(again.stderr), /already has a pin/);
  },
});
