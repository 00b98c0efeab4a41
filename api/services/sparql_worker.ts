// The embedded SPARQL endpoint, bounded (issue 15): Oxigraph runs in a Worker
// (api/services/sparql_worker_thread.ts), never on the event loop.
//
// - Time: a query has `sparql_timeout_ms` (waiting included); past it the answer is 503
//   `sparql-timeout` and, if it was running, the Worker is terminated (Oxigraph cannot be
//   interrupted) and a fresh one starts loading again.
// - Concurrency: at most `sparql_max_queued` queries queued or running (503 `sparql-busy` +
//   Retry-After beyond); answers larger than `sparql_max_result_bytes` are refused (413
//   `sparql-result-too-large`).
// - Loading never makes a request wait: it starts on first use and runs in the background, in
//   batches of LOAD_BATCH entries read from the log on this thread (a few ms each) and turned into
//   RDF in the Worker. Until the Worker has caught up with the tree head it saw, queries are
//   answered 503 `sparql-loading` + Retry-After with the progress; afterwards every answer covers
//   the loaded prefix of the log (and the current state of the stream findings its entries
//   touch, docs/RDF.md "Stream findings"), reported in JC-Tree-Size (a lag of at most one batch is loaded
//   before the query, a wait bounded by LAG_WAIT_MS).
// - Memory: the store never holds more than `sparql_max_entries` entries; once the log is longer,
//   the Worker is ended (its memory freed) and queries are answered 507 `sparql-log-too-large`,
//   pointing to `deno task rdf:sync` into an external store (docs/RDF.md).
// Deno-only (module Workers).
import { type IdentityJson, identityJson, integrationTimes, type Log } from "../../log/mod.ts";
import { readJcpObject } from "../../verify/mod.ts";
import type { FindingInput } from "../../vocab/mod.ts";
import {
  GRAPH_TYPES,
  queryForm,
  RESULT_TYPES,
  serviceDescription,
} from "../../vocab/sparql/mod.ts";
import type { ServiceConfig } from "./config.ts";
import type { ProfileOptions } from "../../verify/mod.ts";
import type { Metrics } from "../http/metrics.ts";
import { ApiError, retryAfterSeconds } from "../http/errors.ts";
import {
  JobError,
  JobLostError,
  JobQueueFullError,
  JobTimeoutError,
  OffLoopWorker,
} from "./off_loop.ts";
import type {
  LoadSegment,
  SparqlJob,
  SparqlJobAnswer,
  SparqlLoadAnswer,
} from "./sparql_worker_thread.ts";

export type { LoadSegment } from "./sparql_worker_thread.ts";

/** Entries per load job. */
export const LOAD_BATCH = 256;
/** Longest a query waits for a small lag to be loaded before it runs. */
const LAG_WAIT_MS = 1_000;
/** Time limit of one load job (a batch takes well under a second). */
const LOAD_TIMEOUT_MS = 120_000;

/** Where the endpoint stands. */
export interface SparqlStatus {
  /** entries loaded into the store */
  loaded: number;
  /** the tree size the loader is heading for */
  target: number;
  /** caught up once since the Worker started */
  ready: boolean;
  /** the log is longer than `sparql_max_entries` */
  overBound: boolean;
  /** Workers started (1 + restarts after a time or memory limit) */
  starts: number;
  /** the store's linear memory after the last load, bytes */
  memory: number;
  /** the store reached sparql_max_memory_mb while loading */
  full: boolean;
}

/** What the `/v1/sparql` route needs of a store (api/http/routes/sparql.ts). */
export interface SparqlHandle {
  form(q: string): string;
  query(q: string, mediaType: string): Promise<{ body: Uint8Array; size: number }>;
  status(): SparqlStatus;
  close(): void;
}

/** The identity a key-event entry extends (issue 25), undefined for any other entry. */
function keyEventIdentity(envelope: Uint8Array): string | undefined {
  try {
    const o = readJcpObject(envelope);
    const id = o?.kind === "key-event" ? o.core.get("identity") : undefined;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined; // not a JCP object the log could have logged: no identity moved
  }
}

/**
 * A log the store loads, and the base of its entries' graph IRIs (`<origin>/v1/log/entries/i`);
 * `judged`: the configurations its entries were judged under (issue 23), read once per batch
 * (default: every entry under the store's reference vectors, no configuration named).
 */
export interface SparqlSource {
  log: Log;
  origin: string;
  judged?: () => Promise<LoadSegment[]>;
}

/**
 * The embedded store of one service: every listed shard's log, s0 first (docs/SHARDS.md), each
 * entry a named graph whose IRI is its shard-qualified URL (docs/RDF.md "Entry IRIs").
 */
export class EmbeddedSparql implements SparqlHandle {
  readonly #sources: () => Promise<SparqlSource[]>;
  readonly #config: ServiceConfig;
  readonly #worker: OffLoopWorker;
  /** entries loaded per source (a prefix of each shard's log) */
  #loadedPer: number[] = [];
  #loaded = 0;
  #target = 0;
  #ready = false;
  #overBound = false;
  #full = false;
  #memory = 0;
  /** bumped whenever the Worker is replaced: a loader of an older generation stops */
  #gen = 0;
  #loading: Promise<void> | undefined;
  #closed = false;
  #started = performance.now();
  readonly #metrics?: Metrics;
  readonly #referenceVectors: ProfileOptions["referenceVectors"];

  constructor(
    sources: () => Promise<SparqlSource[]>,
    config: ServiceConfig,
    metrics?: Metrics,
    referenceVectors: ProfileOptions["referenceVectors"] = {},
  ) {
    this.#metrics = metrics;
    this.#referenceVectors = referenceVectors;
    this.#sources = sources;
    this.#config = config;
    this.#worker = new OffLoopWorker({
      url: new URL("./sparql_worker_thread.ts", import.meta.url),
      init: { maxMemoryBytes: config.sparqlMaxMemoryMb * 1024 * 1024 },
      maxQueued: config.sparqlMaxQueued + 1, // + the one load job
      onRestart: () => this.#restarted(),
    });
    this.#kick();
  }

  form(q: string): string {
    return queryForm(q);
  }

  status(): SparqlStatus {
    return {
      loaded: this.#loaded,
      target: this.#target,
      ready: this.#ready,
      overBound: this.#overBound,
      starts: this.#worker.starts,
      memory: this.#memory,
      full: this.#full,
    };
  }

  /** Resolves when the loader has caught up with the tree head (tests, bench). */
  async caughtUp(): Promise<SparqlStatus> {
    while (!this.#closed) {
      await (this.#loading ?? this.#kick());
      if (this.#overBound || this.#full || (this.#ready && this.#loaded >= this.#target)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.status();
  }

  /** /metrics: entries loaded, the store's memory, Workers started. */
  #gauges(): void {
    const m = this.#metrics;
    if (!m) return;
    m.setLabeled("jc_sparql_entries", {}, this.#loaded, "Log entries in the SPARQL store");
    m.setLabeled(
      "jc_sparql_store_bytes",
      {},
      this.#memory,
      "Linear memory of the SPARQL store's Oxigraph (bounded by sparql_max_memory_mb)",
    );
    m.setLabeled(
      "jc_sparql_worker_starts",
      {},
      this.#worker.starts,
      "SPARQL Workers started (1 + restarts after a time or memory limit)",
    );
  }

  #restarted(): void {
    this.#gen++;
    this.#memory = 0;
    this.#loaded = 0;
    this.#loadedPer = [];
    this.#ready = false;
    this.#started = performance.now();
    this.#worker.dropQueued(new JobLostError("the SPARQL worker was restarted"));
    this.#gauges();
    if (!this.#overBound && !this.#full) this.#kick();
  }

  /** Starts the background loader unless it runs. */
  #kick(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#loading ??= this.#loadLoop()
      .catch((e) => console.error("Cannot load the log into the SPARQL store:", e))
      .finally(() => this.#loading = undefined);
  }

  async #loadLoop(): Promise<void> {
    const gen = this.#gen;
    while (!this.#closed && gen === this.#gen) {
      const sources = await this.#sources();
      const heads = await Promise.all(sources.map(async (s) => (await s.log.latestHead()).size));
      const head = heads.reduce((a, b) => a + b, 0);
      if (head > this.#config.sparqlMaxEntries) {
        this.#overBound = true;
        this.#ready = false;
        // Free the memory: the store will not be used again while the log is this long.
        this.#gen++;
        this.#loaded = 0;
        this.#loadedPer = [];
        this.#worker.reset(new JobLostError("the log outgrew sparql_max_entries"));
        return;
      }
      this.#target = Math.max(this.#target, head);
      // the first shard with entries not loaded yet (frozen shards are final: once loaded, done)
      const n = heads.findIndex((h, k) => (this.#loadedPer[k] ?? 0) < h);
      if (n < 0) {
        this.#ready = true;
        return;
      }
      const { log, origin, judged } = sources[n];
      const start = this.#loadedPer[n] ?? 0;
      const end = Math.min(heads[n], start + LOAD_BATCH);
      const envelopes: Uint8Array[] = [];
      for (let i = start; i < end; i++) {
        const bytes = await log.entry(i);
        if (!bytes) throw new Error(`Cannot load entry ${i}: the log does not have it`);
        envelopes.push(bytes.slice());
      }
      // issue 23: only the segments that govern [start, end), from the first one's start
      const all = judged ? await judged() : [{ from: 0, referenceVectors: this.#referenceVectors }];
      const first = all.findLastIndex((g) => g.from <= start);
      const segs = all.slice(Math.max(0, first)).filter((g, k) => k === 0 || g.from < end);
      // issue 24: the findings these entries caused, are the other side of or cleared (each a
      // few index seeks), so a finding's graph is replaced whenever the entry changing it loads
      const findings = new Map<number, FindingInput>();
      for (let i = start; log.streamReads && i < end; i++) {
        for (const f of await log.streamReads.entryFindings(i)) findings.set(f.id ?? -1 - i, f);
      }
      // issue 30: each entry's integration time (JCP §11), a log fact of its graph
      const at = integrationTimes(log.streamReads);
      const integrated: (number | null)[] = [];
      for (let i = start; i < end; i++) integrated.push(await at(i) ?? null);
      // issue 25: the identities whose key events these entries are, as the log resolves them
      const identities: IdentityJson[] = [];
      for (const id of new Set(envelopes.map(keyEventIdentity))) {
        const rec = id && await log.streamReads?.identity(id);
        if (id && rec) identities.push(identityJson(id, rec));
      }
      const job: SparqlJob = {
        load: {
          start,
          envelopes,
          origin,
          judged: segs,
          findings: [...findings.values()],
          integrated,
          identities,
        },
      };
      let a: SparqlLoadAnswer;
      try {
        a = await this.#worker.run<SparqlLoadAnswer>(job, LOAD_TIMEOUT_MS, {
          force: true,
          transfer: envelopes.map((e) => e.buffer as ArrayBuffer),
        });
      } catch (e) {
        if (gen !== this.#gen || this.#closed) return; // the Worker was replaced: a new loader runs
        if (e instanceof JobError && e.code === "sparql-store-full") {
          // sparql_max_entries is set too high for sparql_max_memory_mb: stop, free, refuse.
          console.error(`SPARQL store: ${e.message}; queries are refused (docs/RDF.md)`);
          this.#full = true;
          this.#ready = false;
          this.#gen++;
          this.#loaded = 0;
          this.#worker.reset(new JobLostError("the store is full"));
          return;
        }
        throw e;
      }
      if (gen !== this.#gen) return;
      this.#loadedPer[n] = end;
      this.#loaded += end - start;
      this.#memory = a.memory;
      this.#gauges();
    }
  }

  #retryAfter(): string {
    // From the rate so far: the time the rest should take, at least a second.
    const s = this.status();
    const elapsed = performance.now() - this.#started;
    const perMs = s.loaded / Math.max(1, elapsed);
    const rest = perMs > 0 ? (s.target - s.loaded) / perMs : 5_000;
    return retryAfterSeconds(Math.min(rest, 60_000));
  }

  async query(q: string, mediaType: string): Promise<{ body: Uint8Array; size: number }> {
    const t0 = performance.now();
    const sources = await this.#sources();
    let head = 0;
    for (const src of sources) head += (await src.log.latestHead()).size;
    if (head > this.#config.sparqlMaxEntries || this.#full) {
      if (!this.#overBound && !this.#full) this.#kick(); // notices, frees the store
      throw new ApiError(
        "sparql-log-too-large",
        `Cannot answer SPARQL here: the log has ${head} entries, more than this endpoint holds ` +
          (this.#full
            ? `in sparql_max_memory_mb = ${this.#config.sparqlMaxMemoryMb}`
            : `(sparql_max_entries = ${this.#config.sparqlMaxEntries})`) +
          ". Sync the log into a SPARQL store (deno task rdf:sync, docs/RDF.md) and query that.",
        {
          status: 507,
          extra: {
            log_size: head,
            sparql_max_entries: this.#config.sparqlMaxEntries,
            see: "docs/RDF.md#sync-into-an-external-store",
          },
        },
      );
    }
    const lag = head - this.#loaded;
    const loading = this.#kick();
    if (!this.#ready) {
      throw new ApiError(
        "sparql-loading",
        `Cannot answer yet: the SPARQL store is loading the log (${this.#loaded} of ` +
          `${this.#target || head} entries)`,
        {
          status: 503,
          headers: { "retry-after": this.#retryAfter() },
          extra: { loaded: this.#loaded, target: this.#target || head },
        },
      );
    }
    if (lag > 0 && lag <= LOAD_BATCH) {
      // One batch behind: load it first, for at most LAG_WAIT_MS.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        loading.catch(() => {}),
        new Promise((r) => timer = setTimeout(r, LAG_WAIT_MS)),
      ]);
      clearTimeout(timer);
    }
    const timeoutMs = Math.max(1, this.#config.sparqlTimeoutMs - (performance.now() - t0));
    const job: SparqlJob = {
      query: q,
      mediaType,
      maxBytes: this.#config.sparqlMaxResultBytes,
    };
    try {
      return await this.#worker.run<SparqlJobAnswer>(job, timeoutMs);
    } catch (e) {
      throw this.#apiError(e);
    }
  }

  #apiError(e: unknown): unknown {
    const cfg = this.#config;
    if (e instanceof JobTimeoutError) {
      return new ApiError(
        "sparql-timeout",
        `Cannot answer the query within ${cfg.sparqlTimeoutMs} ms (sparql_timeout_ms)` +
          (e.started ? "; it was stopped" : "; it waited behind others"),
        { status: 503, headers: { "retry-after": "1" } },
      );
    }
    if (e instanceof JobQueueFullError) {
      return new ApiError(
        "sparql-busy",
        `Cannot take the query now: ${cfg.sparqlMaxQueued} queries are queued or running ` +
          "(sparql_max_queued)",
        { status: 503, headers: { "retry-after": "1" } },
      );
    }
    if (e instanceof JobLostError) {
      return new ApiError(
        "sparql-loading",
        "Cannot answer now: the SPARQL store restarted and is loading the log again",
        {
          status: 503,
          headers: { "retry-after": this.#retryAfter() },
          extra: { loaded: this.#loaded, target: this.#target },
        },
      );
    }
    if (e instanceof JobError && e.code === "sparql-memory-limit") {
      // Oxigraph aborted: its instance is unusable. A fresh Worker loads the log again.
      this.#worker.reset(new JobLostError("the SPARQL worker ran out of memory"));
      return new ApiError(
        "sparql-memory-limit",
        `Cannot answer the query: it needs more than the store's ${cfg.sparqlMaxMemoryMb} MiB ` +
          "(sparql_max_memory_mb); narrow it",
        { status: 503, headers: { "retry-after": this.#retryAfter() } },
      );
    }
    if (e instanceof JobError && e.code) {
      const status = e.code === "sparql-result-too-large" ? 413 : 400;
      return new ApiError(e.code, e.message, { status });
    }
    return e;
  }

  close(): void {
    this.#closed = true;
    this.#worker.close();
  }
}

/** What a store is opened with: the app's log and origin, or every shard's (`sources`). */
export interface SparqlOpen {
  log: Log;
  config: ServiceConfig;
  origin: string;
  /** every listed shard's log and IRI base, s0 first (default: `log` at `origin` alone) */
  sources?: () => Promise<SparqlSource[]>;
  metrics?: Metrics;
  /**
   * JCR-1 §6 step 6: the reference vectors each entry's verdict class is decided under where a
   * source names no configurations (`SparqlSource.judged`)
   */
  referenceVectors?: ProfileOptions["referenceVectors"];
}

/**
 * The provider api/deno/main.ts passes as `deps.services.sparql`: one EmbeddedSparql per log, opened on
 * first use (graph IRIs are entry URLs under the public URL, api/http/public_url.ts — never a
 * request's Host), closed with the service.
 */
export class EmbeddedSparqlProvider {
  readonly resultTypes = RESULT_TYPES;
  readonly graphTypes = GRAPH_TYPES;
  readonly describe = serviceDescription;
  readonly #open = new Map<Log, EmbeddedSparql>();

  open(ctx: SparqlOpen): EmbeddedSparql {
    let s = this.#open.get(ctx.log);
    if (!s) {
      const sources = ctx.sources ??
        (() => Promise.resolve([{ log: ctx.log, origin: ctx.origin }]));
      s = new EmbeddedSparql(sources, ctx.config, ctx.metrics, ctx.referenceVectors);
      this.#open.set(ctx.log, s);
    }
    return s;
  }

  close(): void {
    for (const s of this.#open.values()) s.close();
    this.#open.clear();
  }
}
