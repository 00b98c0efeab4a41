// JCP objects on the page (issue 25; docs/GRANTS.md, docs/KEYS.md): a key event, a grant or a
// revocation is a log entry but no receipt, so the page names its kind and its main fields (in
// the explorer's list and when one is opened or dropped) and says which route of the log judges
// it, with the code POST /v1/verify and POST /v1/log/entries answer it (`*-route-only`), instead
// of reporting "not a receipt".
/// <reference lib="dom" />
import { type Child, el, replace } from "./dom.ts";

/** Each kind: its words, its clause, the route that judges and logs it, and that code. */
export const JCP_KINDS: Record<
  string,
  { title: string; clause: string; route: string; code: string }
> = {
  "key-event": {
    title: "Key event",
    clause: "JCP §2.1",
    route: "/v1/keys/events",
    code: "key-events-route-only",
  },
  grant: { title: "Grant", clause: "JCP §4", route: "/v1/grants", code: "grants-route-only" },
  revocation: {
    title: "Revocation",
    clause: "JCP §4.3",
    route: "/v1/revocations",
    code: "revocations-route-only",
  },
};

/** The fields that say what each kind is about, in the order shown. */
const MAIN_FIELDS: Record<string, string[]> = {
  "key-event": ["identity", "seq", "current"],
  grant: ["issuer", "subject", "budget_uj", "expiry"],
  revocation: ["grant_id", "revoked_by"],
};

/** A kind's main fields as [name, text] pairs (a grant's id first: its content id, JCP §4). */
export function mainFields(
  kind: string,
  object: Record<string, unknown>,
  contentId?: string,
): [string, string][] {
  const out: [string, string][] = [];
  if (kind === "grant" && contentId) out.push(["grant_id", contentId]);
  for (const f of MAIN_FIELDS[kind] ?? []) {
    if (object[f] !== undefined) out.push([f, String(object[f])]);
  }
  return out;
}

/** The explorer's schema cell of a JCP-object entry: its kind and its main fields. */
export function kindCell(
  kind: string,
  object: Record<string, unknown>,
  contentId?: string,
): Child[] {
  const k = JCP_KINDS[kind];
  return [
    el("span", { "data-field": "kind" }, k ? `${k.title} (${k.clause})` : kind),
    ...mainFields(kind, object, contentId).map(([f, v]) =>
      el("span", { class: "kind-field", "data-field": f }, " ", `${f} `, el("code", {}, v))
    ),
  ];
}

/**
 * Shows a dropped or opened JCP object: its kind, that it is no receipt and which route judges
 * it (and the code /v1/verify answers it), and its main fields.
 */
export function renderJcpObject(
  region: HTMLElement,
  kind: string,
  object: Record<string, unknown>,
  contentId: string,
): void {
  const k = JCP_KINDS[kind];
  region.setAttribute("data-verdict", "jcp-object");
  replace(
    region,
    el(
      "h2",
      { class: "verdict-title" },
      el("span", { "aria-hidden": "true", class: "mark" }, "§"),
      " ",
      `${k?.title ?? kind} (${k?.clause ?? "JCP"}): a JCP object, not a receipt`,
    ),
    el(
      "p",
      { class: "verdict-sub", "data-field": "jcp-route" },
      "This page verifies receipts. The log judges a ",
      (k?.title ?? kind).toLowerCase(),
      " at ",
      el("code", {}, `POST ${k?.route ?? "?"}`),
      " (POST /v1/verify answers it ",
      el("code", { "data-field": "code" }, k?.code ?? ""),
      ").",
    ),
    el(
      "dl",
      { class: "fields", "data-field": "jcp-fields" },
      ...mainFields(kind, object, contentId).flatMap(([f, v]) => [
        el("dt", {}, f),
        el("dd", {}, el("code", { class: "wrap" }, v)),
      ]),
    ),
  );
}
