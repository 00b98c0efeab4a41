// JCR-1 §6 — the verification flow, answered as a report (API.md `POST /v1/verify`).
//
// Six steps, always reported in this order, each pass / fail / skipped with a stable reason code
// (verify/codes.ts): structural (§6 step 1), canonical (step 2), signature (step 3), tool_receipts
// (step 4), honesty (step 5) and joules (step 6). The envelope steps (1-3) are the same for every
// sibling schema (SPEC §10, §16.7, JCP §8); the profile dispatched on the core's schema tag
// (verify/profiles/) answers the rest. A step runs whenever its inputs exist, so a report names
// every independent failure; a step whose inputs a failed step did not produce is skipped with
// `not-reached`. The report's `verdict` classes the steps (verify/verdict_class.ts): `invalid` when
// any of steps 1-5 failed, else `alert` (step 6 out of band: SPEC §6 DriftAlert, with
// `drift_alert`), `joule-unverified` (no reference vector) or `valid`; `valid` is verdict ≠ invalid.

import { entryLeafHash, toHex } from "./bytes.ts";
import { type CborMap, type CborValue, decodeCbor, encodeCbor, toJson } from "./cbor.ts";
import { encodesTo } from "./cbor_match.ts";
import { type CoseSign1, coseSigStructure, parseCoseSign1Views } from "./cose.ts";
import { ed25519Verify, ed25519VerifyPure } from "./ed25519.ts";
import { CborError, VerifyInputError } from "./errors.ts";
import type { KeyDirectory } from "./key_directory.ts";
import { resolveDidKey, type TypedPublicKey } from "./did_key.ts";
import { es256SignatureForm, es256Verify, es256VerifyPure } from "./p256.ts";
import {
  didKeyTypedCached,
  dispatch,
  type Profile,
  signedCoreFinding,
  type StepOutcome,
} from "./profiles/mod.ts";
import { bytesEqual } from "./bytes.ts";
import { type DriftAlert, driftAlert, type Verdict, verdictOf } from "./verdict_class.ts";

/** Operator configuration of a verification (docs/CONTRACTS.md). */
export interface VerifierOptions {
  /** kid → public key for kids that are not did:key (KERI AIDs, opaque names). */
  keys?: KeyDirectory;
  /** JCR-1 §5: gateway_id → HMAC key. */
  gatewayKeys?: Record<string, Uint8Array>;
  /** JCR-1 §6 step 6: input_hash → reference joules. */
  referenceVectors?: Record<string, { joules_uj: number | bigint }>;
  /** SPEC §10.1: policies the caller vouches for (indexed by their recomputed digest). */
  policies?: Record<string, unknown>;
  /**
   * Issue 25 (JCP §2.1; docs/KEYS.md): identity → its current key, for stewards with a logged
   * key-event chain: such a receipt's kid must be the identity's current key (not the identity's
   * own, once rotated). The log gives it from its chain at the append.
   */
  identities?: Readonly<Record<string, string>>;
  /** Force the pure-JS Ed25519 path (same answers as the WebCrypto path, by Decision 3). */
  pureEd25519?: boolean;
  /** Force the pure-JS ES256 path (same answers as the WebCrypto path, docs/DECISIONS.md). */
  pureEs256?: boolean;
}

/** One step of a report. */
export interface VerificationStep {
  step: string;
  status: "pass" | "fail" | "skipped";
  code?: string;
  detail?: string;
}

/** The verification report (API.md). */
export interface VerificationReport {
  /** verdict ≠ "invalid": steps 1-5 passed. */
  valid: boolean;
  /** The verdict class (JCR-1 §6, SPEC §6; verify/verdict_class.ts). */
  verdict: Verdict;
  /** Present exactly when verdict is "alert": the figure, the reference and the band. */
  drift_alert?: DriftAlert;
  schema: string | null;
  leaf_hash: string;
  steward: string | null;
  steps: VerificationStep[];
  receipt: unknown;
}

/** The report's step names, in order. */
export const STEP_NAMES = [
  "structural",
  "canonical",
  "signature",
  "tool_receipts",
  "honesty",
  "joules",
] as const;

/**
 * Decoder codes that say the payload is CBOR but not in deterministic form (RFC 8949 §4.2.1):
 * reported by the canonical step (JCR-1 §6 step 2), as API.md's example shows.
 */
export const CANONICAL_FORM_CODES: ReadonlySet<string> = new Set([
  "unsorted-keys",
  "non-shortest-head",
  "indefinite-length",
]);

const SKIP_AFTER_STRUCTURAL: StepOutcome = {
  status: "skipped",
  code: "not-reached",
  detail: "an earlier step produced no checked core",
};

function step(name: string, o: StepOutcome): VerificationStep {
  const s: VerificationStep = { step: name, status: o.status };
  if (o.code !== undefined) s.code = o.code;
  if (o.detail !== undefined) s.detail = o.detail;
  return s;
}

function codeOf(e: unknown): StepOutcome {
  if (e instanceof VerifyInputError) return { status: "fail", code: e.code, detail: e.message };
  throw e; // an operational fault, not a verification outcome
}

function projection(core: CborValue | undefined): unknown {
  if (core === undefined) return null;
  try {
    return toJson(core);
  } catch {
    return null; // e.g. keys 1 and "1" in one map: no JSON projection exists
  }
}

/** JCR-1 §6 step 3: resolve kid → key, bind kid to the core's steward, verify the signature. */
async function signatureStep(
  env: CoseSign1,
  core: CborMap | undefined,
  opts: VerifierOptions,
  profile?: Profile,
): Promise<StepOutcome> {
  // SPEC §10, §16.7, JCP §8: the sibling envelopes are `{1: -8, …}`; only the cascade receipt has
  // JCR-1 §4's choice of ES256 (docs/DECISIONS.md "Divergences").
  if (profile?.algs && !profile.algs.includes(env.alg as -8 | -7)) {
    return {
      status: "fail",
      code: "alg-not-for-profile",
      detail: `alg ${env.alg} is not an algorithm of the ${profile.schema} envelope (${
        profile.algs.join(", ")
      } only: SPEC §10, §16.7, JCP §8)`,
    };
  }
  let key: TypedPublicKey | undefined;
  if (env.kid.startsWith("did:key:")) {
    // SPEC §8: a did:key kid certifies itself (memoised: stewards recur).
    key = didKeyTypedCached(env.kid) ?? undefined;
    if (!key) {
      try {
        resolveDidKey(env.kid); // throws the primitive's own code and message
      } catch (e) {
        return codeOf(e);
      }
    }
  } else {
    // JCR-1 §4: any other kid resolves through the operator's key directory.
    key = opts.keys?.resolveTyped(env.kid);
  }
  if (!key) {
    return {
      status: "fail",
      code: "unknown-kid",
      detail: `kid ${
        JSON.stringify(env.kid)
      } is not a did:key and is not in the key directory (JCR-1 §4)`,
    };
  }
  // SPEC §10, §16.7, JCP §8: verifiers reject envelopes whose kid disagrees with the steward; a
  // meter reading's signer is its agent (docs/METER-READING.md), bound the same way.
  const binding = profile?.signer ?? { field: "steward", code: "kid-steward-mismatch" };
  const steward = core?.get(binding.field);
  // JCP §2.1: an identity's controlling key is its chain's current key, not the identity itself
  const ids = opts.identities;
  const current = typeof steward === "string" && !profile?.signer && ids &&
      Object.hasOwn(ids, steward)
    ? ids[steward]
    : undefined;
  if (current !== undefined && current !== env.kid) {
    return {
      status: "fail",
      code: "key-rotated-out",
      detail: `kid ${env.kid} is not ${steward}'s current key ${current} (JCP §2.1)`,
    };
  }
  if (current === undefined && typeof steward === "string" && steward !== env.kid) {
    return {
      status: "fail",
      code: binding.code,
      detail: `kid ${env.kid} ≠ ${binding.field} ${steward}`,
    };
  }
  if (key.alg !== env.alg) {
    // RFC 9052 §3.1: the key is used with the header's algorithm only (docs/DECISIONS.md "ES256")
    const names = { [-8]: "Ed25519 (EdDSA, -8)", [-7]: "P-256 (ES256, -7)" };
    return {
      status: "fail",
      code: "kid-alg-mismatch",
      detail: `the kid names a ${names[key.alg]} key but the header's alg is ${env.alg}`,
    };
  }
  const pub = key.pub;
  const msg = coseSigStructure(env.protectedBytes, env.payload); // RFC 9052 §4.4
  if (env.alg === -7) {
    const form = es256SignatureForm(env.signature); // SEC 1 §4.1.4 step 1: 0 < r, s < n
    if (form === "r-range" || form === "s-range") {
      return {
        status: "fail",
        code: form === "r-range" ? "es256-r-range" : "es256-s-range",
        detail: `ES256 signature's ${form[0]} is 0 or not below the group order n (SEC 1 §4.1.4)`,
      };
    }
    const ok = opts.pureEs256
      ? es256VerifyPure(env.signature, msg, pub)
      : await es256Verify(env.signature, msg, pub);
    return ok ? { status: "pass" } : {
      status: "fail",
      code: "bad-signature",
      detail: "ES256 signature does not verify (ECDSA P-256 / SHA-256, SEC 1 §4.1.4)",
    };
  }
  const ok = opts.pureEd25519
    ? ed25519VerifyPure(env.signature, msg, pub)
    : await ed25519Verify(env.signature, msg, pub);
  return ok ? { status: "pass" } : {
    status: "fail",
    code: "bad-signature",
    detail: "Ed25519 signature does not verify (strict, RFC 8032 §5.1.7)",
  };
}

/**
 * Verifies one COSE_Sign1 envelope (the bytes exactly as submitted) and reports every step.
 * Never throws for bad input: malformed bytes are a report with a code. Throws only on an
 * operational fault.
 *
 * @example
 * ```ts
 * const report = await verifyEnvelope(bytes, { gatewayKeys: { "gw-edge-7": key } });
 * if (!report.valid) console.log(report.steps.filter((s) => s.status === "fail"));
 * ```
 */
export async function verifyEnvelope(
  envelope: Uint8Array,
  opts: VerifierOptions = {},
): Promise<VerificationReport> {
  const leaf_hash = toHex(entryLeafHash(envelope)); // SPEC §22.1: the entry is the bytes as received
  const out = new Map<string, StepOutcome>();
  let schema: string | null = null;
  let core: CborMap | undefined;
  let decoded: CborValue | undefined;
  let profile: Profile | undefined;
  let dispatched: Profile | undefined; // the tag's profile, even when its field checks failed

  // Step 1 (structural): COSE_Sign1, the payload as det-CBOR, the schema tag, the profile's fields.
  // Views into `envelope` for protected/payload: read only in this synchronous part (decode,
  // canonical check, Sig_structure copy) before the first await; the signature is a copy.
  let env: CoseSign1 | undefined;
  try {
    env = parseCoseSign1Views(envelope);
  } catch (e) {
    out.set("structural", codeOf(e));
  }
  let canonical: StepOutcome | undefined;
  if (env) {
    try {
      decoded = decodeCbor(env.payload);
    } catch (e) {
      const o = codeOf(e);
      if (e instanceof CborError && CANONICAL_FORM_CODES.has(e.code)) {
        canonical = o; // CBOR, but not deterministic: JCR-1 §6 step 2 refuses it
        out.set("structural", {
          status: "pass",
          detail:
            "envelope parsed; the core is not deterministic CBOR, so its fields were not checked",
        });
      } else out.set("structural", o);
    }
  }
  if (decoded !== undefined) {
    if (!(decoded instanceof Map)) {
      out.set("structural", {
        status: "fail",
        code: "core-not-map",
        detail: "the signed core is not a CBOR map (JCR-1 §3.2)",
      });
    } else {
      core = decoded;
      const d = dispatch(core);
      schema = d.schema;
      if (d.kind === "refused") {
        out.set("structural", { status: "fail", code: d.code, detail: d.detail });
      } else {
        dispatched = d.profile;
        const f = signedCoreFinding(core) ?? d.profile.structure(core);
        if (f) out.set("structural", { status: "fail", code: f.code, detail: f.detail });
        else {
          profile = d.profile;
          out.set("structural", { status: "pass" });
        }
      }
    }
  }

  // Step 2 (canonical): recompute CORE from the parsed fields; it MUST equal the payload (JCR-1 §3.3).
  // encodesTo shows equality head by head without building CORE; when it cannot, the encoder
  // decides, so the answer is always the encoder's (verify/cbor_match.ts).
  if (canonical) out.set("canonical", canonical);
  else if (core && env) {
    out.set(
      "canonical",
      encodesTo(core, env.payload) || bytesEqual(encodeCbor(core), env.payload)
        ? { status: "pass" }
        : {
          status: "fail",
          code: "non-canonical",
          detail: "re-encoding the core does not reproduce the payload (JCR-1 §3.3)",
        },
    );
  } else out.set("canonical", SKIP_AFTER_STRUCTURAL);

  // Step 3 (signature): independent of the payload's form — it signs the bytes as received.
  out.set(
    "signature",
    env ? await signatureStep(env, core, opts, dispatched) : SKIP_AFTER_STRUCTURAL,
  );

  // Steps 4-6 belong to the profile and need a core that passed its field checks.
  if (profile && core) {
    out.set("tool_receipts", await profile.toolReceipts(core, opts));
    out.set("honesty", profile.honesty(core, opts));
    out.set("joules", profile.joules(core, opts));
  } else {
    for (const s of ["tool_receipts", "honesty", "joules"]) out.set(s, SKIP_AFTER_STRUCTURAL);
  }

  const steps = STEP_NAMES.map((n) => step(n, out.get(n)!));
  const steward = core?.get("steward");
  const verdict = verdictOf(steps);
  const drift = out.get("joules")!.drift;
  return {
    valid: verdict !== "invalid",
    verdict,
    ...(verdict === "alert" && drift ? { drift_alert: driftAlert(drift) } : {}),
    schema,
    leaf_hash,
    steward: typeof steward === "string" ? steward : null,
    steps,
    receipt: projection(core ?? decoded),
  };
}

/**
 * A report's `receipt` computed from the envelope alone: the same value verifyEnvelope reports (the
 * JSON projection of the decoded payload, or null when the envelope or its payload does not
 * decode). For a report moved between threads without its projection (api/services/verify_pool.ts).
 */
export function receiptOf(envelope: Uint8Array): unknown {
  let decoded: CborValue;
  try {
    decoded = decodeCbor(parseCoseSign1Views(envelope).payload);
  } catch {
    return null;
  }
  return projection(decoded);
}

/** The codes of a report's failing steps, in step order (what a conformance vector expects). */
export function failureCodes(r: VerificationReport): string[] {
  return r.steps.filter((s) => s.status === "fail").map((s) => s.code!);
}
