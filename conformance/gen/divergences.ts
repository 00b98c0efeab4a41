// The seven divergences of issue 23, each decided against the seed text (docs/DECISIONS.md
// "Divergences"), one vector or more each. The ES256 siblings (divergence 2) are in es256.json,
// beside the other ES256 vectors; every other one is here.
//
// 1. JCP §8, §8.1: a jcp/2 (or jcp/1) core carrying a member its profile does not define: refused.
// 3. SPEC §13: a signed core carrying @context: refused `context-in-core`.
// 4. SPEC §4: trust_tier is 0..10 (JCR-1 §2.4's u8 is its width): 10 passes, 11 is refused.
// 5. JCR-1 §2: input_hash is blake3-hex; §10's "b3:…" is an illustrative, elided example: refused.
// 6. docs/METER-READING.md: a reading's agent is its kid, in the verifier as at /v1/readings.
// 7. JCP §8.1 (a cancellation is "distinguished by its frame_kind", no profile bump): frame_kind is
//    open text; a kind beyond §6's four verifies.

import { coreBytes, sealBytes, type Signer } from "./build.ts";
import { JCP1_STEWARD, JCP_STEWARD, POLICY_STEWARD, STEWARD, VERDICT_STEWARD } from "./config.ts";
import { jcr1Cores } from "./jcr1.ts";
import { meterCore } from "./meter_reading.ts";
import { jcp1Core, jcp2, policyCores, verdictCore } from "./siblings.ts";
import { refused, valid, type Vector, vector } from "./vector.ts";

type Core = Record<string, unknown>;

/** The cascade slot with claims (jcr1-04), its trust tiers replaced. */
async function withTrustTier(tier: number): Promise<Core> {
  const c = structuredClone((await jcr1Cores())["jcr1-04-l2-retrieval-grounded"]);
  (c.claims as Core[])[0].trust_tier = tier;
  return c;
}

/** Every divergence vector (positive and negative). */
export async function divergenceVectors(): Promise<Vector[]> {
  const out: Vector[] = [];
  const pos = (name: string, description: string, schema: string, core: Core, signer: Signer) =>
    out.push(
      vector(
        {
          name,
          description,
          schema,
          signer: signer.kid,
          // JCR-1 §6 step 6: a cascade receipt without a reference vector is joule-unverified
          expected: schema === "1" ? valid({ joules: "joule-unverified" }) : valid(),
        },
        sealBytes(coreBytes(core), signer),
      ),
    );
  const neg = (
    name: string,
    covers: string,
    description: string,
    schema: string,
    core: Core,
    signer: Signer,
    kid = signer.kid,
  ) =>
    out.push(
      vector(
        {
          name: `neg-${name}`,
          description,
          covers,
          schema,
          signer: kid,
          expected: refused(covers),
        },
        sealBytes(coreBytes(core), signer, kid),
      ),
    );

  // 1. JCP §8 "the core field list is per-profile"; §8.1 an earlier verifier "refuses a receipt
  // that carries one" of the members it does not know.
  neg(
    "jcp2-unknown-member",
    "field-not-allowed",
    "JCP §8, §8.1: a jcp/2 core with a member the profile does not define (model_hint)",
    "jcp/2",
    jcp2({ model_hint: "gemma" }),
    JCP_STEWARD,
  );
  neg(
    "jcp1-unknown-member",
    "field-not-allowed",
    "JCP §8: a jcp/1 core with a member neither profile defines (note)",
    "jcp/1",
    { ...jcp1Core(), note: "x" },
    JCP1_STEWARD,
  );

  // 3. SPEC §13: the canonical signed core MUST NOT include @context — on every profile.
  const ctx = "https://jouleclaw.transaction.science/vocab/v1.jsonld";
  neg(
    "context-in-core-cascade",
    "context-in-core",
    'SPEC §13: a cascade receipt "1" whose signed core carries @context',
    "1",
    { ...(await jcr1Cores())["jcr1-02-l1-deterministic"], "@context": ctx },
    STEWARD,
  );
  neg(
    "context-in-core-policy",
    "context-in-core",
    "SPEC §13: a policy/1 receipt whose signed core carries @context",
    "policy/1",
    { ...policyCores()["policy-1-allow-filesystem"], "@context": ctx },
    POLICY_STEWARD,
  );
  neg(
    "context-in-core-verdict",
    "context-in-core",
    "SPEC §13: a verdict-receipt/1 whose signed core carries @context",
    "verdict-receipt/1",
    { ...verdictCore(), "@context": ctx },
    VERDICT_STEWARD,
  );
  neg(
    "context-in-core-jcp2",
    "context-in-core",
    "SPEC §13 (JCP §8: the family's JCR-1 envelope): a jcp/2 core carrying @context",
    "jcp/2",
    jcp2({ "@context": ctx }),
    JCP_STEWARD,
  );

  // 4. SPEC §4: trust_tier is 0..10.
  pos(
    "divergence-trust-tier-0",
    "SPEC §4: trust_tier 0, the lowest tier, verifies",
    "1",
    await withTrustTier(0),
    STEWARD,
  );
  neg(
    "trust-tier-11",
    "bad-field-value",
    "SPEC §4: trust_tier is 0..10; 11 (a u8, JCR-1 §2.4's width) is outside it",
    "1",
    await withTrustTier(11),
    STEWARD,
  );

  // 5. JCR-1 §2 / §2.1: input_hash is lowercase hex BLAKE3-256; §10's "b3:9f2c...e1" is not.
  const slot2 = (await jcr1Cores())["jcr1-02-l1-deterministic"];
  neg(
    "input-hash-b3-prefix",
    "bad-field-value",
    'JCR-1 §2: input_hash is blake3-hex; the "b3:" prefix of §10\'s illustrative example is refused',
    "1",
    { ...slot2, input_hash: `b3:${slot2.input_hash}` },
    STEWARD,
  );
  neg(
    "input-hash-jcr1-example",
    "bad-field-value",
    'JCR-1 §10\'s example input_hash verbatim, "b3:9f2c...e1" (elided, prefixed): refused',
    "1",
    { ...slot2, input_hash: "b3:9f2c...e1" },
    STEWARD,
  );

  // 6. docs/METER-READING.md: the reading's agent is the kid that signed it.
  neg(
    "reading-agent-kid",
    "reading-agent-kid",
    "meter-reading/1 signed by a did:key that is not its agent (kid = signer, agent = another)",
    "meter-reading/1",
    meterCore(),
    STEWARD,
  );

  // 7. JCP §8.1: frame_kind is open — a cancellation is told apart by it with no profile bump.
  pos(
    "divergence-jcp2-frame-kind-cancel",
    "JCP §8.1: a cancellation, distinguished by its frame_kind (cancel, beyond §6's four kinds)",
    "jcp/2",
    jcp2({ frame_kind: "cancel", cost_uj: 400, budget_remaining_uj: 99_600 }),
    JCP_STEWARD,
  );
  return out;
}
