// The explorer (issue 13): the latest checkpoint with its cosignatures, the newest entries, and an
// entry's RDF views; every state has a link (`/?view=explore`, `/?index=N`, `/?index=N&rdf=turtle`).
/// <reference lib="dom" />
import { el, replace } from "./dom.ts";
import { getBytes, getJson } from "./net.ts";

interface EntrySummary {
  index: number;
  leaf_hash: string;
  schema: string | null;
  steward: string | null;
}

interface EntriesPage {
  "hydra:totalItems": number;
  "hydra:member": EntrySummary[];
}

/** How many of the newest entries the explorer lists. */
export const NEWEST = 20;

/** The RDF views of an entry, by the `rdf=` link parameter. */
export const RDF_VIEWS: Record<string, { accept: string; label: string }> = {
  jsonld: { accept: "application/ld+json", label: "JSON-LD" },
  nquads: { accept: "application/n-quads", label: "N-Quads" },
  turtle: { accept: "text/turtle", label: "Turtle" },
};

/** Shows the latest checkpoint (text, as signed) and the newest entries. */
export async function showExplorer(section: HTMLElement): Promise<void> {
  section.hidden = false;
  const head = el("h1", { id: "explore-h" }, "Explore the log");
  const cp = el(
    "section",
    { "aria-labelledby": "cp-h", class: "panel" },
    el("h2", { id: "cp-h" }, "Latest checkpoints"),
  );
  const list = el(
    "section",
    { "aria-labelledby": "new-h" },
    el("h2", { id: "new-h" }, "Newest entries"),
  );
  replace(section, head, cp, list);
  // Both panels load at once, each saying so until its answer is in (issue 28: the explorer showed
  // nothing while entries loaded).
  await Promise.all([
    whileLoading(cp, "Loading the latest checkpoints\u2026", () => showCheckpoints(cp)),
    whileLoading(list, "Loading the newest entries\u2026", () => showNewest(list)),
  ]);
}

/**
 * Shows a polite status line in `panel` (marked aria-busy) while `load` runs; removed once it has
 * filled the panel (or failed: `load` reports its own failures).
 */
async function whileLoading(panel: HTMLElement, text: string, load: () => Promise<void>) {
  const status = el("p", { class: "status-line", role: "status", "data-field": "loading" }, text);
  panel.setAttribute("aria-busy", "true");
  panel.append(status);
  try {
    await load();
  } finally {
    status.remove();
    panel.removeAttribute("aria-busy");
  }
}

async function showCheckpoints(cp: HTMLElement): Promise<void> {
  const views = [
    ["sha256", "SHA-256 view (the one witnesses cosign: one cosignature line per witness)"],
    ["blake3", "BLAKE3 view (JouleClaw, SPEC §22)"],
  ];
  const texts = await Promise.all(views.map(async ([view]) => {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(
        await getBytes(`/log/${view}/checkpoint`, "checkpoint"),
      );
    } catch (e) {
      return e as Error;
    }
  }));
  views.forEach(([view, what], i) => {
    const text = texts[i];
    if (text instanceof Error) {
      cp.append(el("p", { class: "status-line" }, `No ${view} checkpoint: ${text.message}`));
      return;
    }
    const sigs = text.split("\n\n")[1]?.split("\n").filter((l) => l.startsWith("\u2014 ")) ?? [];
    cp.append(
      el("h3", {}, what),
      el("p", {}, `As served, ${sigs.length} signature line${sigs.length === 1 ? "" : "s"}:`),
      el("pre", { "data-field": `checkpoint-${view}` }, text),
    );
  });
}

async function showNewest(list: HTMLElement): Promise<void> {
  try {
    const first = await getJson<EntriesPage>(`/v1/log/entries?start=0&limit=1`, "page");
    const total = first["hydra:totalItems"];
    const start = Math.max(0, total - NEWEST);
    const page = total === 0 ? first : await getJson<EntriesPage>(
      `/v1/log/entries?start=${start}&limit=${NEWEST}`,
      "page",
    );
    list.append(el("p", {}, `${total} entr${total === 1 ? "y" : "ies"} in the log.`));
    const rows = [...page["hydra:member"]].reverse();
    if (rows.length > 0) {
      list.append(
        el(
          "div",
          {
            class: "table-wrap",
            tabindex: "0",
            role: "region",
            "aria-label": "Table of the newest entries",
          },
          el(
            "table",
            { "data-field": "newest" },
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                el("th", { scope: "col" }, "Index"),
                el("th", { scope: "col" }, "Schema"),
                el("th", { scope: "col" }, "Steward"),
                el("th", { scope: "col" }, "Leaf hash"),
              ),
            ),
            el(
              "tbody",
              {},
              ...rows.map((r) =>
                el(
                  "tr",
                  {},
                  el("td", {}, el("a", { href: `/?index=${r.index}` }, String(r.index))),
                  el("td", {}, el("code", {}, r.schema ?? "")),
                  el("td", {}, el("code", { class: "wrap" }, r.steward ?? "")),
                  el("td", {}, el("code", { class: "wrap" }, r.leaf_hash)),
                )
              ),
            ),
          ),
        ),
      );
    }
  } catch (e) {
    list.append(el("p", { class: "status-line" }, `Cannot list entries: ${(e as Error).message}`));
  }
}

/** The entry's RDF links, and the view named by `rdf=` shown as text. */
export async function showEntryViews(
  section: HTMLElement,
  index: string,
  rdf: string | null,
): Promise<void> {
  section.hidden = false;
  const links = el(
    "ul",
    {},
    ...Object.entries(RDF_VIEWS).map(([k, v]) =>
      el("li", {}, el("a", { href: `/?index=${index}&rdf=${k}` }, `${v.label} view`))
    ),
    el("li", {}, el("a", { href: `/v1/log/entries/${index}` }, "JSON")),
  );
  replace(section, el("h2", { id: "views-h" }, `Entry ${index} as data`), links);
  section.setAttribute("aria-labelledby", "views-h");
  const view = rdf ? RDF_VIEWS[rdf] : undefined;
  if (!view) return;
  try {
    const text = new TextDecoder().decode(
      await getBytes(`/v1/log/entries/${index}`, "page", view.accept),
    );
    section.append(
      el("h3", {}, view.label),
      el("pre", { "data-field": "rdf", "data-format": rdf! }, text),
    );
  } catch (e) {
    section.append(el("p", { class: "status-line" }, (e as Error).message));
  }
}
