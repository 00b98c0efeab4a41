// The `meter-reading/1` signed core (SPEC §7 prefixed schema; docs/METER-READING.md) and its
// COSE_Sign1 envelope, built with verify/'s canonical CBOR and signing (ARCHITECTURE Decision 2):
// kid = the agent's did:key = the core's `agent`; `seq` from 0; `prev` = BLAKE3 of the previous
// reading's envelope (64 zeros at seq 0).

import {
  blake3,
  type CborMap,
  coseSign1,
  decodeCbor,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  envelopeContentId,
  meterReading,
  parseCoseSign1,
  toHex,
} from "../../verify/mod.ts";
import type { GradedSpan } from "./meter.ts";

/** The agent's signing identity. */
export interface Identity {
  secret: Uint8Array;
  did: string;
}

/** The identity of a 32-byte Ed25519 secret (SPEC §8: did:key over the public key). */
export function identityFromSecret(secret: Uint8Array): Identity {
  return { secret, did: didKeyFromPublicKey(ed25519PublicKey(secret)) };
}

/**
 * Where a chain stands: the next reading's seq and prev, and what the service checks the next
 * reading against (verify/profiles/meter_reading_chain.ts): the last span's end and, per domain,
 * the latest HwShunt reading (the calibration a model figure names). The same state the
 * service keeps, computed by the same function.
 */
export interface ChainHead {
  seq: number;
  prev: string;
  end?: number;
  calibrations?: Record<string, meterReading.ChainCalibration>;
}

/** Why a span does not start where the chain's last one ended (docs/METER-READING.md `gap`). */
export type GapReason = typeof meterReading.GAP_REASONS[number];

/** The chain head after `envelope`, the reading signed at `head`. */
export function headAfter(head: ChainHead, envelope: Uint8Array): ChainHead {
  const core = decodeCbor(parseCoseSign1(envelope).payload) as CborMap;
  const state = meterReading.nextChainState(core, head, toHex(envelopeContentId(envelope)!));
  return { seq: head.seq + 1, prev: envelopeHash(envelope), ...state };
}

/** The head of an empty chain. */
export const GENESIS: ChainHead = { seq: 0, prev: meterReading.GENESIS_PREV };

/** The signed core of one reading, in the field order of docs/METER-READING.md (CBOR sorts it). */
export function readingCore(
  span: GradedSpan,
  id: Identity,
  host: string,
  head: ChainHead,
  gap: GapReason = "restart",
): Record<string, unknown> {
  return {
    jc_receipt: meterReading.METER_READING_SCHEMA,
    agent: id.did,
    seq: head.seq,
    prev: head.prev,
    host,
    ...span,
    // a span after the chain's last end says why (reading-gap-unexplained)
    ...(head.end !== undefined && span.start > head.end ? { gap } : {}),
  };
}

/** Signs a core as an untagged COSE_Sign1 envelope, kid = the agent's did:key. */
export function signReading(core: Record<string, unknown>, id: Identity): Uint8Array {
  return coseSign1(encodeCbor(core), id.secret, id.did);
}

/** BLAKE3 of an envelope's bytes, lowercase hex: the next reading's `prev`. */
export function envelopeHash(envelope: Uint8Array): string {
  return toHex(blake3(envelope));
}
