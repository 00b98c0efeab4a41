// Test fixtures for streams (issue 24): JCP §8 `jcp/2` decision receipts of one steward in a
// hash-chained stream (JCP §8.1: `seq` from 0, `prev` the previous envelope's content id,
// BLAKE3 of its bytes; 64 zeros first), and JCR-1 receipts with a chosen `id`.
import { blake3, coseSign1, encodeCbor, toHex } from "../verify/mod.ts";
import { receiptCore, steward } from "../fixtures/app.ts";

export const ZEROS = "0".repeat(64);

/** A valid `jcp/2` core of `did`, with the members in `extra` (seq, prev, held_uj, settles). */
export function jcpCore(did: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    jcp_receipt: "jcp/2",
    grant_id: toHex(blake3(new TextEncoder().encode("grant"))),
    issuer: did,
    subject: did,
    resource: toHex(blake3(new TextEncoder().encode("resource"))),
    action: "read",
    payload_hash: toHex(blake3(new TextEncoder().encode(`payload ${n}`))),
    frame_kind: "tool-call",
    trust: "control",
    verdict: "allow",
    cost_uj: 1200,
    energy_provenance: "HwShunt",
    budget_remaining_uj: 98800,
    budget_uj: 100000,
    steward: did,
    ...extra,
  };
}

/** A signed `jcp/2` envelope. */
export function jcpEnvelope(
  n: number,
  extra: Record<string, unknown> = {},
  s = steward(),
): Uint8Array<ArrayBuffer> {
  return coseSign1(encodeCbor(jcpCore(s.did, n, extra)), s.secret, s.did).slice();
}

/** JCP §3: an envelope's content id, lowercase hex. */
export const cidOf = (env: Uint8Array) => toHex(blake3(env));

/** A chain of `n` links from seq 0 (`variant` makes another chain's payloads). */
export function chain(n: number, s = steward(), variant = 0): Uint8Array<ArrayBuffer>[] {
  const out: Uint8Array<ArrayBuffer>[] = [];
  let prev = ZEROS;
  for (let i = 0; i < n; i++) {
    const e = jcpEnvelope(variant * 1_000_000 + i, { seq: i, prev }, s);
    out.push(e);
    prev = cidOf(e);
  }
  return out;
}

/** A JCR-1 envelope with a chosen receipt `id` (n varies its content). */
export function receiptWithId(id: string, n: number, s = steward(), more = {}) {
  const core = { ...receiptCore(s.did, n), id, ...more };
  return coseSign1(encodeCbor(core), s.secret, s.did).slice();
}
