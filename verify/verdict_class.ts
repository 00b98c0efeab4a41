// The verdict class of a verification (JCR-1 §6; JouleClaw SPEC §6): four classes, decided from
// the report's six steps.
//
// - `invalid`: any of steps 1-5 failed. JCR-1 §6: "failure at any step makes the receipt invalid
//   (steps 1–4)"; step 5 (honesty) is a MUST of §2.3 / §6 step 5, refused the same way.
// - `alert`: steps 1-5 passed and step 6 found joules_uj outside the drift band of the reference
//   vector. SPEC §6: "Drift beyond the band is a non-conformance signal, not a hard failure — the
//   runtime SHOULD emit DriftAlert and let the operator decide". The receipt is logged, and the
//   report carries the figures (`drift_alert`).
// - `joule-unverified`: steps 1-5 passed and there is no reference vector for the input class.
//   JCR-1 §6 step 6: "Absent vectors, the receipt is signature-valid but joule-unverified."
// - `valid`: steps 1-5 passed and step 6 is within band, or the profile has no step 6 (policy/1,
//   verdict-receipt/1, jcp/*, meter-reading/1 carry no input class to re-validate).
//
// The report's `valid` is `verdict !== "invalid"` (docs/DECISIONS.md "Verdict classes").

import { decodeCbor } from "./cbor.ts";
import { parseCoseSign1Views } from "./cose.ts";
import { dispatch, type DriftFigures, type ProfileOptions } from "./profiles/mod.ts";

/** The four verdict classes, in the order the docs list them. */
export const VERDICTS = ["valid", "joule-unverified", "alert", "invalid"] as const;
/** A verdict class. */
export type Verdict = (typeof VERDICTS)[number];

/** One line of meaning per class (REASON-CODES.md, OpenAPI, Hydra, the page). */
export const VERDICT_MEANINGS: Record<Verdict, string> = {
  "valid": "JCR-1 §6 steps 1-5 pass and step 6 is within the drift band (or the profile has no " +
    "step 6): appended",
  "joule-unverified": "steps 1-5 pass; no reference vector for the receipt's input class " +
    '(JCR-1 §6 step 6: "signature-valid but joule-unverified"): appended',
  "alert": "steps 1-5 pass; joules_uj is outside the drift band of the reference vector (SPEC §6 " +
    "DriftAlert, a non-conformance signal, not a hard failure): appended, with drift_alert",
  "invalid": "one of steps 1-5 fails (JCR-1 §6): refused, never appended",
};

/** True when `v` is a verdict class. */
export function isVerdict(v: unknown): v is Verdict {
  return typeof v === "string" && (VERDICTS as readonly string[]).includes(v);
}

/** The step names of steps 1-5: a failure there makes the receipt invalid. */
const BINDING_STEPS: ReadonlySet<string> = new Set([
  "structural",
  "canonical",
  "signature",
  "tool_receipts",
  "honesty",
]);

/** The class of a report's steps (JCR-1 §6; SPEC §6). */
export function verdictOf(
  steps: readonly { step: string; status: string; code?: string }[],
): Verdict {
  if (steps.some((s) => BINDING_STEPS.has(s.step) && s.status === "fail")) return "invalid";
  return joulesClass(steps.find((s) => s.step === "joules"));
}

/** The class a passing steps 1-5 leaves to step 6's outcome. */
function joulesClass(o: { status: string; code?: string } | undefined): Verdict {
  if (o?.status === "fail") return "alert"; // SPEC §6: out of band is an alert, not a refusal
  if (o?.status === "skipped" && o.code === "joule-unverified") return "joule-unverified";
  return "valid";
}

/** A u64 as JSON: a number up to 2^53-1, a decimal string beyond (as the receipt's projection). */
function jsonInt(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/** SPEC §6 DriftAlert as a report carries it: the figure, the reference and the band. */
export interface DriftAlert {
  input_hash: string;
  provenance: string;
  /** The receipt's joules_uj. */
  joules_uj: number | string;
  /** The operator's reference vector for input_hash (JCR-1 §6 step 6). */
  reference_uj: number | string;
  /** The JCR-1 §7.1 band for the provenance, in percent of the reference. */
  band_percent: number;
  /** The band's bounds, inclusive, in µJ (reference · (100 ∓ band) / 100, rounded inward). */
  low_uj: number | string;
  high_uj: number | string;
}

/** The DriftAlert of step 6's figures. */
export function driftAlert(d: DriftFigures): DriftAlert {
  const span = d.reference_uj * d.band_percent;
  const low = d.reference_uj * 100n - span; // ×100: the bounds of |claimed − ref|·100 ≤ band·ref
  return {
    input_hash: d.input_hash,
    provenance: d.provenance,
    joules_uj: jsonInt(d.joules_uj),
    reference_uj: jsonInt(d.reference_uj),
    band_percent: Number(d.band_percent),
    low_uj: jsonInt(low <= 0n ? 0n : (low + 99n) / 100n),
    high_uj: jsonInt((d.reference_uj * 100n + span) / 100n),
  };
}

/**
 * The verdict of an envelope the log holds, under `opts`: step 6 alone. Every entry of the log
 * passed steps 1-5 when it was appended (POST /v1/log/entries and /v1/readings refuse an invalid
 * receipt), so its class is decided by its joule re-validation; no signature is checked again.
 * An envelope whose core cannot be read or whose schema no profile implements is `invalid`. Cheap
 * (a decode and a lookup): what the export and the SPARQL store label every entry with.
 */
export function loggedVerdict(envelope: Uint8Array, opts: ProfileOptions): Verdict {
  let core;
  try {
    core = decodeCbor(parseCoseSign1Views(envelope).payload);
  } catch {
    return "invalid";
  }
  if (!(core instanceof Map)) return "invalid";
  const d = dispatch(core);
  if (d.kind === "refused" || d.profile.structure(core)) return "invalid";
  return joulesClass(d.profile.joules(core, opts));
}
