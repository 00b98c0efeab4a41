// POST /v1/verify (API.md "Verification"; JCR-1 §6): a verification outcome is data, not an
// error, so any envelope that could be read is answered 200 with its report. A JCP object (a key
// event, a grant, a revocation: issue 25) is no receipt: 422 with the code naming the route that
// judges it (`key-events-route-only`, `grants-route-only`, `revocations-route-only`).
import type { VerificationReport } from "../../../verify/mod.ts";
import { readEnvelope } from "../envelope_input.ts";
import { refuseJcpObject } from "../jcp_admission.ts";
import type { RouteGroup } from "../route.ts";
import { verifierConfigRef, verifyUnderIdentities } from "../verifier_options.ts";

/**
 * The outcome code of a report: "ok" for any verdict but invalid (an alert's out-of-band step is
 * counted by its verdict, jc_verdicts_total), or the reason code of its first failing step.
 */
export function outcomeCode(report: VerificationReport): string {
  if (report.valid) return "ok";
  return report.steps.find((s) => s.status === "fail")?.code ?? "invalid";
}

/** The verification route group. */
export const verifyRoutes: RouteGroup = {
  name: "verify",
  routes: [{
    method: "POST",
    path: "/v1/verify",
    cors: true,
    class: {
      id: "jc:Verifier",
      title: "Receipt verifier",
      description: "Verifies a JCR-1 COSE_Sign1 envelope and reports every step (JCR-1 §6).",
    },
    operation: {
      title: "Verify a receipt envelope",
      description:
        'Body: the envelope as application/cose bytes or JSON {"envelope": hex}. Answers the ' +
        "verification report, valid or not, with its verdict (valid, joule-unverified, alert, " +
        "invalid: JCR-1 §6, SPEC §6) and verifier_config: {digest, index} (the configuration in " +
        "force, GET /v1/verifier-config).",
      expects: "jc:Envelope",
      returns: "jc:VerificationReport",
      possibleStatus: [
        { status: 200, description: "The verification report (valid or not)." },
        { status: 400, description: "No body, bad JSON or bad hex." },
        { status: 415, description: "Neither application/cose nor application/json." },
        {
          status: 422,
          description: "A JCP key event, grant or revocation, not a receipt: " +
            "key-events-route-only, grants-route-only or revocations-route-only, with {kind, " +
            "route}, the route that judges it.",
        },
      ],
      toolId: "jouleclaw:verify",
      mutating: false,
    },
    handler: async (c) => {
      const deps = c.get("deps");
      const envelope = await readEnvelope(c.req.raw, deps.config.bodyLimit);
      refuseJcpObject(envelope, "verify the envelope as a receipt"); // issue 25: its own route
      // issue 25: a steward with a key-event chain is judged under its current key (docs/KEYS.md)
      const { report } = await verifyUnderIdentities(deps, envelope, true);
      deps.metrics.verification(outcomeCode(report));
      deps.metrics.verdict(report.verdict);
      // issue 23: the configuration the report was reached under
      const cfg = await verifierConfigRef(deps);
      return c.json(cfg ? { ...report, verifier_config: cfg } : report, 200);
    },
  }],
};
