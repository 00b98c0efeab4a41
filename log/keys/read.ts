// Reading a key event's facts (issue 25; JCP §2.1) from its JCP object, with the checks that need
// no state: the fields' types, inception's `current` = `identity` and no `parent`, a rotation's
// `parent`. The envelope's signature (kid = `current`, Ed25519 over the Sig_structure) is checked
// by `checkKeyEvent` (the route, before the log); the chain (seq, parent, next_hash) by
// log/keys/judge.ts in the sequencer. A receipt's signer facts are its steward and its kid.
import {
  blake3,
  type CborMap,
  contentIdBytes,
  type JcpObject,
  jcpObjectSignatureProblem,
  publicKeyFromDidKey,
  readJcpObject,
} from "../../verify/mod.ts";
import { LogInputError } from "../errors.ts";
import type { KeyEventFact, SignedFact } from "./facts.ts";

function refuse(code: string, why: string): never {
  throw new LogInputError(code, `Cannot log the key event: ${why}`);
}

/** A content id field: a 32-byte bstr, or 64 lowercase hex digits (JCP §3's wire form). */
function contentId(core: CborMap, name: string): Uint8Array {
  return contentIdBytes(core.get(name)) ??
    refuse("jcp-object-fields", `\`${name}\` is not a content id (32 bytes or 64 hex)`);
}

/** An Ed25519 did:key's 32 public bytes, or the refusal naming the field. */
function didKeyField(core: CborMap, name: string): { did: string; pub: Uint8Array } {
  const v = core.get(name);
  try {
    if (typeof v === "string") return { did: v, pub: publicKeyFromDidKey(v) };
  } catch { /* refused below */ }
  return refuse("jcp-object-fields", `\`${name}\` is not an Ed25519 did:key (JCP §2)`);
}

/**
 * A key event's facts from its JCP object (kind "key-event"): throws LogInputError with
 * `jcp-object-fields` (a field's type), `key-event-bad-signature` (an inception whose `current` is
 * not its `identity`: JCP §2.1 "Inception is signed by the identity key") or
 * `key-event-parent-mismatch` (an inception with a `parent`, a rotation without one).
 */
export function keyEventFact(o: JcpObject): KeyEventFact {
  const core = o.core;
  const identity = didKeyField(core, "identity").did;
  const cur = didKeyField(core, "current");
  const seq = core.get("seq");
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) {
    refuse("jcp-object-fields", "`seq` is not an unsigned integer below 2^53");
  }
  const nonce = core.get("nonce");
  if (!(nonce instanceof Uint8Array) || nonce.length !== 16) {
    refuse("jcp-object-fields", "`nonce` is not 16 bytes (JCP §2.1)");
  }
  const nextHash = contentId(core, "next_hash");
  const f: KeyEventFact = {
    kind: "event",
    identity,
    seq,
    current: cur.did,
    currentHash: blake3(cur.pub),
    nextHash,
    cid: o.contentId,
  };
  if (seq === 0) {
    // JCP §2.1: inception is signed by the identity key, so `current` = `identity`; no parent.
    if (cur.did !== identity) {
      refuse("key-event-bad-signature", "an inception's `current` must be its `identity`");
    }
    if (core.has("parent")) refuse("key-event-parent-mismatch", "an inception has no `parent`");
  } else {
    if (!core.has("parent")) refuse("key-event-parent-mismatch", "a rotation names its `parent`");
    f.parent = contentId(core, "parent");
  }
  return f;
}

/**
 * The key event in `envelope`, checked as far as it can be without the log: its object, fields
 * and signature (kid = `current`; a wrong signer or a bad signature is `key-event-bad-signature`).
 * Undefined when the envelope holds no key event. Throws LogInputError (or verify's
 * VerifyInputError for an unreadable envelope).
 */
export async function checkKeyEvent(envelope: Uint8Array): Promise<KeyEventFact | undefined> {
  const o = readJcpObject(envelope);
  if (!o || o.kind !== "key-event") return undefined;
  const f = keyEventFact(o);
  const problem = await jcpObjectSignatureProblem(o);
  if (problem) {
    refuse(
      "key-event-bad-signature",
      problem === "jcp-object-signer"
        ? `its kid ${o.kid} is not its \`current\` key (JCP §2.1: an event is signed by its current key)`
        : "its Ed25519 signature does not verify",
    );
  }
  return f;
}

/** A key event's facts from its envelope's bytes, or undefined (never throws; no signature). */
export function keyEventFactOf(envelope: Uint8Array): KeyEventFact | undefined {
  try {
    const o = readJcpObject(envelope);
    return o?.kind === "key-event" ? keyEventFact(o) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A receipt's signer facts: its steward names an identity (a did:key: JCP §2.1 identities are
 * inception did:keys) and its kid signed it. Undefined when the steward is not a did:key.
 */
export function signedFact(steward: unknown, kid: string): SignedFact | undefined {
  return typeof steward === "string" && steward.startsWith("did:key:")
    ? { kind: "signed", identity: steward, kid }
    : undefined;
}
