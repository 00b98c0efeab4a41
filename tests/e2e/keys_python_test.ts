// Identities that rotate, over real HTTP against the real service (issue 25; docs/KEYS.md), with
// chains built by an independent implementation: conformance/python/jckeys, written from JCP
// §2.1's text. Every refusal (a seq gap, a wrong parent, a thief holding the current key, a wrong
// signer, a flipped signature, a receipt by a rotated-out key), a fork and the frozen identity,
// a rotation under load (no receipt by the old key is logged after it), 10^3 identities; the
// log's entries replayed by the Python resolver re-derive the state GET /v1/keys answers.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { postTo, pyKeys, replayMatches } from "./_keys_http.ts";
import { exerciseKeyLifecycle, exerciseRotationUnderLoad } from "./_keys_scenarios.ts";

const N_IDS = Number(Deno.env.get("JC_KEYS_IDS") ?? 1000);

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
