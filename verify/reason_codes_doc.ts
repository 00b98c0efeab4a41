// Renders docs/REASON-CODES.md from the one table of reason codes (verify/codes.ts).
// `deno task docs:codes` rewrites the file; verify/reason_codes_doc_test.ts fails when it is stale.

import { CANONICAL_FORM_CODES } from "./report.ts";
import { VERDICT_MEANINGS, VERDICTS } from "./verdict_class.ts";
import {
  ALERT_CODES,
  INFORMATIONAL_CODES,
  NOT_VERIFICATION_OUTCOMES,
  REASON_CODES,
  type ReasonCode,
} from "./codes.ts";

const DECODER_CODES = new Set([
  "truncated",
  "trailing-bytes",
  "reserved-ai",
  "lone-break",
  "float",
  "simple-value",
  "tag",
  "invalid-utf8",
  "duplicate-key",
  "unsupported-key",
  "too-deep",
  "too-many-items",
]);

/** The report step of a code whose meaning does not name one (verify/report.ts decides). */
function stepOf(code: string): string {
  if (CANONICAL_FORM_CODES.has(code)) return "canonical"; // of the payload; structural in the envelope
  if (DECODER_CODES.has(code) || code.startsWith("cose-")) return "structural";
  if (code === "bad-did-key") return "signature";
  if (code.startsWith("hmac-")) return "tool_receipts";
  return "—";
}

/** The Markdown text of docs/REASON-CODES.md. */
export function renderReasonCodes(): string {
  const lines = [
    "# Reason codes",
    "",
    "<!-- Generated from verify/codes.ts by `deno task docs:codes`; do not edit by hand. -->",
    "",
    "Every stable reason code the project answers with: in a verification report's steps (API.md,",
    "`POST /v1/verify`), in `VerifyInputError.code` / `CborError.code`, and in problem+json `code`",
    "members that relay them. Codes are never renamed or reused.",
    "",
    "- **refusal** — a step of a verification report fails with this code; `conformance/vectors/`",
    "  publishes at least one negative vector for each (a test enforces it).",
    "- **alert** — step 6 fails with this code, yet the receipt is not invalid: its verdict is",
    "  `alert` (SPEC §6 DriftAlert) and it is appended; `conformance/vectors/` publishes an alert vector.",
    "- **informational** — carried by a passing or skipped step of a report; never a refusal.",
    "- **not an outcome** — no envelope given to `verifyEnvelope` can produce it (input, configuration,",
    "  encoder or service-side errors, or a guard an earlier check pre-empts); the reason is given.",
    "",
    "## Verdicts",
    "",
    "Every report and append answer carries `verdict`, one of four classes (JCR-1 §6, SPEC §6;",
    '`valid` is true exactly when the verdict is not `invalid`; docs/DECISIONS.md "Verdict classes"):',
    "",
    ...VERDICTS.map((v) => `- \`${v}\` — ${VERDICT_MEANINGS[v]}`),
    "",
    "## Codes",
    "",
    "Each line: `code` — report step — kind — meaning.",
    "",
  ];
  for (const [code, meaning] of Object.entries(REASON_CODES) as [ReasonCode, string][]) {
    const m = /^\[([a-z_]+|any)\] (.*)$/.exec(meaning);
    const step = m ? m[1] : stepOf(code);
    const text = m ? m[2] : meaning;
    const not = NOT_VERIFICATION_OUTCOMES[code];
    const kind = not
      ? `not an outcome: ${not}`
      : INFORMATIONAL_CODES.has(code)
      ? "informational"
      : ALERT_CODES.has(code)
      ? "alert"
      : "refusal";
    lines.push(`- \`${code}\` — ${step} — ${kind} — ${text}`);
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const path = new URL("../docs/REASON-CODES.md", import.meta.url);
  await Deno.writeTextFile(path, renderReasonCodes());
  console.error("wrote docs/REASON-CODES.md");
}
