// The RDF sync as a background job of the Deno service (issue 15; docs/RDF.md "As a job of the
// service"; config `rdf_sync`, docs/CONFIG.md): rdfsync/'s verified `syncOnce` run on a timer, off
// the append path. It reads the log as any client does, from its tiles over HTTP (by default this
// service's own URL), so every checkpoint and tile is verified before anything is written. Rounds
// never overlap (the next is scheduled when one ends); failures back off (the interval doubled per
// failure, at most 5 minutes); a checkpoint below the policy's quorum is a failure (witnesses may
// cosign later). A SyncAlarm (the log does not extend what was synced) or a checkpoint or tile
// that does not verify stops the job, as they make `deno task rdf:sync` exit 3: it is logged,
// reported in /healthz (`rdf_sync`) and as the metric `jc_rdf_sync_alarm`. Stopped on shutdown
// between two batches (what was written is recorded; the next start resumes there).
import { VerificationFailure } from "../../client/mod.ts";
import { BelowQuorum, loadPolicy } from "../../client/mod.ts";
import { SparqlHttp, SyncAlarm, syncOnce, syncTargets } from "../../rdfsync/mod.ts";
import type { Metrics } from "../http/metrics.ts";
import type { RdfSyncSetting } from "./rdf_sync_config.ts";

/** What /healthz reports of the job. */
export interface RdfSyncStatus {
  /** "running"; "alarm" (stopped: the log does not extend what was synced); "check-failed"
   * (stopped: a checkpoint or tile did not verify); "stopped" (shut down). */
  state: "running" | "alarm" | "check-failed" | "stopped";
  log: string;
  endpoint: string;
  /** Entries in the store after the last round (every shard's sync-state graph's size). */
  synced_size: number;
  rounds: number;
  /** Failures in a row (backing off while > 0). */
  failures: number;
  last_error?: string;
  /** The alarm or the failed check that stopped the job. */
  alarm?: string;
}

/** Options of `RdfSyncJob`. */
export interface RdfSyncJobOptions {
  setting: RdfSyncSetting;
  /** This service's URL (the default log). */
  selfUrl: string;
  metrics?: Metrics;
  /** Longest backoff after failures, ms (default 5 minutes). */
  maxBackoffMs?: number;
  log?: (line: string) => void;
}

/**
 * Runs `syncOnce` every `interval_s` until stopped or alarmed.
 *
 * @example
 * ```ts
 * const job = new RdfSyncJob({ setting: config.rdfSync!, selfUrl: "http://127.0.0.1:8080" });
 * job.start();
 * await job.stop();
 * ```
 */
export class RdfSyncJob {
  readonly #o: RdfSyncJobOptions;
  readonly #logUrl: string;
  readonly #store: SparqlHttp;
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #status: RdfSyncStatus;

  constructor(o: RdfSyncJobOptions) {
    this.#o = o;
    this.#logUrl = (o.setting.log ?? o.selfUrl).replace(/\/+$/, "");
    const s = o.setting;
    this.#store = new SparqlHttp({
      endpoint: s.endpoint,
      update: s.update,
      graphStore: s.graphStore,
      user: s.user,
      password: s.password,
    });
    this.#status = {
      state: "running",
      log: this.#logUrl,
      endpoint: s.endpoint,
      synced_size: 0,
      rounds: 0,
      failures: 0,
    };
    o.metrics?.describeCounter(
      "jc_rdf_sync_failures_total",
      "Rounds of the RDF sync job that failed (store, network, below the policy's quorum).",
    );
    o.metrics?.describeGauge(
      "jc_rdf_sync_synced_size",
      "Entries the RDF sync job has written to the external store (its sync-state graph's size).",
    );
    o.metrics?.describeGauge(
      "jc_rdf_sync_alarm",
      "1 when the RDF sync job stopped on an alarm or a failed check (see /healthz rdf_sync).",
    );
    o.metrics?.set("jc_rdf_sync_alarm", 0);
  }

  /** Starts the rounds: the first at once, then one `interval_s` after each ends. */
  start(): void {
    const every = this.#o.setting.intervalS * 1000;
    const max = this.#o.maxBackoffMs ?? 300_000;
    const loop = () => {
      if (this.#abort.signal.aborted || this.#status.state !== "running") return;
      this.#running = this.round().finally(() => {
        this.#running = undefined;
        if (this.#abort.signal.aborted || this.#status.state !== "running") return;
        const f = this.#status.failures;
        const wait = f === 0 ? every : Math.min(max, every * 2 ** Math.min(f - 1, 16));
        this.#timer = setTimeout(loop, wait);
      });
    };
    this.#timer = setTimeout(loop, 0);
  }

  /** Stops the timer and ends a round in flight between two batches; waits for it. */
  async stop(): Promise<void> {
    this.#abort.abort();
    clearTimeout(this.#timer);
    await this.#running;
    if (this.#status.state === "running") this.#status.state = "stopped";
  }

  /** The job's status (/healthz). */
  status(): RdfSyncStatus {
    return { ...this.#status };
  }

  #log(line: string) {
    (this.#o.log ?? console.error)(`rdf sync: ${line}`);
  }

  /** One round; never throws (the outcome is in the status). */
  async round(): Promise<void> {
    const st = this.#status;
    const m = this.#o.metrics;
    try {
      const policy = this.#o.setting.policyFile
        ? await loadPolicy(this.#o.setting.policyFile)
        : undefined;
      // docs/SHARDS.md: every shard of the directory, s0 first, each into its own graphs
      const targets = await syncTargets({
        log: this.#logUrl,
        graphBase: this.#logUrl,
        flags: {},
        env: () => undefined,
        policy,
        net: {},
      });
      let synced = 0;
      for (const t of targets) {
        const r = await syncOnce({ ...t, store: this.#store, signal: this.#abort.signal });
        synced += r.to;
        const what = t.shard ? `${t.shard} ` : "";
        if (r.graphs > 0) this.#log(`synced ${what}${r.from}..${r.to} in ${Math.round(r.ms)} ms`);
        if (this.#abort.signal.aborted) break;
      }
      st.rounds++;
      st.failures = 0;
      st.synced_size = synced;
      delete st.last_error;
      m?.set("jc_rdf_sync_synced_size", synced);
    } catch (e) {
      st.rounds++;
      const why = (e as Error)?.message ?? String(e);
      if (e instanceof SyncAlarm || e instanceof VerificationFailure) {
        st.state = e instanceof SyncAlarm ? "alarm" : "check-failed";
        st.alarm = why;
        m?.set("jc_rdf_sync_alarm", 1);
        this.#log(`ALARM, the job stops: ${why}`);
        return;
      }
      st.failures++;
      st.last_error = e instanceof BelowQuorum ? `policy-quorum: ${why}` : why;
      m?.inc("jc_rdf_sync_failures_total");
      this.#log(`round failed (${st.failures}x): ${st.last_error}`);
    }
  }
}
