// Witnessing end to end (issue 11, docs/WITNESS.md), three real services over 127.0.0.1: A logs;
// B and C witness A; A witnesses B. A's SHA-256 checkpoints reach a 2-of-2 quorum and the client
// with that policy accepts them (prove, a tlog-proof, verify-proof offline); Go's sumdb/note and
// sumdb/tlog accept the cosigned checkpoint and A's tiles; B's checkpoints are cosigned by A; with C
// stopped a new checkpoint is refused below quorum (exit 5); a split view A′ (A's data directory
// copied, then given other entries, same key) is refused by B (422) and raises A′'s alarm, and the
// monitor polling A then A′ alarms.
import assert from "node:assert/strict";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { runClient, type Service, startService } from "../../fixtures/service.ts";
import { runTlogcheck } from "../../conformance/go/tlogcheck.ts";
import { cosignatureVkey, ed25519Vkey, openNote, verifierFromVkey } from "../../log/c2sp/note.ts";
import { parseCheckpoint, signCheckpoint } from "../../log/c2sp/checkpoint.ts";
import { referenceRoot, sha256Hasher } from "../../log/mod.ts";
import { formatAddCheckpoint } from "../../log/c2sp/witness.ts";
import { ed25519GenerateSecret, toHex } from "../../verify/mod.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { initWitnessKey } from "../../log/sqlite/witness_pin_file.ts";
import { initLogPin } from "../../log/sqlite/mod.ts";

const T = { sanitizeResources: false, sanitizeOps: false };
const json = (s: string) => JSON.parse(s.trim().split("\n").at(-1)!);

/** A service's keys, made before it starts so that the others can be configured with them. */
async function identity(dir: string, name: string) {
  const log = ed25519GenerateSecret();
  const wit = ed25519GenerateSecret();
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/log-key.hex`, toHex(log) + "\n", { mode: 0o600 });
  await initLogPin(`${dir}/log-key.hex`); // a key made beforehand: a new log explicitly
  await Deno.writeTextFile(`${dir}/witness-key.hex`, toHex(wit) + "\n", { mode: 0o600 });
  await initWitnessKey(`${dir}/witness-key.hex`); // a key made here: a new witness, explicitly
  return {
    name,
    logSecret: log,
    logVkey: ed25519Vkey(`${name}/sha256`, log),
    witnessName: `${name}/witness`,
    witnessVkey: cosignatureVkey(`${name}/witness`, wit),
    env: (data: string) => ({
      DATA_DIR: data,
      JC_KEY_FILE: `${dir}/log-key.hex`,
      JC_WITNESS_KEY_FILE: `${dir}/witness-key.hex`,
      JC_LOG_NAME: name,
      JC_WITNESS_NAME: `${name}/witness`,
    }),
  };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function submitN(url: string, from: number, n: number, seed: number) {
  for (let i = from; i < from + n; i++) {
    const f = await Deno.makeTempFile({ suffix: ".cose" });
    await Deno.writeFile(f, validEnvelope(i, steward(seed)));
    const r = await runClient(["submit", f, "--url", url]);
    assert.equal(r.code, 0, r.stderr);
  }
}

async function appendN(url: string, from: number, n: number, seed: number) {
  await Promise.all(Array.from({ length: n }, async (_, k) => {
    const res = await fetch(`${url}/v1/log/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: validEnvelope(from + k, steward(seed)),
    });
    await res.body?.cancel();
    assert.ok(res.status === 201 || res.status === 200, `append: ${res.status}`);
  }));
}

/** The served SHA-256 checkpoint, once it is at least `size` with cosignatures by all `vkeys`. */
async function cosigned(url: string, size: number, vkeys: string[], ms = 30_000) {
  const t0 = Date.now();
  let last = "";
  while (Date.now() - t0 < ms) {
    last = await (await fetch(`${url}/log/sha256/checkpoint`)).text();
    try {
      const text = last.slice(0, last.lastIndexOf("\n\n") + 1);
      if (parseCheckpoint(text).size >= size) {
        const o = await openNote(last, vkeys.map((v) => verifierFromVkey(v)));
        if (o.verified.length === vkeys.length) return last;
      }
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Cannot see a checkpoint >= ${size} cosigned by ${vkeys.length}: ${last}`);
}

Deno.test({
  name: "witnessing: A logs, B and C witness A, A witnesses B; quorum, below quorum, split view",
  ...T,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "jc-witnessing-" });
    const A = await identity(`${tmp}/keys-a`, "a.witnessing.test/log");
    const B = await identity(`${tmp}/keys-b`, "b.witnessing.test/log");
    const C = await identity(`${tmp}/keys-c`, "c.witnessing.test/log");
    const portA = freePort();
    const urlA = `http://127.0.0.1:${portA}`;
    const services: Service[] = [];
    const start = async (env: Record<string, string>) => {
      const s = await startService(env);
      services.push(s);
      return s;
    };
    try {
      const b = await start({
        ...B.env(`${tmp}/b`),
        JC_WITNESS_LOGS: A.logVkey,
        JC_WITNESSES: `${urlA} ${A.witnessVkey}`,
      });
      const c = await start({ ...C.env(`${tmp}/c`), JC_WITNESS_LOGS: A.logVkey });
      const aEnv = {
        ...A.env(`${tmp}/a`),
        PORT: String(portA),
        JC_WITNESS_LOGS: B.logVkey,
        JC_WITNESSES: `${b.url} ${B.witnessVkey},${c.url} ${C.witnessVkey}`,
      };
      let a = await start(aEnv);
      assert.equal(a.url, urlA);
      const key = await (await fetch(`${a.url}/v1/log/key`)).json();
      assert.equal(key.vkeys.sha256, A.logVkey);
      assert.equal(key.witness_vkey, A.witnessVkey);

      // A's entries are cosigned by B and C.
      await submitN(a.url, 0, 3, 11);
      await appendN(a.url, 3, 40, 11);
      const cp = await cosigned(a.url, 43, [B.witnessVkey, C.witnessVkey]);
      const policyFile = `${tmp}/policy.txt`;
      await Deno.writeTextFile(
        policyFile,
        `# A, witnessed by B and C, both needed\nlog ${A.logVkey} ${a.url}\n` +
          `witness B ${B.witnessVkey} ${b.url}\nwitness C ${C.witnessVkey}\n` +
          `group both all B C\nquorum both\n`,
      );
      const proofFile = `${tmp}/proof.txt`;
      const p = await runClient([
        "prove",
        "1",
        "--url",
        a.url,
        "--policy",
        policyFile,
        "--tlog-proof",
        proofFile,
        "--view",
        "sha256",
      ]);
      assert.equal(p.code, 0, p.stderr);
      const proof = await Deno.readTextFile(proofFile);
      assert.ok(proof.includes(`— ${B.witnessName} `) && proof.includes(`— ${C.witnessName} `));
      const receipt = `${tmp}/r1.cose`;
      await Deno.writeFile(receipt, validEnvelope(1, steward(11)));
      const v = await runClient(["verify-proof", receipt, proofFile, "--policy", policyFile]);
      assert.equal(v.code, 0, v.stderr);
      assert.deepEqual(json(v.stdout).policy_cosigners.sort(), ["B", "C"]);
      // the same proof for another receipt does not verify
      await Deno.writeFile(`${tmp}/r2.cose`, validEnvelope(2, steward(11)));
      const v2 = await runClient([
        "verify-proof",
        `${tmp}/r2.cose`,
        proofFile,
        "--policy",
        policyFile,
      ]);
      assert.equal(v2.code, 3, v2.stderr); // a failed check (first-hour exit scheme)

      // Go's sumdb/note opens the cosigned checkpoint with A's vkey (ignoring the cosignatures),
      // and sumdb/tlog checks A's SHA-256 tiles against it.
      const go = await runTlogcheck(["-url", `${a.url}/log/sha256`, "-vkey", A.logVkey]);
      assert.equal(go.ok, true, JSON.stringify(go));
      assert.ok((go.size ?? 0) >= 43);

      // A witnesses B: B's collector gets A's cosignature.
      await appendN(b.url, 0, 10, 12);
      await cosigned(b.url, 10, [A.witnessVkey]);
      const bHash = toHex(sha256(new TextEncoder().encode(`${B.name}/sha256`)));
      const atA = await (await fetch(`${a.url}/witness/${bHash}/checkpoint`)).text();
      await openNote(atA, [verifierFromVkey(A.witnessVkey), verifierFromVkey(B.logVkey)]);

      // Split view: A′ = A's data directory copied (A stopped for the copy), then other entries.
      const sizeN = parseCheckpoint(cp.slice(0, cp.lastIndexOf("\n\n") + 1)).size;
      await a.stop();
      services.splice(services.indexOf(a), 1);
      await Deno.mkdir(`${tmp}/a2`);
      for (const f of ["log.sqlite", "witness.sqlite", "operator-key.hex", "shards.json"]) {
        await Deno.copyFile(`${tmp}/a/${f}`, `${tmp}/a2/${f}`);
      }
      // a clone run beside A, pin and all (A's own pin refuses A's older store: issue 27)
      await Deno.copyFile(`${tmp}/keys-a/log-key.hex.pin`, `${tmp}/a2/log-key.hex.pin`);
      a = await start(aEnv);
      await appendN(a.url, 100, 5, 13); // A grows by 5
      const cpA = await cosigned(a.url, 48, [B.witnessVkey, C.witnessVkey]);
      const monState = `${tmp}/monitor.json`;
      const m1 = await runClient([
        "monitor",
        a.url,
        "--state",
        monState,
        "--once",
        "--policy",
        policyFile,
      ]);
      assert.equal(m1.code, 0, m1.stderr);
      const a2 = await start({
        ...A.env(`${tmp}/a2`),
        JC_PIN_FILE: `${tmp}/a2/log-key.hex.pin`,
        JC_WITNESSES: `${b.url} ${B.witnessVkey}`,
      });
      await appendN(a2.url, 200, 5, 14); // A′ grows by 5 other entries: same size, other root
      // A′'s collector asks B, which has cosigned A at 48: 422, and A′ raises the alarm.
      let health;
      for (let i = 0; i < 100; i++) {
        health = await (await fetch(`${a2.url}/healthz`)).json();
        if (health.witness_alarm) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(health.witness_alarm, true, JSON.stringify(health));
      assert.match(health.witnesses[0].alarm, /^422/);
      assert.match(a2.stderr(), /witness collector: ALARM/);
      // A′ still serves its newest cosigned checkpoint (43, before the fork), never the refused one.
      const cpA2 = await (await fetch(`${a2.url}/log/sha256/checkpoint`)).text();
      assert.equal(parseCheckpoint(cpA2.slice(0, cpA2.lastIndexOf("\n\n") + 1)).size, sizeN);
      // And directly: A′'s tree at B's cosigned size 48 (its root from A′'s entries, signed with
      // the shared key) is refused by B.
      const leaves = [];
      for (let i = 0; i < 48; i++) {
        const res = await fetch(`${a2.url}/v1/log/entries/${i}`, {
          headers: { accept: "application/cose" },
        });
        leaves.push(sha256Hasher.leaf(new Uint8Array(await res.arrayBuffer())));
      }
      const forkRoot = referenceRoot(sha256Hasher, leaves);
      const forkNote = signCheckpoint(
        { origin: `${A.name}/sha256`, size: 48, root: forkRoot },
        A.logSecret,
      );
      const r = await fetch(`${b.url}/add-checkpoint`, {
        method: "POST",
        body: formatAddCheckpoint(48, [], new TextEncoder().encode(forkNote)),
      });
      assert.equal(r.status, 422, await r.text());
      // The monitor that saw A now polls A′: alarm.
      const m2 = await runClient(["monitor", a2.url, "--state", monState, "--once"]);
      assert.equal(m2.code, 3, `${m2.stdout} ${m2.stderr}`);
      void cpA;

      // C stops: A's next checkpoint is cosigned by B only; the client refuses it (exit 5).
      await c.stop();
      services.splice(services.indexOf(c), 1);
      await appendN(a.url, 300, 3, 15);
      await cosigned(a.url, 51, [B.witnessVkey]);
      const below = await runClient(["prove", "1", "--url", a.url, "--policy", policyFile]);
      assert.equal(below.code, 5, `${below.stdout} ${below.stderr}`);
      assert.match(below.stderr, /BELOW QUORUM.*quorum "both"/);
      const mBelow = await runClient([
        "monitor",
        a.url,
        "--state",
        `${tmp}/m2.json`,
        "--once",
        "--policy",
        policyFile,
      ]);
      assert.equal(mBelow.code, 5, mBelow.stderr);
      const health2 = await (await fetch(`${a.url}/healthz`)).json();
      assert.ok(health2.witnesses[1].failures >= 1, JSON.stringify(health2));
    } finally {
      for (const s of services) await s.stop();
    }
  },
});
