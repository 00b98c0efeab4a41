// The shape every receipt profile implements (JCR-1 §6 steps 1, 4, 5, 6 per schema tag).
//
// The envelope steps (COSE_Sign1 parse, canonical re-encode, signature) are the same for every
// sibling schema (SPEC §10, §16.7; JCP §8) and live in verify/report.ts. A profile contributes
// what differs: its field list (structural), tool-receipt attestations, its internal consistency
// rules (honesty) and joule re-validation.

import type { CborMap } from "../cbor.ts";
import type { KeyDirectory } from "../key_directory.ts";
import type { FieldTable, Finding } from "./fields.ts";

/** Operator configuration a profile may consult (a subset of VerifierOptions). */
export interface ProfileOptions {
  keys?: KeyDirectory;
  gatewayKeys?: Record<string, Uint8Array>;
  referenceVectors?: Record<string, { joules_uj: number | bigint }>;
  policies?: Record<string, unknown>;
}

/**
 * The figures of a joule re-validation (JCR-1 §6 step 6, §7.1): what the receipt claims, the
 * operator's reference for its input class and the band they were compared under. A joules step
 * that compared carries them; the report publishes them as its `drift_alert` when they disagree
 * (JouleClaw SPEC §6 DriftAlert).
 */
export interface DriftFigures {
  input_hash: string;
  provenance: string;
  joules_uj: bigint;
  reference_uj: bigint;
  band_percent: bigint;
}

/** The outcome of one report step, as a profile answers it. */
export interface StepOutcome {
  status: "pass" | "fail" | "skipped";
  code?: string;
  detail?: string;
  /** Step 6 only: the figures compared (never copied into the report's steps). */
  drift?: DriftFigures;
}

/** One receipt profile, dispatched on the core's schema tag. */
export interface Profile {
  /** The schema tag value, e.g. "1", "policy/1", "jcp/2". */
  readonly schema: string;
  /** The core field carrying the tag: "jc_receipt" (JouleClaw family) or "jcp_receipt" (JCP §8). */
  readonly tagField: "jc_receipt" | "jcp_receipt";
  /** False for a legacy profile that is verified but never produced (JCP §8: `jcp/1`). */
  readonly produced: boolean;
  /** The signed core's field table, where the profile has one (client seal reads its types). */
  readonly fields?: FieldTable;
  /**
   * The COSE algorithms the profile's envelope may use (absent: both of JCR-1 §4, EdDSA -8 and
   * ES256 -7). SPEC §10, §16.7 and JCP §8 define the sibling envelopes as `{1: -8, …}`: EdDSA only.
   */
  readonly algs?: readonly (-8 | -7)[];
  /**
   * The core member the COSE kid must equal and the code refusing a difference (absent: `steward`,
   * `kid-steward-mismatch`: SPEC §10, §16.7, JCP §8). A meter reading is signed by its agent
   * (docs/METER-READING.md): `agent`, `reading-agent-kid`.
   */
  readonly signer?: { field: string; code: string };
  /** JCR-1 §6 step 1 for this schema: the field list. Undefined when the core conforms. */
  structure(core: CborMap): Finding | undefined;
  /** JCR-1 §6 step 4 (tool receipts); profiles without attestations answer skipped. */
  toolReceipts(core: CborMap, opts: ProfileOptions): StepOutcome | Promise<StepOutcome>;
  /** JCR-1 §6 step 5 and the profile's own consistency rules. */
  honesty(core: CborMap, opts: ProfileOptions): StepOutcome;
  /** JCR-1 §6 step 6 (optional joule re-validation). */
  joules(core: CborMap, opts: ProfileOptions): StepOutcome;
}

/** The answer of a step that does not apply to a profile. */
export const NOT_APPLICABLE: StepOutcome = { status: "skipped", code: "not-applicable" };

/** A passing step. */
export const PASS: StepOutcome = { status: "pass" };

/** A failing step from a finding. */
export function failWith(f: Finding): StepOutcome {
  return { status: "fail", code: f.code, detail: f.detail };
}
