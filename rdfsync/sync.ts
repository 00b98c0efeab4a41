// Verified, resumable sync of a log into a SPARQL store (issue 15; docs/RDF.md "Sync into an
// external store"). It tails the log FROM TILES (C2SP tlog-tiles, client/tiles.ts): each
// checkpoint is opened with the log's vkey (and, with a tlog-policy, must meet its witness
// quorum), must extend the checkpoint synced before (a consistency proof from tiles), and each
// entry comes from a bundle checked against the level-0 tile the signed root proves — its
// inclusion — before anything of it is pushed. Each entry becomes its own named graph (graph IRI =
// the entry's URL), written by Graph Store Protocol PUT or by `DROP SILENT GRAPH` + `INSERT DATA`
// (as `INSERT { } WHERE { }`) in batches: either replaces the graph, so re-sending one never doubles it.
//
// Progress lives in the store itself, in the sync-state graph: after each batch a record of
// (entries synced, the checkpoint they were proven against, its root) is inserted, then older
// records are deleted. A sync killed anywhere resumes from the newest complete record and re-sends
// at most one batch (replacing what it finds), so the end state is the same. A checkpoint that
// does not extend the synced one (another root at a synced size, a rollback, a fork) is an alarm:
// both signed checkpoints are written to the state graph and the sync stops; it refuses to run
// while the alarm is there.
import { c2sp } from "../log/mod.ts";
import { toHex } from "../verify/mod.ts";
import { VerificationFailure } from "../client/mod.ts";
import { checkPolicy } from "../client/mod.ts";
import { type TileClient, type View, type ViewCheckpoint } from "../client/mod.ts";
import { entryGraph } from "./entry_graph.ts";
import type { SparqlHttp } from "./sparql_http.ts";

/** Namespace of the sync-state terms (docs/RDF.md "Sync-state graph"). */
export const JCS = "https://jouleclaw.transaction.science/vocab/sync#";
const XSD = "http://www.w3.org/2001/XMLSchema#";
/** Graph Store PUTs in flight at once. */
const PUT_CONCURRENCY = 4;

/** The log rewrote what was synced, or went back: the sync stopped (exit 3 of the CLI). */
export class SyncAlarm extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SyncAlarm";
  }
}

/** The newest complete progress record. */
export interface SyncState {
  /** entries synced (graphs 0..size-1 are in the store) */
  size: number;
  /** the checkpoint note they were proven against (size >= `size`) */
  checkpoint: string;
  root: string;
}

/** What one pass did. */
export interface SyncReport {
  from: number;
  to: number;
  checkpointSize: number;
  root: string;
  graphs: number;
  ms: number;
}

/** Options of `syncOnce`. */
export interface SyncOptions {
  client: TileClient;
  store: SparqlHttp;
  /** base of the entry URLs (graph IRIs): the log's service URL */
  graphBase: string;
  /** the view whose checkpoints and tiles are verified (sha256 with a policy: it is witnessed) */
  view?: View;
  policy?: c2sp.TlogPolicy;
  /** entries per write batch (default: 256 with Graph Store PUT, 32 with updates) */
  batch?: number;
  /** called after each batch */
  progress?: (synced: number, target: number) => void;
  /** Issue 30: an entry's integration time (ms), its graph's jc:integratedAt (rdfsync/targets.ts) */
  integrated?: (index: number) => Promise<number | undefined>;
  /** stops the pass between batches (what is written is recorded: the next pass resumes there) */
  signal?: AbortSignal;
}

/** The sync-state graph of the log whose checkpoints carry `origin`. */
export function stateGraph(origin: string): string {
  return `urn:jouleclaw:rdf-sync:${encodeURIComponent(origin)}`;
}

const lit = (s: string) =>
  `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r")}"`;

/** The newest complete record in `graph`, and the alarm if one is recorded. */
export async function readState(
  store: SparqlHttp,
  graph: string,
): Promise<{ state?: SyncState; alarm?: string }> {
  const alarm = await store.select(
    `SELECT ?reason WHERE { GRAPH <${graph}> { ?a a <${JCS}Alarm> ; <${JCS}reason> ?reason } } LIMIT 1`,
  );
  const rows = await store.select(
    `SELECT ?size ?cp ?root WHERE { GRAPH <${graph}> { ?s a <${JCS}Progress> ; <${JCS}entries> ?size ; ` +
      `<${JCS}checkpoint> ?cp ; <${JCS}root> ?root } } ORDER BY DESC(?size) LIMIT 1`,
  );
  const r = rows[0];
  return {
    alarm: alarm[0]?.reason,
    state: r ? { size: Number(r.size), checkpoint: r.cp, root: r.root } : undefined,
  };
}

/** Records progress: the new record first, then older ones go (a crash between leaves both). */
async function writeState(store: SparqlHttp, graph: string, s: SyncState): Promise<void> {
  const me = `<${graph}#progress-${s.size}>`;
  await store.update(
    `INSERT DATA { GRAPH <${graph}> { ${me} a <${JCS}Progress> ; <${JCS}entries> "${s.size}"^^<${XSD}nonNegativeInteger> ; ` +
      `<${JCS}checkpoint> ${lit(s.checkpoint)} ; <${JCS}root> ${lit(s.root)} } }`,
  );
  await store.update(
    `DELETE { GRAPH <${graph}> { ?s ?p ?o } } WHERE { GRAPH <${graph}> { ?s a <${JCS}Progress> ; ` +
      `<${JCS}entries> ?n ; ?p ?o . FILTER (?n < ${s.size}) } }`,
  );
}

async function writeAlarm(
  store: SparqlHttp,
  graph: string,
  synced: SyncState,
  conflicting: string,
  reason: string,
): Promise<void> {
  await store.update(
    `INSERT DATA { GRAPH <${graph}> { <${graph}#alarm> a <${JCS}Alarm> ; <${JCS}reason> ${
      lit(reason)
    } ; <${JCS}entries> "${synced.size}"^^<${XSD}nonNegativeInteger> ; <${JCS}checkpoint> ${
      lit(synced.checkpoint)
    } ; <${JCS}conflictingCheckpoint> ${lit(conflicting)} } }`,
  );
}

/** Writes the graphs of entries [start, start + entries.length). */
async function writeGraphs(
  store: SparqlHttp,
  start: number,
  entries: Uint8Array[],
  graphBase: string,
  integrated?: (index: number) => Promise<number | undefined>,
): Promise<void> {
  const at: (number | undefined)[] = [];
  for (let k = 0; k < entries.length; k++) at.push(await integrated?.(start + k)); // in order
  const graphs = await Promise.all(
    entries.map((e, k) => entryGraph(start + k, e, graphBase, at[k])),
  );
  if (store.gsp) {
    // A few PUTs in flight: the store works on one while the next travels.
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(PUT_CONCURRENCY, graphs.length) }, async () => {
      while (next < graphs.length) {
        const g = graphs[next++];
        await store.put(g.iri, g.ntriples);
      }
    }));
    return;
  }
  // INSERT { } WHERE { } rather than INSERT DATA: Virtuoso refuses blank nodes in INSERT DATA
  // ("SP031 … not allowed in a constant clause"); a template makes them fresh, once (one solution).
  // One operation per graph: Virtuoso compiles each to SQL, with a ceiling on its length.
  await store.update(
    graphs.map((g) =>
      `DROP SILENT GRAPH <${g.iri}> ;\nINSERT {\nGRAPH <${g.iri}> {\n${g.ntriples}}\n} WHERE { }`
    ).join(" ;\n"),
  );
}

/**
 * One pass: from the synced size to the log's current checkpoint. Throws SyncAlarm (after
 * recording it) when the log does not extend what was synced; VerificationFailure when a
 * checkpoint or tile does not verify (nothing of it is written).
 */
export async function syncOnce(o: SyncOptions): Promise<SyncReport> {
  const t0 = performance.now();
  const view = o.view ?? (o.policy ? "sha256" : "blake3");
  const batch = o.batch ?? (o.store.gsp ? 256 : 32);
  const cp: ViewCheckpoint = await o.client.checkpoint(view);
  if (o.policy) await checkPolicy(cp.note, o.policy);
  const graph = stateGraph(cp.checkpoint.origin);
  const { state, alarm } = await readState(o.store, graph);
  if (alarm) {
    throw new SyncAlarm(`Cannot sync: an alarm is recorded in <${graph}>: ${alarm}`);
  }
  if (state) {
    const old = await o.client.open(view, state.checkpoint);
    try {
      await o.client.checkConsistency(old, cp);
    } catch (e) {
      if (!(e instanceof VerificationFailure)) throw e;
      await writeAlarm(o.store, graph, state, cp.note, e.message);
      throw new SyncAlarm(`Cannot sync: ${e.message}; both checkpoints are kept in <${graph}>`);
    }
  }
  const from = state?.size ?? 0;
  const size = cp.checkpoint.size;
  const root = toHex(cp.checkpoint.root);
  const reader = o.client.reader(cp);
  let synced = from;
  while (synced < size) {
    const tile = Math.floor(synced / c2sp.TILE_WIDTH);
    const entries = await reader.entries(tile); // each checked against the proven level-0 tile
    const tileStart = tile * c2sp.TILE_WIDTH;
    const tileEnd = tileStart + entries.length;
    while (synced < tileEnd) {
      if (o.signal?.aborted) break;
      const end = Math.min(tileEnd, synced + batch);
      await writeGraphs(
        o.store,
        synced,
        entries.slice(synced - tileStart, end - tileStart),
        o.graphBase,
        o.integrated,
      );
      await writeState(o.store, graph, { size: end, checkpoint: cp.note, root });
      synced = end;
      o.progress?.(synced, size);
    }
    if (o.signal?.aborted) break;
  }
  return {
    from,
    to: synced,
    checkpointSize: size,
    root,
    graphs: synced - from,
    ms: performance.now() - t0,
  };
}
