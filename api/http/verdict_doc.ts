// The verdict classes (JCR-1 §6, JouleClaw SPEC §6; verify/verdict_class.ts) as the API documents
// describe them: the OpenAPI schemas of the report and the append answer (api/http/openapi.ts) and
// the Hydra classes those operations return (api/http/hydra.ts), both from verify/'s one table of
// meanings, so the documents and the verifier cannot disagree on the classes. Pure.
import { VERDICT_MEANINGS, VERDICTS } from "../../verify/mod.ts";

const MEANINGS = VERDICTS.map((v) => `${v}: ${VERDICT_MEANINGS[v]}`).join("; ");

/** The verdict as an OpenAPI schema. */
export const VERDICT_SCHEMA = {
  type: "string",
  enum: [...VERDICTS],
  description: `The verdict class (JCR-1 §6, SPEC §6). ${MEANINGS}. \`valid\` (the boolean) is ` +
    "true exactly when the verdict is not invalid.",
};

const U64 = {
  oneOf: [{ type: "integer", minimum: 0 }, { type: "string", pattern: "^(0|[1-9][0-9]*)$" }],
};

/** SPEC §6 DriftAlert as an alert's report and append answer carry it. */
export const DRIFT_ALERT_SCHEMA = {
  type: "object",
  description: "Present exactly when the verdict is alert: the receipt's joules, the operator's " +
    "reference vector for its input class and the JCR-1 §7.1 band (SPEC §6 DriftAlert). u64 " +
    "figures above 2^53-1 are decimal strings.",
  required: ["input_hash", "provenance", "joules_uj", "reference_uj", "band_percent"],
  properties: {
    input_hash: { type: "string" },
    provenance: { type: "string", enum: ["HwShunt", "ModelBased", "Estimator"] },
    joules_uj: U64,
    reference_uj: U64,
    band_percent: { type: "integer" },
    low_uj: U64,
    high_uj: U64,
  },
};

/** Response schemas of the 2xx answers, by the Hydra class an operation returns. */
export const RESULT_SCHEMAS: Record<string, Record<string, unknown>> = {
  "jc:VerificationReport": {
    type: "object",
    required: ["valid", "verdict", "schema", "leaf_hash", "steward", "steps", "receipt"],
    properties: {
      valid: { type: "boolean", description: "verdict ≠ invalid" },
      verdict: { $ref: "#/components/schemas/Verdict" },
      drift_alert: { $ref: "#/components/schemas/DriftAlert" },
      schema: { type: ["string", "null"] },
      leaf_hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
      steward: { type: ["string", "null"] },
      steps: { type: "array", items: { type: "object" } },
      receipt: {},
    },
  },
  "jc:AppendResult": {
    type: "object",
    required: ["index", "leaf_hash", "verdict", "tree_head", "inclusion_proof"],
    properties: {
      index: { type: "integer", minimum: 0 },
      leaf_hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
      verdict: {
        $ref: "#/components/schemas/Verdict",
        description: "valid, joule-unverified or alert: an invalid receipt is never appended (422)",
      },
      drift_alert: { $ref: "#/components/schemas/DriftAlert" },
      tree_head: { type: "object" },
      inclusion_proof: { type: "array", items: { type: "string" } },
    },
  },
};

/** The Hydra classes of the report and the append answer, with their verdict properties. */
export function verdictHydraClasses(): Record<string, unknown>[] {
  const verdict = {
    "@type": "SupportedProperty",
    property: {
      "@id": "jc:verificationVerdict",
      title: "verdict",
      description: `JSON key verdict. ${MEANINGS}.`,
      range: "xsd:string",
    },
    readable: true,
    writeable: false,
    required: true,
  };
  const drift = {
    "@type": "SupportedProperty",
    property: {
      "@id": "jc:driftAlert",
      title: "drift_alert",
      description: DRIFT_ALERT_SCHEMA.description,
    },
    readable: true,
    writeable: false,
    required: false,
  };
  return [
    {
      "@id": "jc:VerificationReport",
      "@type": "Class",
      title: "Verification report",
      description: "JCR-1 §6: every step, the verdict class, and an alert's DriftAlert.",
      supportedProperty: [verdict, drift],
      supportedOperation: [],
    },
    {
      "@id": "jc:AppendResult",
      "@type": "Class",
      title: "Append result",
      description: "The appended entry's index, leaf hash, verdict class (valid, " +
        "joule-unverified or alert), signed tree head and inclusion proof.",
      supportedProperty: [verdict, drift],
      supportedOperation: [],
    },
  ];
}
