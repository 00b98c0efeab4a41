// Operator configuration of a verifier as JSON (the CLI's --config file, and the
// operator-config.json published beside the conformance vectors): gateway HMAC keys (JCR-1 §5),
// the key directory for kids that are not did:key (JCR-1 §4), reference vectors for joule
// re-validation (JCR-1 §6 step 6) and the policies a caller vouches for (SPEC §10.1).
//
//   {
//     "gateway_keys":      { "<gateway_id>": "<hex key>" },
//     "keys":              { "<kid>": "<64 hex> | did:key:..." },
//     "reference_vectors": { "<input_hash>": { "joules_uj": <integer or decimal string> } },
//     "policies":          [ <policy>, ... ]            // or { "<any name>": <policy> }
//   }

import { fromHex, toHex } from "./bytes.ts";
import { VerifyInputError } from "./errors.ts";
import { KeyDirectory } from "./key_directory.ts";
import { parsePolicy, policyDigest } from "./policy_digest.ts";
import type { VerifierOptions } from "./report.ts";

const TOP_LEVEL = new Set(["description", "gateway_keys", "keys", "reference_vectors", "policies"]);

function bad(why: string): never {
  throw new VerifyInputError("bad-config", `Cannot load operator config: ${why}`);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function joules(v: unknown, where: string): bigint {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^(0|[1-9][0-9]*)$/.test(v) && BigInt(v) < 1n << 64n) {
    return BigInt(v);
  }
  bad(`${where} must be a u64 (a JSON integer, or a decimal string above 2^53-1)`);
}

/**
 * Turns an operator-config JSON document into VerifierOptions. Unknown top-level members are
 * refused (a typo must not silently drop a key). Throws VerifyInputError: "bad-config",
 * "bad-hex", "bad-key-directory" or "bad-policy".
 *
 * @example
 * ```ts
 * const opts = optionsFromConfig(JSON.parse(await Deno.readTextFile("operator-config.json")));
 * await verifyEnvelope(bytes, opts);
 * ```
 */
export function optionsFromConfig(doc: unknown): VerifierOptions {
  if (!isObj(doc)) bad("the config must be a JSON object");
  for (const k of Object.keys(doc)) {
    if (!TOP_LEVEL.has(k)) bad(`unknown member ${JSON.stringify(k)}`);
  }
  const opts: VerifierOptions = {};
  if (doc.gateway_keys !== undefined) {
    if (!isObj(doc.gateway_keys)) bad("gateway_keys must be an object of gateway_id → hex key");
    const g: Record<string, Uint8Array> = {};
    for (const [id, hex] of Object.entries(doc.gateway_keys)) {
      if (typeof hex !== "string") bad(`gateway_keys.${id} must be a hex string`);
      const key = fromHex(hex);
      if (key.length === 0) bad(`gateway_keys.${id} is empty`);
      g[id] = key;
    }
    opts.gatewayKeys = g;
  }
  if (doc.keys !== undefined) {
    if (!isObj(doc.keys)) bad("keys must be an object of kid → hex public key or did:key");
    opts.keys = new KeyDirectory(doc.keys as Record<string, string>);
  }
  if (doc.reference_vectors !== undefined) {
    if (!isObj(doc.reference_vectors)) {
      bad("reference_vectors must be an object of input_hash → {joules_uj}");
    }
    const r: Record<string, { joules_uj: bigint }> = {};
    for (const [h, v] of Object.entries(doc.reference_vectors)) {
      if (!/^[0-9a-f]{64}$/.test(h)) {
        bad(`reference_vectors key ${JSON.stringify(h)} is not a 64-hex input_hash`);
      }
      if (!isObj(v)) bad(`reference_vectors.${h} must be an object {joules_uj}`);
      r[h] = { joules_uj: joules(v.joules_uj, `reference_vectors.${h}.joules_uj`) };
    }
    opts.referenceVectors = r;
  }
  if (doc.policies !== undefined) {
    const list = Array.isArray(doc.policies)
      ? doc.policies
      : isObj(doc.policies)
      ? Object.values(doc.policies)
      : bad("policies must be an array of policies");
    const p: Record<string, unknown> = {};
    // Keyed by the recomputed SPEC §10.1 digest, never by a name the file chose.
    for (const doc of list) {
      const policy = parsePolicy(doc);
      p[policyDigest(policy)] = policy;
    }
    opts.policies = p;
  }
  return opts;
}

/**
 * Merges option sets, later ones adding to (and overriding entries of) earlier ones — how CLI
 * flags layer over a --config file.
 */
export function mergeOptions(...all: VerifierOptions[]): VerifierOptions {
  const out: VerifierOptions = {};
  const kids: Record<string, string> = {};
  for (const o of all) {
    if (o.gatewayKeys) out.gatewayKeys = { ...out.gatewayKeys, ...o.gatewayKeys };
    if (o.referenceVectors) {
      out.referenceVectors = { ...out.referenceVectors, ...o.referenceVectors };
    }
    if (o.policies) out.policies = { ...out.policies, ...o.policies };
    if (o.pureEd25519 !== undefined) out.pureEd25519 = o.pureEd25519;
    if (o.pureEs256 !== undefined) out.pureEs256 = o.pureEs256;
    if (o.keys) {
      for (const kid of o.keys.kids()) {
        kids[kid] = toHex(o.keys.resolve(kid)!);
      }
    }
  }
  if (Object.keys(kids).length) out.keys = new KeyDirectory(kids);
  return out;
}
