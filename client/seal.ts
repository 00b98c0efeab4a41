// Making receipts for testing a runtime (README "Making receipts"): a steward key, and sealing a
// signed core given as its JSON projection (the report's `receipt`, API.md) into a COSE_Sign1
// envelope (JCR-1 §4) carrying the canonical det-CBOR core (JCR-1 §3.2, RFC 8949 §4.2.1).
//
// What the verifier would refuse is refused here, with the verifier's own codes: the sealed
// envelope is run through verifyEnvelope under the default configuration before it is handed
// out. Pure: web APIs only.
//
// Signature algorithms are a table (KEY_SCHEMES), one row per COSE alg the verifier accepts:
// EdDSA (Ed25519, did:key z6Mk…, alg -8) and ES256 (P-256, did:key zDn…, alg -7; JCR-1 §4).
import {
  assertMintable,
  COSE_ALG_ES256,
  coseProtectedHeader,
  coseSigStructure,
  didKeyFromP256PublicKey,
  didKeyFromPublicKey,
  ed25519GenerateSecret,
  ed25519PublicKey,
  ed25519Sign,
  encodeCbor,
  es256Sign,
  failureCodes,
  fromHex,
  fromJson,
  p256GenerateSecret,
  p256PublicKey,
  REGISTRY,
  toHex,
  VerifyInputError,
} from "../verify/mod.ts";
import type { CborMap, CborValue, VerificationReport } from "../verify/mod.ts";

/** A signature algorithm by its COSE name. */
export type SigningAlg = "EdDSA" | "ES256";

/** A steward's signing key. */
export interface SigningKey {
  alg: SigningAlg;
  /** The COSE kid and the cores' `steward`: a did:key. */
  kid: string;
  secret: Uint8Array;
}

/** One signature algorithm: how to make a key, name it, and sign with it. */
export interface KeyScheme {
  alg: SigningAlg;
  /** A key from its secret (validates the secret). */
  fromSecret(secret: Uint8Array): SigningKey;
  generate(): SigningKey;
  /** The protected header bstr for `kid` (JCR-1 §4: alg and kid only). */
  protectedHeader(kid: string): Uint8Array;
  sign(message: Uint8Array, key: SigningKey): Uint8Array;
}

const eddsa: KeyScheme = {
  alg: "EdDSA",
  fromSecret(secret) {
    if (secret.length !== 32) {
      throw new VerifyInputError(
        "bad-key-file",
        "Cannot use the key: an EdDSA secret is 32 bytes (64 hex digits)",
      );
    }
    return { alg: "EdDSA", kid: didKeyFromPublicKey(ed25519PublicKey(secret)), secret };
  },
  generate() {
    return eddsa.fromSecret(ed25519GenerateSecret());
  },
  protectedHeader: (kid) => coseProtectedHeader(kid),
  sign: (message, key) => ed25519Sign(message, key.secret),
};

const es256: KeyScheme = {
  alg: "ES256",
  fromSecret(secret) {
    if (secret.length !== 32) {
      throw new VerifyInputError("bad-key-file", "Cannot use the key: a P-256 secret is 32 bytes");
    }
    let pub: Uint8Array;
    try {
      pub = p256PublicKey(secret); // refuses 0 and scalars >= n
    } catch {
      throw new VerifyInputError("bad-key-file", "Cannot use the key: not a valid P-256 scalar");
    }
    return { alg: "ES256", kid: didKeyFromP256PublicKey(pub), secret };
  },
  generate() {
    return es256.fromSecret(p256GenerateSecret());
  },
  protectedHeader: (kid) => coseProtectedHeader(kid, COSE_ALG_ES256),
  sign: (message, key) => es256Sign(message, key.secret),
};

/** The algorithms keygen and seal support, by name (COSE alg names, JCR-1 §4). */
export const KEY_SCHEMES: Partial<Record<SigningAlg, KeyScheme>> = { EdDSA: eddsa, ES256: es256 };

/** The scheme of `alg`, or a refusal naming the ones there are. */
export function keyScheme(alg: string): KeyScheme {
  const s = KEY_SCHEMES[alg as SigningAlg];
  if (!s) {
    throw new VerifyInputError(
      "cose-alg-unsupported",
      `Cannot sign with ${alg}: not supported here (supported: ${
        Object.keys(KEY_SCHEMES).join(", ")
      })`,
    );
  }
  return s;
}

/** The text of a key file: JSON with the alg, the kid and the secret (keep it private). */
export function keyFileText(key: SigningKey): string {
  return JSON.stringify({ alg: key.alg, kid: key.kid, secret_hex: toHex(key.secret) }, null, 1) +
    "\n";
}

/**
 * Reads a key file: the JSON keyFileText writes, or a bare 64-hex Ed25519 secret (the meter
 * agent's and the log's key files). The kid is recomputed from the secret and must match.
 */
export function parseKeyFile(text: string): SigningKey {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return eddsa.fromSecret(fromHex(t.toLowerCase()));
  let doc: { alg?: unknown; kid?: unknown; secret_hex?: unknown };
  try {
    doc = JSON.parse(t);
  } catch {
    throw new VerifyInputError(
      "bad-key-file",
      "Cannot read the key file: it is neither the JSON `client keygen` writes nor 64 hex digits",
    );
  }
  if (typeof doc?.secret_hex !== "string" || !/^[0-9a-f]+$/.test(doc.secret_hex)) {
    throw new VerifyInputError(
      "bad-key-file",
      "Cannot read the key file: secret_hex is missing or not lowercase hex",
    );
  }
  const key = keyScheme(String(doc.alg ?? "EdDSA")).fromSecret(fromHex(doc.secret_hex));
  if (doc.kid !== undefined && doc.kid !== key.kid) {
    throw new VerifyInputError(
      "bad-key-file",
      `Cannot read the key file: kid ${doc.kid} is not the secret's (${key.kid})`,
    );
  }
  return key;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const U64_MAX = (1n << 64n) - 1n;

type FieldType = { t: string; of?: FieldType; fields?: Record<string, { type: FieldType }> };

/** Undoes the projection's one lossy step: a uint above 2^53 - 1 written as a decimal string. */
function restoreU64(v: CborValue, type: FieldType | undefined): CborValue {
  if (!type) return v;
  if (type.t === "uint" && typeof v === "string" && /^[1-9][0-9]*$/.test(v)) {
    const n = BigInt(v);
    return n > MAX_SAFE && n <= U64_MAX ? n : v; // anything else stays text: the verifier says why
  }
  if (type.t === "array" && Array.isArray(v)) return v.map((x) => restoreU64(x, type.of));
  if (type.t === "map" && v instanceof Map) return restoreMap(v, type.fields ?? {});
  return v;
}

function restoreMap(m: CborMap, table: Record<string, { type: FieldType }>): CborMap {
  const out: CborMap = new Map();
  for (const [k, v] of m) {
    out.set(k, typeof k === "string" ? restoreU64(v, table[k]?.type) : v);
  }
  return out;
}

/**
 * The CBOR core of a JSON projection (toJson's inverse): integers stay integers, strings text, and
 * a decimal string in a uint field of the core's profile above 2^53 - 1 becomes that integer.
 * Floats, null and booleans are refused with the encoder's codes.
 */
export function coreFromProjection(projection: unknown): CborMap {
  if (!projection || typeof projection !== "object" || Array.isArray(projection)) {
    throw new VerifyInputError("bad-core", "Cannot seal: the core must be a JSON object");
  }
  const m = fromJson(projection) as CborMap;
  const tag = m.get("jc_receipt") ?? m.get("jcp_receipt");
  const profile = typeof tag === "string" ? REGISTRY.get(tag) : undefined;
  return profile?.fields
    ? restoreMap(m, profile.fields as unknown as Record<string, { type: FieldType }>)
    : m;
}

/** The verifier refused the sealed receipt: `codes` are its failing steps' reason codes. */
export class SealRefused extends Error {
  constructor(readonly codes: string[], readonly report: VerificationReport) {
    super(
      `Cannot seal the core: the verifier would refuse it: ` +
        report.steps.filter((s) => s.status === "fail").map((s) =>
          `${s.step}: ${s.code}${s.detail ? ` (${s.detail})` : ""}`
        ).join("; "),
    );
    this.name = "SealRefused";
  }
}

/**
 * Seals a core (its JSON projection) with `key`: canonical det-CBOR payload, COSE_Sign1 with
 * {1: alg, 4: kid}. Throws SealRefused (the verifier's codes) when `verify` (verifyEnvelope under
 * the service's configuration) refuses the result; VerifyInputError / CborError before that.
 */
export async function sealCore(
  projection: unknown,
  key: SigningKey,
  verify: (envelope: Uint8Array) => Promise<VerificationReport>,
): Promise<{ envelope: Uint8Array; report: VerificationReport }> {
  const core = coreFromProjection(projection);
  assertMintable(Object.fromEntries(core)); // JCP §8: a verify-only profile is never minted
  const scheme = keyScheme(key.alg);
  const payload = encodeCbor(core); // canonical: RFC 8949 §4.2.1 key order, shortest forms
  const prot = scheme.protectedHeader(key.kid);
  const sig = scheme.sign(coseSigStructure(prot, payload), key);
  const envelope = encodeCbor([prot, new Map(), payload, sig]);
  const report = await verify(envelope);
  if (!report.valid) throw new SealRefused(failureCodes(report), report);
  return { envelope, report };
}
