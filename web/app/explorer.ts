// The explorer (issue 13): the latest checkpoint with its cosignatures, the newest entries, and an
// entry's RDF views; every state has a link (`/?view=explore`, `/?index=N`, `/?index=N&rdf=turtle`,
// `&shard=sN` for an entry of a later shard). A sharded service (docs/SHARDS.md): the active
// shard's checkpoints, the directory's shards, and the newest entries over every shard.
/// <reference lib="dom" />
import { el, replace } from "./dom.ts";
import { getBytes, getJson } from "./net.ts";
import { kindCell } from "./jcp_view.ts";

interface EntrySummary {
  index: number;
  leaf_hash: string;
  /** the entry's verdict class (JCR-1 §6, SPEC §6): valid, joule-unverified or alert */
  verdict?: string;
  schema?: string | null;
  steward: string | null;
  /** issue 25: a JCP object's kind (key-event, grant, revocation), its object and content id */
  kind?: string;
  object?: Record<string, unknown>;
  content_id?: string;
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

/** A shard as the explorer lists it (from `GET /v1/logs`, or the one log of a service without). */
interface ShardRow {
  id: string;
  state: string;
  size?: number;
  first_time?: string | null;
  last_time?: string | null;
}

/** The `shard=` link parameter: "" when absent (s0), the id, or null when malformed. */
export function shardParam(params: URLSearchParams): string | null {
  const v = params.get("shard");
  if (v === null || v === "s0") return "";
  return /^s[1-9][0-9]{0,8}$/.test(v) ? v : null;
}

/** A shard's path below the service root (docs/SHARDS.md "A shard is a base URL"). */
export function shardPath(id: string): string {
  return id === "" || id === "s0" ? "" : `/shards/${id}`;
}

/** The link that opens entry `index` of shard `id` on this page. */
function entryLink(id: string, index: number): string {
  return id === "s0" ? `/?index=${index}` : `/?index=${index}&shard=${id}`;
}

/** The shards the service lists (as served: the page verifies each receipt against them). */
async function listShards(): Promise<{ shards: ShardRow[]; sharded: boolean }> {
  try {
    const v = await getJson<{ directory?: { shards?: ShardRow[] } }>("/v1/logs", "json");
    const shards = v.directory?.shards;
    // one shard (a service never rotated) reads as before shards: no shard column, no table
    if (Array.isArray(shards) && shards.length > 1) return { shards, sharded: true };
  } catch { /* a service without shards answers 404: its one log */ }
  return { shards: [{ id: "s0", state: "active" }], sharded: false };
}

/**
 * Shows the active shard's latest checkpoints (text, as signed), the shards of the directory, and
 * the newest entries over every shard (the active one's first, then the frozen ones' newest).
 */
export async function showExplorer(section: HTMLElement): Promise<void> {
  section.hidden = false;
  const head = el("h1", { id: "explore-h" }, "Explore the log");
  const { shards, sharded } = await listShards();
  const active = shards[shards.length - 1];
  const cp = el(
    "section",
    { "aria-labelledby": "cp-h", class: "panel" },
    el(
      "h2",
      { id: "cp-h" },
      "Latest checkpoints",
      sharded ? ` (shard ${active.id}, active)` : "",
    ),
  );
  const list = el(
    "section",
    { "aria-labelledby": "new-h" },
    el("h2", { id: "new-h" }, "Newest entries"),
  );
  replace(section, head, cp, ...(sharded ? [shardTable(shards)] : []), list);
  // Both panels load at once, each saying so until its answer is in (issue 28: the explorer showed
  // nothing while entries loaded).
  await Promise.all([
    whileLoading(cp, "Loading the latest checkpoints\u2026", () => showCheckpoints(cp, active.id)),
    whileLoading(list, "Loading the newest entries\u2026", () => showNewest(list, shards, sharded)),
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

/** The active shard's checkpoints of both views, as signed, fetched at once. */
async function showCheckpoints(cp: HTMLElement, activeId: string): Promise<void> {
  const views = [
    ["sha256", "SHA-256 view (the one witnesses cosign: one cosignature line per witness)"],
    ["blake3", "BLAKE3 view (JouleClaw, SPEC §22)"],
  ];
  const texts = await Promise.all(views.map(async ([view]) => {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(
        await getBytes(`${shardPath(activeId)}/log/${view}/checkpoint`, "checkpoint"),
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

/** The newest entries over every shard (the active one's first, then the frozen ones' newest). */
async function showNewest(list: HTMLElement, shards: ShardRow[], sharded: boolean): Promise<void> {
  try {
    const rows: (EntrySummary & { shard: string })[] = [];
    let total = 0;
    for (const s of shards.slice().reverse()) {
      const base = shardPath(s.id);
      const first = await getJson<EntriesPage>(`${base}/v1/log/entries?start=0&limit=1`, "page");
      const size = first["hydra:totalItems"];
      total += size;
      const want = NEWEST - rows.length;
      if (want <= 0 || size === 0) continue;
      const start = Math.max(0, size - want);
      const page = await getJson<EntriesPage>(
        `${base}/v1/log/entries?start=${start}&limit=${want}`,
        "page",
      );
      rows.push(...[...page["hydra:member"]].reverse().map((r) => ({ ...r, shard: s.id })));
    }
    list.append(
      el(
        "p",
        {},
        `${total} entr${total === 1 ? "y" : "ies"} in the log` +
          (sharded ? ` (${shards.length} shard${shards.length === 1 ? "" : "s"}).` : "."),
      ),
    );
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
                sharded ? el("th", { scope: "col" }, "Shard") : null,
                el("th", { scope: "col" }, "Index"),
                el("th", { scope: "col" }, "Schema"),
                el("th", { scope: "col" }, "Verdict"),
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
                  { "data-shard": r.shard },
                  sharded ? el("td", {}, r.shard) : null,
                  el("td", {}, el("a", { href: entryLink(r.shard, r.index) }, String(r.index))),
                  el(
                    "td",
                    {},
                    ...(r.kind
                      ? kindCell(r.kind, r.object ?? {}, r.content_id)
                      : [el("code", {}, r.schema ?? "")]),
                  ),
                  el("td", { "data-field": "verdict" }, r.verdict ?? ""),
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

/** The directory's shards as served (docs/SHARDS.md), newest first. */
function shardTable(shards: ShardRow[]): HTMLElement {
  const cell = (v: unknown) => el("td", {}, v === undefined || v === null ? "" : String(v));
  return el(
    "section",
    { "aria-labelledby": "shards-h" },
    el("h2", { id: "shards-h" }, "Shards"),
    el(
      "div",
      { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Table of the shards" },
      el(
        "table",
        { "data-field": "shards" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            ...["Shard", "State", "Size", "First entry", "Last entry"].map((h) =>
              el("th", { scope: "col" }, h)
            ),
          ),
        ),
        el(
          "tbody",
          {},
          ...shards.slice().reverse().map((s) =>
            el(
              "tr",
              {},
              cell(s.id),
              cell(s.state),
              cell(s.size),
              cell(s.first_time),
              cell(s.last_time),
            )
          ),
        ),
      ),
    ),
  );
}

/** The entry's RDF links, and the view named by `rdf=` shown as text. */
export async function showEntryViews(
  section: HTMLElement,
  index: string,
  rdf: string | null,
  shard = "",
): Promise<void> {
  section.hidden = false;
  const q = shard ? `&shard=${shard}` : "";
  const url = `${shardPath(shard)}/v1/log/entries/${index}`;
  const links = el(
    "ul",
    {},
    ...Object.entries(RDF_VIEWS).map(([k, v]) =>
      el("li", {}, el("a", { href: `/?index=${index}${q}&rdf=${k}` }, `${v.label} view`))
    ),
    el("li", {}, el("a", { href: url }, "JSON")),
  );
  replace(
    section,
    el("h2", { id: "views-h" }, `Entry ${index}${shard ? ` of shard ${shard}` : ""} as data`),
    links,
  );
  section.setAttribute("aria-labelledby", "views-h");
  await showFindings(section, url);
  await showIdentity(section, url, q);
  const view = rdf ? RDF_VIEWS[rdf] : undefined;
  if (!view) return;
  try {
    const text = new TextDecoder().decode(
      await getBytes(url, "page", view.accept),
    );
    section.append(
      el("h3", {}, view.label),
      el("pre", { "data-field": "rdf", "data-format": rdf! }, text),
    );
  } catch (e) {
    section.append(el("p", { class: "status-line" }, (e as Error).message));
  }
}

/** One finding as GET /v1/log/entries/{index}/findings answers it (docs/STREAMS.md). */
interface Finding {
  code: string;
  index: number;
  seq?: number;
  other?: number;
  cleared_by?: number;
}

/**
 * The entry's stream findings and the head that integrated it (issue 24), under the entry's
 * links; a log that keeps no streams (404) shows nothing.
 */
async function showFindings(section: HTMLElement, entryUrl: string): Promise<void> {
  let r: { integrated_in: { size: number; timestamp: number }; findings: Finding[] };
  try {
    r = await getJson(`${entryUrl}/findings`);
  } catch {
    return;
  }
  const at = new Date(r.integrated_in.timestamp).toISOString();
  section.append(
    el("h3", {}, "Stream findings"),
    el(
      "p",
      { "data-field": "integrated-in" },
      `Integrated in the signed head of size ${r.integrated_in.size} (${at}).`,
    ),
    r.findings.length === 0 ? el("p", { "data-field": "findings" }, "No findings.") : el(
      "ul",
      { "data-field": "findings" },
      ...r.findings.map((f) =>
        el(
          "li",
          { "data-code": f.code },
          `${f.code} at entry ${f.index}` +
            (f.seq !== undefined ? `, seq ${f.seq}` : "") +
            (f.other !== undefined ? `, other entry ${f.other}` : "") +
            (f.cleared_by !== undefined ? `, cleared by entry ${f.cleared_by}` : ""),
        )
      ),
    ),
  );
}

/** GET /v1/keys/{identity} (issue 25; docs/KEYS.md). */
interface IdentityAnswer {
  identity: string;
  seq: number;
  current: string;
  next_hash: string;
  events: number[];
  forks: { seq: number; index: number; first: number }[];
  forked_at?: number;
}

/**
 * The identity behind the entry (issue 25; docs/KEYS.md): a receipt's steward, or a key event's
 * identity, when the log holds its key-event chain: its current key and its key history, each
 * event a link to its entry; its forks. Nothing for a steward without a chain.
 */
async function showIdentity(section: HTMLElement, entryUrl: string, q: string): Promise<void> {
  let who: string | undefined;
  try {
    const e = await getJson<{ steward?: string | null; receipt?: Record<string, unknown> }>(
      entryUrl,
    );
    const r = e.receipt ?? {};
    who = typeof r.identity === "string" && "next_hash" in r ? r.identity : e.steward ?? undefined;
  } catch {
    return;
  }
  if (!who || !who.startsWith("did:key:")) return;
  let id: IdentityAnswer;
  try {
    id = await getJson(`/v1/keys/${who}`); // the service's (docs/KEYS.md "Shards")
  } catch {
    return; // no chain: the steward is its own key
  }
  section.append(
    el("h3", {}, "Identity and key history"),
    el(
      "p",
      { "data-field": "identity" },
      `Identity ${id.identity}: current key ${id.current} (event ${id.seq})` +
        (id.forked_at !== undefined ? `; frozen by the fork at entry ${id.forked_at}` : "") +
        ".",
    ),
    el(
      "ol",
      { "data-field": "key-history", start: "0" },
      ...id.events.map((i, seq) =>
        el(
          "li",
          { "data-seq": String(seq) },
          el("a", { href: `/?index=${i}${q}` }, `entry ${i}`),
          seq === 0 ? " (inception)" : ` (rotation ${seq})`,
        )
      ),
    ),
    ...(id.forks.length
      ? [el(
        "ul",
        { "data-field": "key-forks" },
        ...id.forks.map((f) =>
          el("li", {}, `fork at seq ${f.seq}: entry ${f.index} (the chain's: entry ${f.first})`)
        ),
      )]
      : []),
  );
}
