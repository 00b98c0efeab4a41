// Renders a verification report (API.md `POST /v1/verify`, computed in this page by verify/) for a
// person: the verdict in words (never by colour alone), every step with its status, stable reason
// code and the code table's one-line explanation, the signer, and the decoded receipt with what each
// field means, and the report's verdict class (JCR-1 §6, SPEC §6: valid, joule-unverified, alert,
// invalid) with its meaning and, for an alert, the DriftAlert's figures. Stable hooks for tests and
// scripts: `data-verdict` on the result region (valid | invalid | unusable: the CLI's exit
// statuses), `data-verdict-class` (the report's verdict), `data-step` (and `data-code` when it
// fails) on each step.
/// <reference lib="dom" />
import {
  publicKeyFromDidKey,
  REASON_CODES,
  toHex,
  VERDICT_MEANINGS,
  type VerificationReport,
} from "../../verify/mod.ts";
import { sha256 } from "../../verify/mod.ts";
import { type Child, el, replace } from "./dom.ts";
import { fieldRows } from "./fields.ts";

/** The three verdicts of the page (the CLI's exit statuses 0, 1, 2). */
export type Verdict = "valid" | "invalid" | "unusable";

const STEP_TITLES: Record<string, string> = {
  structural: "Envelope structure (JCR-1 §6 step 1)",
  canonical: "Canonical CBOR (step 2)",
  signature: "Signature (step 3)",
  tool_receipts: "Tool receipts (step 4)",
  honesty: "Honesty rules (step 5)",
  joules: "Joules (step 6)",
};

const SCHEMA_TITLES: Record<string, string> = {
  "1": "JCR-1 cascade receipt",
  "policy/1": "Policy receipt (SPEC §10)",
  "verdict-receipt/1": "Verdict receipt (SPEC §16.7)",
  "jcp/2": "JCP decision receipt (jcp/2)",
  "jcp/1": "Legacy JCP decision receipt (jcp/1)",
  "meter-reading/1": "Meter reading",
  "intercept/1": "Interceptor step receipt (JCP §5.2)",
  "efficiency/1": "Outcome receipt (JCP §5.2, §5.3)",
};

/** The explanation of a reason code from the one code table (verify/codes.ts). */
export function explain(code: string | undefined): string {
  if (!code) return "";
  return (REASON_CODES as Record<string, string>)[code] ?? "";
}

/** A short, readable fingerprint of a public key: the first 8 bytes of its SHA-256, grouped. */
export function fingerprint(key: Uint8Array): string {
  return (toHex(sha256(key).subarray(0, 8)).match(/..../g) ?? []).join(" ");
}

function verdictHeading(v: Verdict): Child[] {
  const words = {
    valid: ["✓", "Valid receipt", "Every check passed in this browser."],
    invalid: ["✗", "Invalid receipt", "At least one check failed; the failing steps say why."],
    unusable: ["!", "Not a receipt", "The input could not be read as a COSE_Sign1 envelope."],
  }[v];
  return [
    el(
      "h2",
      { class: "verdict-title" },
      el("span", { "aria-hidden": "true", class: "mark" }, words[0]),
      " ",
      words[1],
    ),
    el("p", { class: "verdict-sub" }, words[2]),
  ];
}

/** The report's verdict class in words (JCR-1 §6, SPEC §6), with an alert's DriftAlert figures. */
function verdictClass(report: VerificationReport): HTMLElement {
  const d = report.drift_alert;
  return el(
    "p",
    { class: "verdict-class", "data-field": "verdict" },
    "Verdict ",
    el("code", {}, report.verdict),
    ` — ${VERDICT_MEANINGS[report.verdict]}`,
    d
      ? ` (joules_uj ${d.joules_uj} against the reference ${d.reference_uj}, band ±${d.band_percent}% ` +
        `for ${d.provenance}: ${d.low_uj}..${d.high_uj})`
      : "",
  );
}

function signerBlock(kid: string | null): HTMLElement | null {
  if (!kid) return null;
  let key: Uint8Array | undefined;
  try {
    key = publicKeyFromDidKey(kid);
  } catch {
    key = undefined;
  }
  return el(
    "section",
    { class: "signer", "aria-labelledby": "signer-h" },
    el("h3", { id: "signer-h" }, "Signer"),
    el(
      "dl",
      {},
      el("dt", {}, "Identity"),
      el("dd", {}, el("code", { class: "wrap", "data-field": "signer" }, kid)),
      key ? el("dt", {}, "Public key (hex)") : null,
      key ? el("dd", {}, el("code", { class: "wrap" }, toHex(key))) : null,
      key ? el("dt", {}, "Fingerprint") : null,
      key ? el("dd", {}, el("code", { "data-field": "fingerprint" }, fingerprint(key))) : null,
    ),
  );
}

/**
 * JCP §5.3 in words, for an outcome receipt: how many activities it names (by content id; the log
 * resolves and binds them at append) and its signed residual — negative means the activities claim
 * more than the outcome admits, a finding, never clamped; and whether it is Partial (§5.2: no
 * per-unit figure).
 */
function outcomeNote(report: VerificationReport): HTMLElement | null {
  const r = report.receipt as Record<string, unknown> | null;
  if (report.schema !== "efficiency/1" || !r || !Array.isArray(r.activities)) return null;
  const residual = String(r.residual_uj);
  const negative = residual.startsWith("-");
  return el(
    "p",
    { class: "outcome-trace", "data-field": "outcome-trace" },
    `Names ${r.activities.length} activit${r.activities.length === 1 ? "y" : "ies"} by content ` +
      "id, re-adding to ",
    el("code", {}, String(r.activities_uj)),
    " µJ of the outcome's ",
    el("code", {}, String(r.outcome_total_uj)),
    " µJ; residual ",
    el("code", { "data-field": "residual" }, residual),
    " µJ",
    negative
      ? " — negative: the activities claim more than the outcome admits (a finding, JCP §5.3)"
      : " — the cost of being accountable no activity claims (JCP §5.3)",
    r.energy_coverage === "Partial"
      ? ". Partial: the figure may fall short of the work or exceed it, so no per-token figure " +
        "(JCP §5.2)."
      : ".",
  );
}

function receiptTable(receipt: unknown): HTMLElement | null {
  if (!receipt || typeof receipt !== "object") return null;
  const rows = fieldRows(receipt as Record<string, unknown>);
  return el(
    "section",
    { class: "receipt", "aria-labelledby": "receipt-h" },
    el("h3", { id: "receipt-h" }, "Decoded receipt"),
    el(
      "div",
      {
        class: "table-wrap",
        tabindex: "0",
        role: "region",
        "aria-label": "Decoded receipt fields",
      },
      el(
        "table",
        {},
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "col" }, "Field"),
            el("th", { scope: "col" }, "Value"),
            el("th", { scope: "col" }, "Meaning"),
          ),
        ),
        el(
          "tbody",
          {},
          ...rows.map((r) =>
            el(
              "tr",
              {},
              el(
                "th",
                { scope: "row", style: undefined, class: `depth-${Math.min(r.depth, 4)}` },
                el("code", {}, r.path),
              ),
              el("td", {}, el("code", { class: "wrap" }, r.value)),
              el("td", {}, r.meaning),
            )
          ),
        ),
      ),
    ),
  );
}

/** Renders a report into the result region. */
export function renderReport(region: HTMLElement, report: VerificationReport): Verdict {
  const verdict: Verdict = report.valid ? "valid" : "invalid";
  region.setAttribute("data-verdict", verdict);
  region.setAttribute("data-verdict-class", report.verdict);
  const schema = report.schema ?? "(unknown)";
  replace(
    region,
    ...verdictHeading(verdict),
    verdictClass(report),
    el(
      "p",
      { class: "schema" },
      "Schema ",
      el("code", {}, schema),
      report.schema && SCHEMA_TITLES[report.schema] ? ` — ${SCHEMA_TITLES[report.schema]}` : "",
    ),
    el(
      "ol",
      { class: "steps", "aria-label": "Verification steps" },
      ...report.steps.map((s) =>
        el(
          "li",
          {
            "data-step": s.step,
            "data-status": s.status,
            "data-code": s.status === "fail" ? s.code : undefined,
            class: `step ${s.status}`,
          },
          el(
            "span",
            { class: "badge" },
            s.status === "pass" ? "PASS" : s.status === "fail" ? "FAIL" : "SKIPPED",
          ),
          " ",
          el("span", { class: "step-name" }, STEP_TITLES[s.step] ?? s.step),
          s.code ? el("span", { class: "code" }, " ", el("code", {}, s.code)) : null,
          s.code && explain(s.code)
            ? el("span", { class: "explain" }, ` — ${explain(s.code)}`)
            : null,
          s.detail ? el("span", { class: "detail" }, ` (${s.detail})`) : null,
        )
      ),
    ),
    el(
      "p",
      { class: "leaf" },
      "Leaf hash ",
      el("code", { class: "wrap", "data-field": "leaf-hash" }, report.leaf_hash),
    ),
    signerBlock(report.steward),
    outcomeNote(report),
    receiptTable(report.receipt),
  );
  return verdict;
}

/** Renders an unusable input (the CLI's exit 2) with the reason. */
export function renderUnusable(region: HTMLElement, message: string): Verdict {
  region.setAttribute("data-verdict", "unusable");
  replace(
    region,
    ...verdictHeading("unusable"),
    el("p", { class: "detail", "data-field": "error" }, message),
  );
  return "unusable";
}
