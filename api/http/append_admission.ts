// What an envelope must be to be appended by POST /v1/log/entries (API.md "Log"; ARCHITECTURE
// Decision 7; JouleClaw SPEC §22.3), one envelope or each of a bulk's (issue 29): it verifies,
// it is not a meter reading, and its steward may append here. Throws the ApiError a single
// append answers; a bulk append answers it as that envelope's refusal. Every verdict class but
// invalid is admitted (JCR-1 §6, SPEC §6; verify/verdict_class.ts): valid, joule-unverified, and
// alert — drift beyond the band is "a non-conformance signal, not a hard failure", so the log holds
// the evidence and the answer names the verdict and the DriftAlert. Platform-neutral.
import { blake3, failureCodes, type VerificationReport } from "../../verify/mod.ts";
import {
  type EntryFacts,
  factsOfCore,
  LINK_MALFORMED,
  malformedLink,
  SEQ_RANGE,
} from "../../log/mod.ts";
import { ApiError } from "./errors.ts";
import type { AppDeps } from "./route.ts";
import { refuseConfigEnvelope, verifyUnderIdentities } from "./verifier_options.ts";
import { outcomeCode } from "./routes/verify.ts";
import { refuseJcpObject } from "./jcp_admission.ts";

/**
 * Verifies `envelope` and checks it may be appended here; throws the refusal's ApiError, else
 * answers the report (its verdict: valid, joule-unverified or alert). `signer.kid` is set when
 * the kid is not the steward (the current key of a rotated identity, issue 25).
 */
export async function admitEnvelope(
  deps: AppDeps,
  envelope: Uint8Array,
  signer?: { kid?: string },
  facts?: { facts?: EntryFacts },
): Promise<VerificationReport> {
  // issue 23: a verifier-config/1 document is logged by the service only, never through a route
  refuseConfigEnvelope(envelope);
  refuseJcpObject(envelope); // issue 25: key events, grants, revocations have their own routes
  // issue 25: a steward with a key-event chain is bound to its current key (docs/KEYS.md)
  // `facts` (a bulk append, issue 29): the stream facts read by the verifier worker, if any
  const { report, kid } = await verifyUnderIdentities(deps, envelope, false, facts);
  if (kid && signer) signer.kid = kid;
  const outcome = outcomeCode(report);
  deps.metrics.verification(outcome);
  deps.metrics.verdict(report.verdict);
  if (!report.valid) {
    // issue 24: a malformed JCP §8.1 link (seq, prev) is a malformed request, 400 with its code
    // (asked only of an envelope that does not verify: a malformed link never does)
    const link = malformedLink(envelope);
    if (link) {
      throw new ApiError(LINK_MALFORMED, `Cannot append the envelope: ${link}`, {
        extra: { codes: failureCodes(report) },
      });
    }
    // JCR-1 §6: failure at steps 1-5 makes the receipt invalid; it is never logged. Step 6 out
    // of band is an alert (SPEC §6), appended with its DriftAlert.
    throw new ApiError(outcome, `Cannot append the envelope: it does not verify (${outcome})`, {
      status: 422,
      extra: { codes: failureCodes(report), report },
    });
  }
  if (report.schema === "meter-reading/1") {
    // A reading is only ever logged through POST /v1/readings, which checks the agent's
    // registration and its chain (strictly increasing seq, prev = BLAKE3 of the previous
    // envelope) before appending; a reading appended here would skip both, and a replayed
    // out-of-order reading would corrupt the chain state /v1/readings derives from the log.
    throw new ApiError(
      "readings-route-only",
      "Cannot append the envelope: a meter-reading/1 is appended through POST /v1/readings",
    );
  }
  if (
    report.schema === "efficiency/1" &&
    (!deps.log.streamReads || deps.config.streamChecks === "off")
  ) {
    // JCP §5.3: an outcome's activities are resolved and bound by the log's stream state; a log
    // without it (stream_checks off) would log the outcome unchecked, so it refuses it instead.
    throw new ApiError(
      "outcomes-unchecked",
      "Cannot append the envelope: this log keeps no activity bindings (stream_checks off), so " +
        "it cannot resolve an efficiency/1 outcome's activities (JCP §5.3)",
      { status: 422 },
    );
  }
  if (deps.config.appends === "listed" && !deps.config.stewards.includes(report.steward ?? "")) {
    throw new ApiError(
      "steward-not-allowed",
      `Cannot append the envelope: steward ${report.steward} is not listed on this log`,
    );
  }
  return report;
}

/**
 * Issue 24: an admitted envelope's stream facts — those the verifier worker read (`read`), else
 * read from its report's core (once) — for the log's checks; undefined for a log that keeps no
 * streams. Throws 400 `stream-seq-range` for a `seq` past 2^53 - 1, which the log cannot keep
 * exactly (single and bulk appends alike).
 */
export function reportFacts(
  deps: AppDeps,
  envelope: Uint8Array,
  report: VerificationReport,
  kid: string | undefined,
  read?: EntryFacts & { refused?: string },
): EntryFacts | undefined {
  const core = report.receipt as Record<string, unknown>;
  const facts = read ??
    (deps.log.streamReads &&
      factsOfCore((k) => core[k], kid ?? report.steward ?? "", blake3(envelope)));
  if (facts?.refused === SEQ_RANGE) {
    throw new ApiError(
      SEQ_RANGE,
      "Cannot append the envelope: its seq is past 2^53 - 1, which the log cannot keep exactly",
    );
  }
  return facts;
}
