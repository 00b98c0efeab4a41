// The configuration in force, published (issue 23 "The configuration in force is published and
// logged"): a `verifier-config/1` document is everything beyond the envelope that decides a
// verdict — the key directory's public keys (JCR-1 §4), the gateway ids of tool-receipt HMACs
// (JCR-1 §5; NEVER their secrets), the reference vectors and the drift bands (JCR-1 §6 step 6,
// §7.1), the policies vouched for (SPEC §10.1), the append policy and the profiles accepted.
// Canonical det-CBOR (RFC 8949 §4.2.1), sealed as a COSE_Sign1 by the operator key (kid = its
// did:key). Each document names the previous one ({digest, index}: BLAKE3 of its envelope bytes,
// its log index), so the configurations logged form one hash chain a third party can walk.
// Pure: web-standard APIs only.
import { blake3, bytesEqual, fromHex, includesAscii, toHex } from "./bytes.ts";
import { type CborMap, type CborValue, decodeCbor, encodeCbor, toJson } from "./cbor.ts";
import { coseSign1, coseSigStructure, parseCoseSign1 } from "./cose.ts";
import { resolveDidKey } from "./did_key.ts";
import { ed25519VerifyPure } from "./ed25519.ts";
import { VerifyInputError } from "./errors.ts";
import { KeyDirectory } from "./key_directory.ts";
import { DRIFT_BAND_PERCENT, REGISTRY } from "./profiles/mod.ts";
import type { VerifierOptions } from "./report.ts";

/** The document's schema tag (its `jc_config` member). */
export const VERIFIER_CONFIG_SCHEMA = "verifier-config/1";

/** The rules a document publishes (its JSON projection, without the chain members). */
export interface VerifierConfigRules {
  /** The operator key's did:key (the envelope's kid). */
  operator: string;
  /** JCR-1 §4: kid → public key, hex (32 bytes Ed25519, 33 or 65 bytes P-256). */
  keys: Record<string, string>;
  /** JCR-1 §5: the gateway ids whose tool-receipt HMACs are checked (the keys are never shown). */
  gateways: string[];
  /** JCR-1 §6 step 6: input_hash → reference joules (decimal string: a u64). */
  reference_vectors: Record<string, { joules_uj: string }>;
  /** JCR-1 §7.1: the drift band per provenance, in percent of the reference figure. */
  drift_bands: Record<string, number>;
  /** SPEC §10.1: policy_digest → the policy (its JSON text). */
  policies: Record<string, string>;
  /** Who may append: "open" or "listed" (then `stewards`). */
  appends: string;
  stewards: string[];
  /** The schema tags the verifier accepts (verify/profiles/). */
  profiles: string[];
}

/** A whole document: the rules, its place in the chain. */
export interface VerifierConfigDoc extends VerifierConfigRules {
  jc_config: typeof VERIFIER_CONFIG_SCHEMA;
  /** 1 for the first document of a log, then +1 per change. */
  seq: number;
  /** The document in force before this one (absent for seq 1). */
  previous?: { digest: string; index: number };
}

function bad(code: string, why: string): never {
  throw new VerifyInputError(code, `Cannot read the verifier configuration: ${why}`);
}

/** The rules of `opts` (and the log's append policy) as published: public parts only. */
export function verifierConfigRules(
  opts: VerifierOptions,
  o: { operator: string; appends: string; stewards: readonly string[] },
): VerifierConfigRules {
  const keys: Record<string, string> = {};
  for (const kid of (opts.keys?.kids() ?? []).sort()) keys[kid] = toHex(opts.keys!.resolve(kid)!);
  const refs: Record<string, { joules_uj: string }> = {};
  for (const h of Object.keys(opts.referenceVectors ?? {}).sort()) {
    refs[h] = { joules_uj: BigInt(opts.referenceVectors![h].joules_uj).toString() };
  }
  const policies: Record<string, string> = {};
  for (const d of Object.keys(opts.policies ?? {}).sort()) {
    policies[d] = JSON.stringify(opts.policies![d]);
  }
  const bands: Record<string, number> = {};
  for (const [p, v] of Object.entries(DRIFT_BAND_PERCENT)) bands[p] = Number(v);
  return {
    operator: o.operator,
    keys,
    // the ids only: a gateway's HMAC key is a shared secret (JCR-1 §5) and is never published
    gateways: Object.keys(opts.gatewayKeys ?? {}).sort(),
    reference_vectors: refs,
    drift_bands: bands,
    policies,
    appends: o.appends,
    stewards: [...o.stewards].sort(),
    profiles: [...REGISTRY.keys()].sort(),
  };
}

/** The det-CBOR core of a document (JCR-1 §3.2 canonical form). */
export function verifierConfigCore(doc: VerifierConfigDoc): Uint8Array {
  const core: Record<string, unknown> = {
    ...doc,
    reference_vectors: Object.fromEntries(
      Object.entries(doc.reference_vectors).map((
        [h, v],
      ) => [h, { joules_uj: BigInt(v.joules_uj) }]),
    ),
    previous: doc.previous && {
      digest: fromHex(doc.previous.digest),
      index: doc.previous.index,
    },
  };
  return encodeCbor(core);
}

/** Seals a document: COSE_Sign1 by the operator key, kid = `doc.operator` (its did:key). */
export function sealVerifierConfig(doc: VerifierConfigDoc, operatorSecret: Uint8Array): Uint8Array {
  return coseSign1(verifierConfigCore(doc), operatorSecret, doc.operator);
}

/** The digest a configuration is named by: BLAKE3 of its envelope's bytes, hex. */
export function verifierConfigDigest(envelope: Uint8Array): string {
  return toHex(blake3(envelope));
}

/** Whether two rule sets are the same (the chain members aside). */
export function sameRules(a: VerifierConfigRules, b: VerifierConfigRules): boolean {
  const rules = (d: VerifierConfigRules) => {
    const { operator, keys, gateways, reference_vectors, drift_bands, policies } = d;
    const { appends, stewards, profiles } = d;
    return {
      operator,
      keys,
      gateways,
      reference_vectors,
      drift_bands,
      policies,
      appends,
      stewards,
      profiles,
    };
  };
  return bytesEqual(encodeCbor(rules(a)), encodeCbor(rules(b)));
}

/** The decoded core if `envelope` is a COSE_Sign1 whose core carries `jc_config`, else undefined. */
export function verifierConfigCoreOf(envelope: Uint8Array): CborMap | undefined {
  // no "jc_config" bytes, no such key: not decoded (every append asks this; issue 29)
  if (!(envelope instanceof Uint8Array) || !includesAscii(envelope, "jc_config")) return undefined;
  try {
    const core = decodeCbor(parseCoseSign1(envelope).payload);
    return core instanceof Map && core.has("jc_config") ? core : undefined;
  } catch {
    return undefined;
  }
}

const TOP = new Set([
  "jc_config",
  "seq",
  "previous",
  "operator",
  "keys",
  "gateways",
  "reference_vectors",
  "drift_bands",
  "policies",
  "appends",
  "stewards",
  "profiles",
]);

/**
 * Opens a logged configuration: the schema tag, the members, the signature by `operator` (a
 * did:key Ed25519 kid, which must be the envelope's). Codes: `not-verifier-config`,
 * `bad-verifier-config`, `verifier-config-bad-signature`.
 */
export function openVerifierConfig(envelope: Uint8Array): VerifierConfigDoc {
  const core = verifierConfigCoreOf(envelope);
  if (!core || core.get("jc_config") !== VERIFIER_CONFIG_SCHEMA) {
    bad("not-verifier-config", `not a ${VERIFIER_CONFIG_SCHEMA} envelope`);
  }
  for (const k of core.keys()) {
    if (typeof k !== "string" || !TOP.has(k)) {
      bad("bad-verifier-config", `unknown member ${String(k)}`);
    }
  }
  const cose = parseCoseSign1(envelope);
  const doc = toJson(core as CborValue) as VerifierConfigDoc;
  // the JSON projection gives a u64 up to 2^53 − 1 as a number: the document's form is a string
  for (const v of Object.values(doc.reference_vectors ?? {})) v.joules_uj = String(v.joules_uj);
  if (typeof doc.operator !== "string" || doc.operator !== cose.kid) {
    bad("bad-verifier-config", "operator is not the envelope's kid");
  }
  if (!Number.isSafeInteger(doc.seq) || doc.seq < 1) bad("bad-verifier-config", "seq is not ≥ 1");
  if ((doc.seq === 1) !== (doc.previous === undefined)) {
    bad("bad-verifier-config", "previous must be present exactly when seq > 1");
  }
  const key = resolveDidKey(doc.operator);
  if (key.pub.length !== 32 || key.alg !== -8) {
    bad("bad-verifier-config", "the operator key is not Ed25519");
  }
  const sig = coseSigStructure(cose.protectedBytes, cose.payload);
  if (cose.alg !== -8 || !ed25519VerifyPure(cose.signature, sig, key.pub)) {
    bad("verifier-config-bad-signature", "the signature does not verify under the operator key");
  }
  return doc;
}

/**
 * The verifier options a document publishes, for a third party's re-verification: keys,
 * reference vectors, policies. Gateway keys are not in it (the steps that need one are the
 * operator's to attest).
 */
export function optionsFromVerifierConfig(doc: VerifierConfigRules): VerifierOptions {
  const referenceVectors: Record<string, { joules_uj: bigint }> = {};
  for (const [h, v] of Object.entries(doc.reference_vectors)) {
    referenceVectors[h] = { joules_uj: BigInt(v.joules_uj) };
  }
  const policies: Record<string, unknown> = {};
  for (const [d, text] of Object.entries(doc.policies)) policies[d] = JSON.parse(text);
  return { keys: new KeyDirectory(doc.keys), referenceVectors, policies };
}
