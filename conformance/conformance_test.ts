// The published vectors, checked: regeneration is byte-identical; every positive is valid and every
// negative refused with exactly its expected codes, on both signature paths (WebCrypto and pure,
// Ed25519 and ES256) with identical reports;
// every vector names its verdict class (valid, joule-unverified, alert, invalid) and each class
// has vectors; every refusal code of verify/codes.ts has a negative vector; any single-bit flip of a valid
// envelope makes it invalid (fast-check over vectors × bit positions).

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ALERT_CODES,
  failureCodes,
  fromHex,
  INFORMATIONAL_CODES,
  isVerdict,
  NOT_VERIFICATION_OUTCOMES,
  optionsFromConfig,
  REASON_CODES,
  verifyEnvelope,
} from "../verify/mod.ts";
import type { VerificationReport } from "../verify/mod.ts";
import { generateAll, SETS } from "./gen/all.ts";
import type { Vector } from "./gen/vector.ts";

const dir = new URL("./vectors/", import.meta.url);

async function published(): Promise<Vector[]> {
  const all: Vector[] = [];
  for (const file of Object.keys(SETS)) {
    all.push(...JSON.parse(await Deno.readTextFile(new URL(file, dir))).vectors);
  }
  return all;
}

const opts = optionsFromConfig(
  JSON.parse(await Deno.readTextFile(new URL("operator-config.json", dir))),
);
const vectors = await published();

Deno.test("conformance: regenerating the vectors changes no byte", async () => {
  const fresh = await generateAll();
  for (const [file, text] of Object.entries(fresh)) {
    const onDisk = await Deno.readTextFile(new URL(file, dir));
    assert.ok(
      onDisk === text,
      `conformance/vectors/${file} is stale: run \`deno task conformance:gen\``,
    );
  }
});

Deno.test("conformance: names are unique and each vector's hex fields are consistent", () => {
  const names = new Set<string>();
  for (const v of vectors) {
    assert.ok(!names.has(v.name), `duplicate vector name ${v.name}`);
    names.add(v.name);
    assert.match(v.cose_sign1_hex, /^([0-9a-f]{2})+$/);
    assert.ok(isVerdict(v.expected.verdict), `${v.name}: verdict ${v.expected.verdict}`);
    assert.ok(v.expected.valid === (v.expected.verdict !== "invalid"), `${v.name}: valid`);
    assert.ok(
      (v.expected.codes.length === 0) ===
        (v.expected.verdict === "valid" || v.expected.verdict === "joule-unverified"),
      `${v.name}: codes iff invalid or alert`,
    );
    if (v.expected.verdict === "alert") {
      assert.ok(v.expected.codes.every((c) => ALERT_CODES.has(c as never)), v.name);
    }
  }
});

function summary(r: VerificationReport) {
  return { valid: r.valid, verdict: r.verdict, codes: failureCodes(r) };
}

Deno.test("conformance: every vector verifies to its expected outcome (WebCrypto and pure paths alike, Ed25519 and ES256)", async () => {
  let positives = 0, negatives = 0;
  for (const v of vectors) {
    const env = fromHex(v.cose_sign1_hex);
    const fast = await verifyEnvelope(env, opts);
    const pure = await verifyEnvelope(env, { ...opts, pureEd25519: true, pureEs256: true });
    assert.deepEqual(pure, fast, `${v.name}: the two signature paths give different reports`);
    assert.deepEqual(
      summary(fast),
      { valid: v.expected.valid, verdict: v.expected.verdict, codes: v.expected.codes },
      `${v.name}: ${JSON.stringify(fast.steps)}`,
    );
    for (const [step, code] of Object.entries(v.expected.steps ?? {})) {
      assert.equal(fast.steps.find((s) => s.step === step)?.code, code, `${v.name}: step ${step}`);
    }
    assert.equal(fast.schema, v.schema, `${v.name}: schema`);
    // The report projects the core whenever it could read one; the vector publishes the payload's.
    if (fast.receipt !== null || v.expected.valid) {
      assert.deepEqual(fast.receipt, v.json, `${v.name}: receipt projection`);
    }
    if (v.expected.valid) positives++;
    else negatives++;
  }
  assert.ok(positives >= 20, `only ${positives} positive vectors`);
  assert.ok(negatives >= 50, `only ${negatives} negative vectors`);
});

Deno.test("conformance: every verdict class has vectors (JCR-1 §6, SPEC §6)", () => {
  for (const verdict of ["valid", "joule-unverified", "alert", "invalid"]) {
    assert.ok(vectors.some((v) => v.expected.verdict === verdict), `no ${verdict} vector`);
  }
});

Deno.test("conformance: every refusal reason code has a negative vector", () => {
  const covered = new Set(
    vectors.filter((v) => !v.expected.valid).flatMap((v) => v.expected.codes),
  );
  const missing = Object.keys(REASON_CODES).filter((c) =>
    !covered.has(c) && !Object.hasOwn(NOT_VERIFICATION_OUTCOMES, c) &&
    !INFORMATIONAL_CODES.has(c as never)
  );
  assert.deepEqual(
    missing.filter((c) => !ALERT_CODES.has(c as never)),
    [],
    `reason codes with no negative vector: ${missing.join(", ")}`,
  );
  // SPEC §6: an alert code is published by an alert vector (appended, not refused)
  const alerts = new Set(
    vectors.filter((v) => v.expected.verdict === "alert").flatMap((v) => v.expected.codes),
  );
  for (const c of ALERT_CODES) assert.ok(alerts.has(c), `no alert vector for ${c}`);
  for (const v of vectors) {
    for (const c of v.expected.codes) {
      assert.ok(Object.hasOwn(REASON_CODES, c), `${v.name}: ${c} is not in verify/codes.ts`);
    }
  }
});

Deno.test("conformance: the slots the specs require are all published", () => {
  const names = new Set(vectors.map((v) => v.name));
  const want = [
    ...Array.from({ length: 10 }, (_, i) => `jcr1-${String(i + 1).padStart(2, "0")}-`),
    "policy-1-",
    "policy-2-",
    "policy-3-",
    "policy-4-",
    "verdict-1",
    "jcp2-1-allow",
    "jcp2-2-deny",
    "jcp2-3-chained",
    "jcp2-4-hold",
    "jcp2-5-settle",
    "jcp1-legacy",
  ];
  for (const prefix of want) {
    assert.ok([...names].some((n) => n.startsWith(prefix)), `no vector ${prefix}*`);
  }
  // SPEC §10.1: vector 4 is vector 1 plus policy_digest — they differ by exactly that key.
  const p1 = vectors.find((v) => v.name.startsWith("policy-1-"))!.json as Record<string, unknown>;
  const p4 = {
    ...(vectors.find((v) => v.name.startsWith("policy-4-"))!.json as Record<string, unknown>),
  };
  assert.match(p4.policy_digest as string, /^[0-9a-f]{64}$/);
  delete p4.policy_digest;
  assert.deepEqual(p4, p1);
});

Deno.test("conformance: property — any single-bit flip of a valid envelope is refused", async () => {
  const valid = vectors.filter((v) => v.expected.valid).map((v) => fromHex(v.cose_sign1_hex));
  await fc.assert(
    fc.asyncProperty(fc.nat(valid.length - 1), fc.nat(), async (vi, bit) => {
      const env = valid[vi].slice();
      const b = bit % (env.length * 8);
      env[b >> 3] ^= 1 << (b & 7);
      const r = await verifyEnvelope(env, opts);
      assert.equal(r.valid, false, `vector ${vi}, bit ${b}: ${JSON.stringify(r.steps)}`);
    }),
    { numRuns: 400 },
  );
});
