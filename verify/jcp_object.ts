// JCP's signed objects as log entries (issue 25; docs/DECISIONS.md "JCP objects on the wire"): a
// key event (JCP §2.1), a grant (JCP §4) or a revocation (JCP §4.3), each a COSE_Sign1 envelope in
// the receipts' one profile (ARCHITECTURE Decision 2: protected {1: -8, 4: kid}, kid the signer's
// did:key) over the object's canonical det-CBOR (JCP §3). The objects carry no type tag, and their
// content ids (a grant's `grant_id`, a key event's `parent`) are BLAKE3 of exactly those bytes, so
// nothing is added to them: the kind is read from the object's field names (jcpObjectKind), which
// no two kinds share and no receipt has (a receipt carries `jc_receipt` or `jcp_receipt`).
import { blake3, includesAscii } from "./bytes.ts";
import { type CborMap, decodeCbor, encodeCbor } from "./cbor.ts";
import { coseSign1, coseSigStructure, parseCoseSign1 } from "./cose.ts";
import { didKeyFromPublicKey, publicKeyFromDidKey } from "./did_key.ts";
import { ed25519PublicKey, ed25519Verify } from "./ed25519.ts";
import { CborError, VerifyInputError } from "./errors.ts";

/** The three JCP objects the log holds beside receipts. */
export type JcpObjectKind = "key-event" | "grant" | "revocation";

/** The fields each kind MUST carry (JCP §2.1, §4, §4.3; `?` fields are optional there). */
const REQUIRED: Readonly<Record<JcpObjectKind, readonly string[]>> = {
  "key-event": ["identity", "seq", "current", "next_hash", "nonce"],
  grant: ["issuer", "subject", "capability", "budget_uj", "expiry", "nonce"],
  revocation: ["grant_id", "revoked_by", "nonce"],
};

/** Closed field sets: a key event and a revocation have no optional fields beyond these. */
const CLOSED: Readonly<Partial<Record<JcpObjectKind, ReadonlySet<string>>>> = {
  "key-event": new Set([...REQUIRED["key-event"], "parent"]),
  revocation: new Set(REQUIRED.revocation),
};

/** The field that names each kind: no other kind (and no receipt) carries it. */
const MARK: Readonly<Record<JcpObjectKind, string>> = {
  "key-event": "next_hash",
  grant: "capability",
  revocation: "revoked_by",
};

/**
 * False when `envelope` cannot be a JCP object: no kind's marker field occurs in its bytes (a
 * det-CBOR key is its text bytes verbatim), so readJcpObject would answer undefined or refuse
 * it as unreadable. A cheap test before the decode (issue 29: every append asks it).
 */
export function mayBeJcpObject(envelope: Uint8Array): boolean {
  for (const m of Object.values(MARK)) if (includesAscii(envelope, m)) return true;
  return false;
}

/** Who signs each kind (the COSE kid): the field whose did:key MUST equal the kid. */
export const SIGNER_FIELD: Readonly<Record<JcpObjectKind, string>> = {
  "key-event": "current", // §2.1: inception by the identity (= current), rotation N by its new current
  grant: "issuer", // §4: "signed by the issuer's key"
  revocation: "revoked_by", // §4.3: "signed by revoked_by"
};

/**
 * The kind of a decoded payload, read from its field names; undefined for a receipt (it carries a
 * schema tag) or a map that is none of the three. Throws VerifyInputError("jcp-object-fields")
 * for a map that carries one kind's mark but lacks a required field, carries a field outside a
 * closed set, or carries two kinds' marks.
 *
 * @example jcpObjectKind(decodeCbor(payload) as CborMap) // "grant"
 */
export function jcpObjectKind(core: CborMap): JcpObjectKind | undefined {
  if (core.has("jc_receipt") || core.has("jcp_receipt")) return undefined;
  const kinds = (Object.keys(MARK) as JcpObjectKind[]).filter((k) => core.has(MARK[k]));
  if (kinds.length === 0) return undefined;
  if (kinds.length > 1) fields(`it carries the fields of a ${kinds.join(" and a ")}`);
  const kind = kinds[0];
  for (const f of REQUIRED[kind]) if (!core.has(f)) fields(`a ${kind} lacks \`${f}\``);
  const closed = CLOSED[kind];
  if (closed) {
    for (const k of core.keys()) {
      if (typeof k !== "string" || !closed.has(k)) fields(`a ${kind} has no field ${String(k)}`);
    }
  }
  return kind;
}

function fields(why: string): never {
  throw new VerifyInputError("jcp-object-fields", `Cannot read the JCP object: ${why}`);
}

/** A JCP object read from its envelope (its signature not yet checked: verifyJcpObject). */
export interface JcpObject {
  kind: JcpObjectKind;
  /** The COSE kid: the signer's did:key. */
  kid: string;
  /** The decoded object (the payload). */
  core: CborMap;
  /** The payload: the object's canonical det-CBOR (JCP §3). */
  payload: Uint8Array;
  /** JCP §3: BLAKE3 of the canonical bytes (a grant's `grant_id`, a key event's id), 32 bytes. */
  contentId: Uint8Array;
  /** The envelope's protected header bytes and signature, for verifyJcpObject. */
  protectedBytes: Uint8Array;
  signature: Uint8Array;
}

/**
 * Reads a JCP object from a COSE_Sign1 envelope: undefined when the envelope's payload is not one
 * (a receipt, a reading). Throws VerifyInputError with a `cose-*` code (the envelope), the
 * decoder's CborError code wrapped as `jcp-object-not-canonical` (JCP §3: canonical det-CBOR, no
 * floats, bools or nulls), `jcp-object-fields`, or `jcp-object-alg` (JCP §2: every actor is an
 * Ed25519 key, so alg -8 only).
 */
export function readJcpObject(envelope: Uint8Array): JcpObject | undefined {
  const env = parseCoseSign1(envelope);
  let core;
  try {
    core = decodeCbor(env.payload);
  } catch (e) {
    if (!(e instanceof CborError)) throw e;
    throw new VerifyInputError(
      "jcp-object-not-canonical",
      `Cannot read the JCP object: its payload is not canonical det-CBOR (JCP §3): ${e.message}`,
      { cause: e },
    );
  }
  if (!(core instanceof Map)) return undefined;
  const kind = jcpObjectKind(core as CborMap);
  if (!kind) return undefined;
  if (env.alg !== -8) {
    throw new VerifyInputError(
      "jcp-object-alg",
      "Cannot read the JCP object: JCP §2 actors are Ed25519 keys, so its alg must be -8",
    );
  }
  return {
    kind,
    kid: env.kid,
    core: core as CborMap,
    payload: env.payload,
    contentId: blake3(env.payload),
    protectedBytes: env.protectedBytes,
    signature: env.signature,
  };
}

/**
 * Whether the object is signed as its kind requires: the kid is an Ed25519 did:key, equal to the
 * signer field (SIGNER_FIELD), and the signature over the COSE Sig_structure verifies. Resolves
 * a code naming the first failure, or undefined when it holds. Never throws.
 */
export async function jcpObjectSignatureProblem(
  o: JcpObject,
): Promise<"jcp-object-signer" | "jcp-object-bad-signature" | undefined> {
  if (o.core.get(SIGNER_FIELD[o.kind]) !== o.kid) return "jcp-object-signer";
  let pub: Uint8Array;
  try {
    pub = publicKeyFromDidKey(o.kid);
  } catch {
    return "jcp-object-signer";
  }
  const ok = await ed25519Verify(o.signature, coseSigStructure(o.protectedBytes, o.payload), pub);
  return ok ? undefined : "jcp-object-bad-signature";
}

/**
 * Seals a JCP object as its signer (tests, the client, fixtures): the canonical encoding of `core`
 * signed into a COSE_Sign1 with kid = the secret's did:key. The caller sets the signer field.
 *
 * @example sealJcpObject(new Map([["grant_id", id], ["revoked_by", did], ["nonce", n]]), secret)
 */
export function sealJcpObject(core: CborMap, secret32: Uint8Array): Uint8Array {
  return coseSign1(encodeCbor(core), secret32, didKeyFromPublicKey(ed25519PublicKey(secret32)));
}
