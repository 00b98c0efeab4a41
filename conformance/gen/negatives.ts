// Negative vectors: one (at least) for every reason code that verifyEnvelope can answer as a
// refusal (verify/codes.ts minus NOT_VERIFICATION_OUTCOMES and INFORMATIONAL_CODES). Each starts
// from a positive core and breaks exactly one thing; unless the vector says otherwise the envelope
// is correctly signed, so the failure it covers is the only one.

import {
  compareBytes,
  concatBytes,
  coseProtectedHeader,
  encodeCbor,
  policyDigest,
  toHex,
} from "../../verify/mod.ts";
import type { CborValue } from "../../verify/mod.ts";
import {
  coreBytes,
  head,
  pairsOf,
  rawEnvelope,
  rawMap,
  seal,
  sealBytes,
  type Signer,
  signWithHeader,
  withRawValue,
} from "./build.ts";
import {
  b3,
  FOREIGN_POLICY,
  INPUT,
  JCP1_STEWARD,
  JCP_STEWARD,
  OTHER,
  POLICY,
  POLICY_STEWARD,
  STEWARD,
  UNKNOWN_GATEWAY,
  UNKNOWN_KID,
  VERDICT_STEWARD,
} from "./config.ts";
import { jcr1Cores, toolReceipt } from "./jcr1.ts";
import { jcp1Core, jcpCores, policyCores, verdictCore } from "./siblings.ts";
import { refused, type Vector, vector } from "./vector.ts";

type Core = Record<string, unknown>;

function neg(
  name: string,
  covers: string,
  description: string,
  schema: string | null,
  signer: string,
  envelope: Uint8Array,
  codes: string[] = [covers],
  payload?: Uint8Array,
): Vector {
  return vector(
    { name: `neg-${name}`, description, covers, schema, signer, expected: refused(...codes) },
    envelope,
    payload,
  );
}

const utf8 = new TextEncoder();
const text = (s: string) => concatBytes(head(3, utf8.encode(s).length), utf8.encode(s));

/** A COSE_Sign1 whose protected header is the given raw bytes, validly signed over them. */
function withHeader(protectedMap: Uint8Array, payload: Uint8Array, signer: Signer): Uint8Array {
  return rawEnvelope({
    protected: concatBytes(head(2, protectedMap.length), protectedMap),
    unprotected: new Uint8Array([0xa0]),
    payload: encodeCbor(payload),
    signature: encodeCbor(signWithHeader(protectedMap, payload, signer)),
  });
}

/** An envelope whose parts are given as CBOR values (protected header canonical for STEWARD). */
function envelopeOf(
  parts: Partial<Record<"protected" | "unprotected" | "payload" | "signature", Uint8Array>>,
  payload: Uint8Array,
): Uint8Array {
  const prot = coseProtectedHeader(STEWARD.kid);
  return rawEnvelope({
    protected: parts.protected ?? encodeCbor(prot),
    unprotected: parts.unprotected ?? new Uint8Array([0xa0]),
    payload: parts.payload ?? encodeCbor(payload),
    signature: parts.signature ?? encodeCbor(signWithHeader(prot, payload, STEWARD)),
  });
}

/** The envelope and structure negatives (COSE_Sign1 and strict CBOR codes). */
function envelopeNegatives(base: Core): Vector[] {
  const P = coreBytes(base);
  const good = seal(base, STEWARD);
  const k = STEWARD.kid;
  const out: Vector[] = [];
  const add = (
    name: string,
    covers: string,
    d: string,
    env: Uint8Array,
    payload: Uint8Array | undefined = P,
    schema: string | null = "1",
    codes?: string[],
  ) => out.push(neg(name, covers, d, schema, k, env, codes, payload));

  // COSE_Sign1 profile (RFC 9052 §4.2, ARCHITECTURE Decision 2)
  add(
    "cose-wrong-tag",
    "cose-wrong-tag",
    "the envelope is tagged 17 (COSE_Mac0) instead of 18",
    concatBytes(new Uint8Array([0xd1]), good),
    P,
    null,
  );
  add(
    "cose-not-array",
    "cose-not-array",
    "a 3-item array (no signature)",
    encodeCbor([encodeCbor(coseProtectedHeader(k)), new Map(), P]),
    P,
    null,
  );
  add(
    "cose-protected-not-bstr",
    "cose-protected-not-bstr",
    "the protected header is a map, not a bstr wrapping one",
    envelopeOf({ protected: coseProtectedHeader(k) }, P),
    P,
    null,
  );
  const unsorted = rawMap([[encodeCbor(4), encodeCbor(k)], [encodeCbor(1), encodeCbor(-8)]]);
  add(
    "cose-protected-not-canonical",
    "cose-protected-not-canonical",
    "protected header {4: kid, 1: -8} — keys out of order",
    withHeader(unsorted, P, STEWARD),
    P,
    null,
  );
  const extra = encodeCbor(new Map<number, CborValue>([[1, -8], [3, 0], [4, k]]));
  add(
    "cose-protected-keys",
    "cose-protected-keys",
    "protected header carries content type (3) beside alg and kid",
    withHeader(extra, P, STEWARD),
    P,
    null,
  );
  const es256 = encodeCbor(new Map<number, CborValue>([[1, -7], [4, k]]));
  add(
    "kid-alg-mismatch",
    "kid-alg-mismatch",
    "alg ES256 (-7) with an Ed25519 did:key kid (was cose-alg-unsupported before ES256 was verified)",
    withHeader(es256, P, STEWARD),
  );
  const alg19 = encodeCbor(new Map<number, CborValue>([[1, -19], [4, k]]));
  add(
    "cose-bad-alg",
    "cose-bad-alg",
    "alg -19 is not a JCR-1 algorithm",
    withHeader(alg19, P, STEWARD),
    P,
    null,
  );
  const kidBytes = encodeCbor(new Map<number, CborValue>([[1, -8], [4, utf8.encode(k)]]));
  add(
    "cose-kid-not-text",
    "cose-kid-not-text",
    "kid is a bstr, not a text string",
    withHeader(kidBytes, P, STEWARD),
    P,
    null,
  );
  add(
    "cose-unprotected-not-empty",
    "cose-unprotected-not-empty",
    "the unprotected header repeats the kid",
    envelopeOf({ unprotected: encodeCbor(new Map([[4, k]])) }, P),
    P,
    null,
  );
  add(
    "cose-payload-not-bstr",
    "cose-payload-not-bstr",
    "the core is embedded as a map instead of a bstr",
    envelopeOf({ payload: P }, P),
    P,
    null,
  );
  add(
    "cose-bad-signature",
    "cose-bad-signature",
    "a 63-byte signature",
    envelopeOf({
      signature: encodeCbor(signWithHeader(coseProtectedHeader(k), P, STEWARD).subarray(0, 63)),
    }, P),
    P,
    null,
  );

  // Strict CBOR of the envelope itself
  add(
    "truncated",
    "truncated",
    "the envelope's last byte is missing",
    good.subarray(0, good.length - 1),
    P,
    null,
  );
  add(
    "trailing-bytes",
    "trailing-bytes",
    "a 0x00 byte after the envelope",
    concatBytes(good, new Uint8Array([0])),
    P,
    null,
  );

  // Strict CBOR of the payload (signed correctly: only the encoding is wrong)
  const signed = (
    name: string,
    covers: string,
    d: string,
    payload: Uint8Array,
    schema: string | null,
    codes?: string[],
  ) => add(name, covers, d, sealBytes(payload, STEWARD), payload, schema, codes);
  signed(
    "reserved-ai",
    "reserved-ai",
    "joules_uj's head uses reserved additional information 28",
    withRawValue(base, "joules_uj", new Uint8Array([0x1c])),
    null,
  );
  signed(
    "non-shortest-head",
    "non-shortest-head",
    "joules_uj 180 encoded in a 2-byte argument (canonical step)",
    withRawValue(base, "joules_uj", head(0, 180, 2)),
    null,
  );
  signed(
    "indefinite-length",
    "indefinite-length",
    "the core is an indefinite-length map (canonical step)",
    concatBytes(new Uint8Array([0xbf]), ...pairsOf(base).flat(), new Uint8Array([0xff])),
    null,
  );
  signed(
    "unsorted-keys",
    "unsorted-keys",
    "the core's keys in reverse order (canonical step, API.md's example)",
    rawMap(pairsOf(base).reverse()),
    null,
  );
  signed(
    "lone-break",
    "lone-break",
    "a break byte where joules_uj's value belongs",
    withRawValue(base, "joules_uj", new Uint8Array([0xff])),
    null,
  );
  const f64 = new Uint8Array(9);
  f64[0] = 0xfb;
  new DataView(f64.buffer).setFloat64(1, 180);
  signed(
    "float",
    "float",
    "joules_uj as the float 180.0 (JCR-1 §3.2: no floats)",
    withRawValue(base, "joules_uj", f64),
    null,
  );
  signed(
    "simple-value",
    "simple-value",
    "eoc_stage: null, as SPEC §2's example prints it (JCR-1 §3.2: omit, never null)",
    rawMap(
      [
        ...pairsOf(base),
        [encodeCbor("eoc_stage"), new Uint8Array([0xf6])] as [Uint8Array, Uint8Array],
      ].sort((a, b) => compareBytes(a[0], b[0])),
    ),
    null,
  );
  signed(
    "tag",
    "tag",
    "closed_at as a tag-0 date-time string",
    withRawValue(
      base,
      "closed_at",
      concatBytes(new Uint8Array([0xc0]), text("2026-05-31T18:04:22Z")),
    ),
    null,
  );
  signed(
    "invalid-utf8",
    "invalid-utf8",
    "id contains the byte 0xff",
    withRawValue(base, "id", new Uint8Array([0x62, 0x72, 0xff])),
    null,
  );
  const pairs = pairsOf(base);
  const idAt = pairs.findIndex(([kk]) => toHex(kk) === toHex(encodeCbor("id")));
  signed(
    "duplicate-key",
    "duplicate-key",
    "the key id twice",
    rawMap([...pairs.slice(0, idAt + 1), pairs[idAt], ...pairs.slice(idAt + 1)]),
    null,
  );
  signed(
    "unsupported-key",
    "unsupported-key",
    "a byte-string map key",
    rawMap([[encodeCbor(new Uint8Array([0])), encodeCbor(0)], ...pairs]),
    null,
  );
  let deep: unknown = 0;
  for (let i = 0; i < 20; i++) deep = [deep];
  signed(
    "too-deep",
    "too-deep",
    "a field nested 21 levels deep (limit 16)",
    coreBytes({ ...base, x_deep: deep }, { maxDepth: 64 }),
    null,
  );
  signed(
    "too-many-items",
    "too-many-items",
    "a field holding 10,001 integers (limit 10,000 items)",
    coreBytes({ ...base, x_many: new Array(10_001).fill(0) }, { maxItems: 20_000 }),
    null,
  );
  signed(
    "core-not-map",
    "core-not-map",
    "the payload is an array, not a map",
    encodeCbor(["1", "rcpt-000002"]),
    null,
  );
  return out;
}

/** Signature-step negatives. */
function signatureNegatives(base: Core): Vector[] {
  const broken = "did:key:z6MkBROKENbase58checksumXXXXXXXXXXXXXXXXXXXXXXXX";
  return [
    neg(
      "bad-did-key",
      "bad-did-key",
      "kid (= steward) is a malformed did:key",
      "1",
      broken,
      seal({ ...base, steward: broken }, STEWARD, broken),
    ),
    neg(
      "unknown-kid",
      "unknown-kid",
      "kid (= steward) is a KERI AID the key directory does not hold",
      "1",
      UNKNOWN_KID,
      seal({ ...base, steward: UNKNOWN_KID }, STEWARD, UNKNOWN_KID),
    ),
    neg(
      "kid-steward-mismatch",
      "kid-steward-mismatch",
      "signed by steward A (kid A) but the core names steward B",
      "1",
      STEWARD.kid,
      seal({ ...base, steward: OTHER.kid }, STEWARD),
    ),
    neg(
      "bad-signature",
      "bad-signature",
      "signed by key B under kid A",
      "1",
      STEWARD.kid,
      seal(base, { ...OTHER, kid: STEWARD.kid }),
    ),
  ];
}

/** Profile negatives: structural field checks, tool receipts, honesty, joules. */
async function profileNegatives(): Promise<Vector[]> {
  const c = await jcr1Cores();
  const two = c["jcr1-02-l1-deterministic"];
  const nine = c["jcr1-09-gateway-tool-receipt-hmac"];
  const k = STEWARD.kid;
  const r = (
    name: string,
    covers: string,
    d: string,
    core: Core,
    codes?: string[],
    signer: Signer = STEWARD,
    schema: string | null = "1",
  ) => neg(name, covers, d, schema, signer.kid, seal(core, signer), codes);
  const { input_hash: _drop, ...noInput } = two;
  const trs = nine.tool_receipts as Core[];

  const out: Vector[] = [
    // structural (JCR-1 §2, §6 step 1)
    r("missing-field", "missing-field", "input_hash absent (JCR-1 §2.1 MUST)", noInput),
    r(
      "missing-schema-tag",
      "missing-field",
      "no jc_receipt / jcp_receipt tag at all",
      (({ jc_receipt: _t, ...rest }) => rest)(two),
      undefined,
      STEWARD,
      null,
    ),
    r("bad-field-type", "bad-field-type", 'joules_uj as the text "180"', {
      ...two,
      joules_uj: "180",
    }),
    r("bad-field-value", "bad-field-value", "tier L5 (JCR-1 §2.2: L0..L4)", { ...two, tier: "L5" }),
    r(
      "bad-field-value-closed-at",
      "bad-field-value",
      "closed_at with a +02:00 offset (JCR-1 §2: RFC 3339 UTC)",
      { ...two, closed_at: "2026-05-31T20:04:22+02:00" },
    ),
    r(
      "bad-field-value-input-hash",
      "bad-field-value",
      "input_hash with a b3: prefix (JCR-1 §2: lowercase hex BLAKE3-256)",
      { ...two, input_hash: "b3:" + INPUT.lawful.slice(3) },
    ),
    r(
      "field-not-allowed",
      "field-not-allowed",
      "token_attributions inside the signed core (JCR-1 §3.1)",
      { ...two, token_attributions: [{ token_idx: 0, chunk_scores: {} }] },
    ),
    r(
      "unknown-major",
      "unknown-major",
      'jc_receipt "2": an unknown major (JCR-1 §8)',
      { ...two, jc_receipt: "2" },
      undefined,
      STEWARD,
      "2",
    ),
    r(
      "unsupported-schema",
      "unsupported-schema",
      'jc_receipt "sandbox/1": a sibling schema this verifier does not implement; the envelope still verifies',
      { ...two, jc_receipt: "sandbox/1" },
      undefined,
      STEWARD,
      "sandbox/1",
    ),
    // tool receipts (JCR-1 §5, §6 step 4)
    r(
      "unknown-gateway",
      "unknown-gateway",
      "a tool receipt from a gateway the operator holds no key for",
      {
        ...nine,
        joules_uj: 6400,
        tools_touched: [...(nine.tools_touched as Core[]), {
          tool_id: "mcp:web/fetch",
          joules_uj: 1000,
          energy_provenance: "HwShunt",
        }],
        tool_receipts: [
          ...trs,
          await toolReceipt(
            "mcp:web/fetch",
            1000,
            "HwShunt",
            UNKNOWN_GATEWAY,
            utf8.encode("rogue"),
          ),
        ],
      },
    ),
    r(
      "tool-hmac-mismatch",
      "tool-hmac-mismatch",
      "a tool receipt's joules_uj raised after the gateway's HMAC",
      { ...nine, tool_receipts: [{ ...trs[0], joules_uj: 4300 }, trs[1]] },
    ),
    r(
      "hmac-field-nul",
      "hmac-field-nul",
      "a tool receipt's tool_id contains NUL (ambiguous HMAC payload, JCR-1 §5)",
      {
        ...nine,
        tool_receipts: [{ ...trs[0], tool_id: "iac:aws.ec2\u0000.describe" }, trs[1]],
      },
    ),
    // honesty (JCR-1 §2.3, §6 step 5)
    r(
      "provenance-not-worst",
      "provenance-not-worst",
      "slot 8 quietly upgraded to HwShunt (JCR-1 §9: the spec's spine)",
      { ...c["jcr1-08-mixed-span-worst-counter"], energy_provenance: "HwShunt" },
    ),
    r("joules-below-tools", "joules-below-tools", "joules_uj 100 < Σ tools_touched 180", {
      ...two,
      joules_uj: 100,
    }),
    r(
      "sub-mj-precision",
      "sub-mj-precision",
      "a ModelBased total of 3,500,001 µJ claims sub-mJ precision",
      {
        ...c["jcr1-05-l3-local-model"],
        joules_uj: 3_500_001,
      },
    ),
    r(
      "claims-on-deterministic-tier",
      "claims-on-deterministic-tier",
      "an L1 receipt carrying a claim",
      {
        ...two,
        claims: (c["jcr1-04-l2-retrieval-grounded"].claims as Core[]).slice(0, 1),
      },
    ),
    // joules (JCR-1 §6 step 6, §7.1): out of band is an alert, not a refusal (SPEC §6), so its
    // vector is jcr1.json's jcr1-13-alert-out-of-band
    // several independent failures are all reported
    neg(
      "multiple-failures",
      "bad-signature",
      "signed by the wrong key AND quietly upgraded provenance: both steps fail",
      "1",
      k,
      seal({ ...c["jcr1-08-mixed-span-worst-counter"], energy_provenance: "HwShunt" }, {
        ...OTHER,
        kid: k,
      }),
      ["bad-signature", "provenance-not-worst"],
    ),
  ];

  // policy/1 (SPEC §10.1)
  const pol = policyCores()["policy-4-allow-with-digest"];
  out.push(
    r(
      "policy-digest-mismatch",
      "policy-digest-mismatch",
      "policy_digest of a policy the operator did not supply",
      { ...pol, policy_digest: policyDigest(FOREIGN_POLICY) },
      undefined,
      POLICY_STEWARD,
      "policy/1",
    ),
  );
  out.push(
    r(
      "policy-rule-mismatch",
      "policy-rule-mismatch",
      "an allow attributed to no-shell, a deny rule of the bound policy",
      { ...pol, decision: { kind: "allow", rule: "no-shell" } },
      undefined,
      POLICY_STEWARD,
      "policy/1",
    ),
  );
  out.push(
    r(
      "policy-digest-uppercase",
      "bad-field-value",
      "policy_digest in uppercase hex",
      { ...pol, policy_digest: policyDigest(POLICY).toUpperCase() },
      undefined,
      POLICY_STEWARD,
      "policy/1",
    ),
  );

  // verdict-receipt/1 (SPEC §16.7)
  const v = verdictCore();
  out.push(
    r(
      "verdict-hash-mismatch",
      "verdict-hash-mismatch",
      "verdict_hash is not BLAKE3(verdict_json)",
      { ...v, verdict_hash: b3("another verdict") },
      undefined,
      VERDICT_STEWARD,
      "verdict-receipt/1",
    ),
  );
  const notJson = '{"jc_verdict": "verdict/1",';
  out.push(
    r(
      "verdict-json-invalid",
      "verdict-json-invalid",
      "verdict_json is truncated JSON (hash matches)",
      { ...v, verdict_json: notJson, verdict_hash: b3(notJson) },
      undefined,
      VERDICT_STEWARD,
      "verdict-receipt/1",
    ),
  );
  const otherJson = (v.verdict_json as string).replace(
    v.contract_hash as string,
    b3("another contract"),
  );
  out.push(
    r(
      "verdict-contract-mismatch",
      "verdict-contract-mismatch",
      "the verdict was produced against another contract",
      { ...v, verdict_json: otherJson, verdict_hash: b3(otherJson) },
      undefined,
      VERDICT_STEWARD,
      "verdict-receipt/1",
    ),
  );

  // jcp/2, jcp/1 (JCP §8, §8.1, §5.2)
  const j = jcpCores();
  const jr = (name: string, covers: string, d: string, core: Core) =>
    r(name, covers, d, core, undefined, JCP_STEWARD, "jcp/2");
  out.push(
    jr("deny-reason-misplaced", "deny-reason-misplaced", "an allow carrying deny_reason", {
      ...j["jcp2-1-allow"],
      deny_reason: "budget-exceeded",
    }),
  );
  out.push(
    jr(
      "deny-reason-missing",
      "deny-reason-misplaced",
      "a deny without deny_reason",
      (({ deny_reason: _d, ...rest }) => rest)(j["jcp2-2-deny"]),
    ),
  );
  out.push(
    jr(
      "bad-coverage",
      "bad-coverage",
      'energy_coverage "Whole" (JCP §5.2: carried only as Partial)',
      { ...j["jcp2-2-deny"], energy_coverage: "Whole" },
    ),
  );
  out.push(
    jr(
      "chain-length-mismatch",
      "chain-length-mismatch",
      "chain_debited_uj has 2 entries for 3 chain_ids",
      { ...j["jcp2-3-chained"], chain_debited_uj: [1200, 800] },
    ),
  );
  out.push(
    jr(
      "jcp2-missing-payload-hash",
      "missing-field",
      "a jcp/2 receipt without payload_hash (JCP §8 MUST)",
      (({ payload_hash: _p, ...rest }) => rest)(j["jcp2-1-allow"]),
    ),
  );
  const legacyWithPayload = { ...jcp1Core(), payload_hash: b3("payload") };
  out.push(
    neg(
      "jcp1-with-payload-hash",
      "field-not-allowed",
      "a jcp/1-tagged core carrying payload_hash (a mislabelled jcp/2)",
      "jcp/1",
      JCP1_STEWARD.kid,
      sealBytes(coreBytes(legacyWithPayload), JCP1_STEWARD),
    ),
  );
  return out;
}

/** Every negative vector. */
export async function negativeVectors(): Promise<Vector[]> {
  const base = (await jcr1Cores())["jcr1-02-l1-deterministic"];
  return [...envelopeNegatives(base), ...signatureNegatives(base), ...(await profileNegatives())];
}
