// Issue 23's divergences over real HTTP (the service as `deno task start` on 127.0.0.1, memory
// store): a signed core carrying @context is refused 422 with its own code, context-in-core (SPEC
// §13); ES256 on an EdDSA-only sibling is refused 422 alg-not-for-profile (SPEC §10, §16.7, JCP
// §8); POST /v1/verify no longer passes a meter reading whose agent is not its kid
// (reading-agent-kid); a jcp/2 core with a member the profile does not define is refused
// (field-not-allowed, JCP §8.1); a cancellation's open frame_kind is appended (JCP §8.1). Nothing
// refused is appended. The vectors are conformance/vectors/{divergences,es256}.json.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import { ROOT, startService } from "../../fixtures/service.ts";

interface Vector {
  name: string;
  cose_sign1_hex: string;
}

async function vector(file: string, name: string): Promise<Uint8Array> {
  const doc = JSON.parse(await Deno.readTextFile(`${ROOT}conformance/vectors/${file}`));
  const v = (doc.vectors as Vector[]).find((x) => x.name === name);
  assert.ok(v, `${file}: no vector ${name}`);
  return fromHex(v.cose_sign1_hex);
}

async function post(url: string, path: string, envelope: Uint8Array) {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/cose", accept: "application/json" },
    body: envelope.slice(),
  });
  return { status: res.status, body: await res.json() };
}

Deno.test({
  name: "e2e: the divergences over real HTTP — 422 with each one's code, nothing appended",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const svc = await startService({
      JC_STORE: "memory",
      JC_OPERATOR_CONFIG: `${ROOT}conformance/vectors/operator-config.json`,
    });
    try {
      // what the log holds before: the verifier configuration the service logged (issue 23)
      const cfg = await (await fetch(`${svc.url}/v1/verifier-config`)).json();
      const before = cfg.index === null ? 0 : cfg.index + 1;
      for (
        const [file, name, code] of [
          ["divergences.json", "neg-context-in-core-cascade", "context-in-core"],
          ["divergences.json", "neg-context-in-core-jcp2", "context-in-core"],
          ["divergences.json", "neg-jcp2-unknown-member", "field-not-allowed"],
          ["divergences.json", "neg-trust-tier-11", "bad-field-value"],
          ["divergences.json", "neg-input-hash-jcr1-example", "bad-field-value"],
          ["es256.json", "neg-es256-policy-1", "alg-not-for-profile"],
          ["es256.json", "neg-es256-jcp2-allow", "alg-not-for-profile"],
        ]
      ) {
        const env = await vector(file, name);
        const r = await post(svc.url, "/v1/log/entries", env);
        assert.equal(r.status, 422, `${name}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, code, name);
        const v = await post(svc.url, "/v1/verify", env);
        assert.equal(v.status, 200);
        assert.equal(v.body.valid, false, name);
      }
      // POST /v1/verify: the reading's agent is bound to its kid, at the signature step
      const reading = await post(
        svc.url,
        "/v1/verify",
        await vector("divergences.json", "neg-reading-agent-kid"),
      );
      assert.equal(reading.body.valid, false, JSON.stringify(reading.body));
      assert.deepEqual(
        reading.body.steps.find((s: { step: string }) => s.step === "signature"),
        {
          step: "signature",
          status: "fail",
          code: "reading-agent-kid",
          detail: reading.body.steps[2].detail,
        },
      );
      // nothing refused was appended; the cancellation (frame_kind "cancel") is
      const client = new LogClient(svc.url, svc.signer);
      assert.equal((await client.head()).size, before);
      const cancel = await vector("divergences.json", "divergence-jcp2-frame-kind-cancel");
      const ok = await client.submit(cancel); // checks the head's signature and the proof
      assert.deepEqual([ok.created, ok.index], [true, before]);
    } finally {
      await svc.stop();
    }
  },
});
