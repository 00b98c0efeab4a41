// Test fixtures for grants and revocations (issue 25): JCP §4 grants and §4.3 revocations sealed
// as COSE_Sign1 envelopes (verify/jcp_object.ts sealJcpObject), and jcp/2 allows naming them.
import {
  blake3,
  type CborMap,
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  sealJcpObject,
  toHex,
} from "../verify/mod.ts";
import { jcpCore } from "./_streams.ts";

/** An actor with a fixed key. */
export function actor(seed: number) {
  const secret = new Uint8Array(32).fill(seed);
  return { secret, did: didKeyFromPublicKey(ed25519PublicKey(secret)) };
}
export type Actor = ReturnType<typeof actor>;

export const RESOURCE = toHex(blake3(new TextEncoder().encode("resource")));

let nonces = 0;
/** A fresh 16-byte nonce. */
export function nonce(): Uint8Array {
  const n = new Uint8Array(16);
  new DataView(n.buffer).setUint32(0, ++nonces);
  n[15] = 0x5a;
  return n;
}

/** A grant's core from `issuer` to `subject` (`more` adds or replaces fields). */
export function grantCore(issuer: Actor, subject: Actor, more: Record<string, unknown> = {}) {
  return new Map<string, unknown>(Object.entries({
    issuer: issuer.did,
    subject: subject.did,
    capability: new Map<string, unknown>([["resource", RESOURCE], ["actions", ["read", "write"]]]),
    budget_uj: 100_000,
    expiry: 0,
    nonce: nonce(),
    ...more,
  })) as CborMap;
}

/** A sealed grant and its id (JCP §3: BLAKE3 of its canonical bytes). */
export function grant(issuer: Actor, subject: Actor, more: Record<string, unknown> = {}) {
  const core = grantCore(issuer, subject, more);
  return { envelope: sealJcpObject(core, issuer.secret), id: toHex(blake3(encodeCbor(core))) };
}

/** A sealed revocation of grant `id` by `by`. */
export function revocation(id: string, by: Actor): Uint8Array {
  const core = new Map<string, unknown>([["grant_id", id], ["revoked_by", by.did], [
    "nonce",
    nonce(),
  ]]) as CborMap;
  return sealJcpObject(core, by.secret);
}

/** A jcp/2 allow by `steward` against grant `gid` (`extra`: chain_ids, issuer, ...). */
export function allow(steward: Actor, gid: string, n: number, extra: Record<string, unknown> = {}) {
  const core = { ...jcpCore(steward.did, n), grant_id: gid, ...extra };
  return coseSign1(encodeCbor(core), steward.secret, steward.did).slice();
}
