// Identities that rotate, over real HTTP against the real service (issue 25; docs/KEYS.md), with
// chains built by an independent implementation: conformance/python/jckeys, written from JCP
// §2.1's text. Every refusal (a seq gap, a wrong parent, a thief holding the current key, a wrong
// signer, a flipped signature, a receipt by a rotated-out key), a fork and the frozen identity,
// a rotation under load (no receipt by the old key is logged after it), 10^3 identities; the
// log's entries replayed by the Python resolver re-derive the state GET /v1/keys answers.
import assert from "node:assert/strict";
import { ROOT, startService } from "../../fixtures/service.ts";
import { logEntries, postTo, pyKeys, replayMatches } from "./_keys_http.ts";
import { exerciseKeyLifecycle, exerciseRotationUnderLoad } from "./_keys_scenarios.ts";

const N_IDS = Number(Deno.env.get("JC_KEYS_IDS") ?? 1000);

/** `python3 -m jcverify FILE --key-events EVENTS --compact`: its exit code and report. */
async function jcverify(file: string, events: string) {
  const out = await new Deno.Command("/usr/bin/python3", {
    args: ["-m", "jcverify", file, "--key-events", events, "--compact"],
    cwd: `${ROOT}conformance/python`,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  return { code: out.code, report: text ? JSON.parse(text) : new TextDecoder().decode(out.stderr) };
}

/**
 * The offline re-derivation of a receipt's verdict: the independent verifier, given the log's key
 * events before each logged receipt under the identity, finds it valid; given all of them, the
 * receipt the log refused by its rotated-out key is key-rotated-out there too.
 */
async function jcverifyAgrees(u: string, dir: string): Promise<void> {
  const doc = await pyKeys(["lifecycle", "3"]) as {
    identity: string;
    steps: { name: string; hex: string }[];
  };
  const entries = await logEntries(u);
  const isEvent = (h: string) =>
    doc.steps.some((s) => s.hex === h && !s.name.startsWith("receipt"));
  let checked = 0;
  for (let i = 0; i < entries.length; i++) {
    const step = doc.steps.find((s) => s.hex === entries[i] && s.name.startsWith("receipt"));
    if (!step) continue;
    const events = `${dir}/events-${i}.json`, file = `${dir}/receipt-${i}.hex`;
    await Deno.writeTextFile(events, JSON.stringify(entries.slice(0, i).filter(isEvent)));
    await Deno.writeTextFile(file, entries[i]);
    const r = await jcverify(file, events);
    assert.equal(r.code, 0, `${step.name}: ${JSON.stringify(r.report)}`);
    checked++;
  }
  assert.ok(checked >= 3, `${checked} receipts re-derived`);
  const all = `${dir}/events-all.json`, out = `${dir}/rotated-out.hex`;
  await Deno.writeTextFile(all, JSON.stringify(entries.filter(isEvent)));
  await Deno.writeTextFile(
    out,
    doc.steps.find((s) => s.name === "receipt-by-rotated-out-key")!.hex,
  );
  const r = await jcverify(out, all);
  assert.equal(r.code, 1, JSON.stringify(r.report));
  assert.deepEqual(r.report.codes, ["key-rotated-out"]);
}

Deno.test({
  name: "e2e keys: a Python-built lifecycle, every refusal, a fork, the thief of §2.1",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-keys-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const u = svc.url;
    try {
      await exerciseKeyLifecycle(u);
      await jcverifyAgrees(u, dir);
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "e2e keys: a rotation under load; no receipt by the old key is logged after it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-keys-load-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const u = svc.url;
    try {
      await exerciseRotationUnderLoad(u, 300);
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "e2e keys: 10^3 identities, each an inception and a rotation",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-keys-many-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const u = svc.url;
    try {
      const d = await pyKeys(["many", "5", String(N_IDS)]) as {
        identities: { identity: string; send: string[]; current: string }[];
      };
      let next = 0;
      await Promise.all(Array.from({ length: 32 }, async () => {
        while (next < d.identities.length) {
          const idn = d.identities[next++];
          for (const e of idn.send) {
            const r = await postTo(u, "/v1/keys/events", e);
            assert.equal(r.status, 201, JSON.stringify(r.body));
          }
        }
      }));
      for (const idn of d.identities.filter((_, j) => j % 97 === 0)) {
        const got = await (await fetch(`${u}/v1/keys/${idn.identity}`)).json();
        assert.deepEqual([got.seq, got.current], [1, idn.current]);
      }
      await replayMatches(u, d.identities.filter((_, j) => j % 97 === 0).map((i) => i.identity));
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
