// The published shape of one conformance vector, and the helper that fills it from an envelope.

import { toHex, type Verdict } from "../../verify/mod.ts";
import { payloadOf, projectionOf } from "./build.ts";

/** What verifying the vector must answer. */
export interface Expected {
  /** The report's `valid`: verdict ≠ invalid. */
  valid: boolean;
  /** The report's verdict class (JCR-1 §6, SPEC §6; verify/verdict_class.ts). */
  verdict: Verdict;
  /**
   * The codes of the failing steps, in step order (structural … joules). Empty for valid and
   * joule-unverified; the step 6 code (out-of-band) alone for alert.
   */
  codes: string[];
  /** Codes a passing or skipped step must carry, by step name (e.g. {"joules": "within-band"}). */
  steps?: Record<string, string>;
}

/** One published vector. */
export interface Vector {
  name: string;
  description: string;
  /** For a negative vector: the reason code it exists to cover. */
  covers?: string;
  /** The schema tag the core carries (null when there is no readable core). */
  schema: string | null;
  /** The signer's kid (a did:key, or a kid the operator config's key directory resolves). */
  signer: string;
  /** The JSON projection of the signed core (null when the payload is not strict det-CBOR). */
  json: unknown;
  /** The payload bytes (the det-CBOR signed core, JCR-1 §3.3), hex. */
  signed_core_cbor_hex: string;
  /** The whole COSE_Sign1 envelope, hex. */
  cose_sign1_hex: string;
  expected: Expected;
}

/** Builds a vector; `payload` defaults to the envelope's third item. */
export function vector(
  v: {
    name: string;
    description: string;
    covers?: string;
    schema: string | null;
    signer: string;
    expected: Expected;
  },
  envelope: Uint8Array,
  payload?: Uint8Array,
): Vector {
  const p = payload ?? payloadOf(envelope);
  return {
    name: v.name,
    description: v.description,
    ...(v.covers !== undefined ? { covers: v.covers } : {}),
    schema: v.schema,
    signer: v.signer,
    json: projectionOf(p),
    signed_core_cbor_hex: toHex(p),
    cose_sign1_hex: toHex(envelope),
    expected: v.expected,
  };
}

/** A receipt's expectation when steps 1-5 pass: valid, or joule-unverified when step 6 says so. */
export function valid(steps?: Record<string, string>): Expected {
  const verdict: Verdict = steps?.joules === "joule-unverified" ? "joule-unverified" : "valid";
  return steps ? { valid: true, verdict, codes: [], steps } : { valid: true, verdict, codes: [] };
}

/** A receipt whose step 6 is out of band: appended with verdict alert (SPEC §6 DriftAlert). */
export function alert(): Expected {
  return { valid: true, verdict: "alert", codes: ["out-of-band"] };
}

/** An invalid receipt's expectation. */
export function refused(...codes: string[]): Expected {
  return { valid: false, verdict: "invalid", codes };
}
