// What an envelope must be to be appended by POST /v1/log/entries (API.md "Log"; ARCHITECTURE
// Decision 7; JouleClaw SPEC §22.3), one envelope or each of a bulk's (issue 29): it verifies,
// it is not a meter reading, and its steward may append here. Throws the ApiError a single
// append answers; a bulk append answers it as that envelope's refusal. Platform-neutral.
import { failureCodes } from "../../verify/mod.ts";
import { ApiError } from "./errors.ts";
import type { AppDeps } from "./route.ts";
import { verifyWith } from "./verifier_options.ts";
import { outcomeCode } from "./routes/verify.ts";

/** Verifies `envelope` and checks it may be appended here; throws the refusal's ApiError. */
export async function admitEnvelope(deps: AppDeps, envelope: Uint8Array): Promise<void> {
  const report = await verifyWith(deps, envelope);
  const outcome = outcomeCode(report);
  deps.metrics.verification(outcome);
  if (!report.valid) {
    // JCR-1 §6: failure at steps 1-4 makes the receipt invalid; it is never logged.
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
  if (deps.config.appends === "listed" && !deps.config.stewards.includes(report.steward ?? "")) {
    throw new ApiError(
      "steward-not-allowed",
      `Cannot append the envelope: steward ${report.steward} is not listed on this log`,
    );
  }
}
