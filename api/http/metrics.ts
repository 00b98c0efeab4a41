// Service metrics in the Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/). Counters, gauges and
// cumulative histograms with fixed buckets; label values escaped per the format. Pure.

type Labels = Record<string, string>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function labelKey(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  return keys.map((k) => `${k}="${escapeLabel(labels[k])}"`).join(",");
}

function fmt(n: number): string {
  if (n === Infinity) return "+Inf";
  return Number.isInteger(n) ? String(n) : n.toPrecision(6).replace(/\.?0+$/, "");
}

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly buckets: number[]) {
    this.counts = buckets.map(() => 0);
  }
  observe(v: number) {
    this.sum += v;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]) this.counts[i]++;
  }
}

const NO_LABELS: Labels = {};
const CREATED: Labels = { result: "created" };
const DUPLICATE: Labels = { result: "duplicate" };
/**
 * Where an append or verification came from, as a `source` label: absent for receipts
 * (`POST /v1/log/entries`: the series as they always were), `readings` for `POST /v1/readings`
 * (issue 28: readings counted toward no append or verification metric).
 */
export type MetricSource = "readings";
const READING_CREATED: Labels = { result: "created", source: "readings" };
const READING_DUPLICATE: Labels = { result: "duplicate", source: "readings" };

/** Buckets of the ack-latency histogram, seconds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Buckets of the batch-size histogram, entries. */
export const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/**
 * The service's metrics: appends, verification outcomes by code, batch sizes, ack latency, tree
 * size, HTTP responses. One instance per app.
 */
export class Metrics {
  #counters = new Map<string, Map<string, number>>();
  #help = new Map<string, [string, string]>();
  #hist = new Map<string, Histogram>();
  #gauges = new Map<string, number>();
  #labeledGauges = new Map<string, Map<string, number>>();
  #keys = new WeakMap<Labels, string>();
  #codeLabels = new Map<string, Labels>();
  #lastBatchSize = -1;
  #lastBatchCount = 0;

  constructor() {
    this.#describe("jc_appends_total", "counter", "Entries acknowledged, by result.");
    this.#describe(
      "jc_verifications_total",
      "counter",
      "Envelopes verified, by outcome code (ok or the first failing step's reason code).",
    );
    this.#describe("jc_http_responses_total", "counter", "HTTP responses, by status code.");
    this.#describe("jc_rate_limited_total", "counter", "Requests refused by the rate limiter.");
    this.#describe("jc_pushback_total", "counter", "Appends refused by sequencer pushback.");
    this.#describe(
      "jc_sequencer_cpu_seconds_total",
      "counter",
      "The sequencer's CPU time on the event loop's thread, by phase (sequence, commit, answer).",
    );
    this.#describe(
      "jc_storage_read_faults_total",
      "counter",
      "Reads inside a signed size the store failed or lacked (503 storage-unavailable).",
    );
    this.#describe(
      "jc_verify_worker_replaced_total",
      "counter",
      "Verifier pool workers that died (failed or stopped answering) and were replaced.",
    );
    this.#describe(
      "jc_append_ack_seconds",
      "histogram",
      "Time from receiving an append to answering it with its proof.",
    );
    this.#hist.set("jc_append_ack_seconds", new Histogram(LATENCY_BUCKETS));
    this.#describe(
      "jc_sequencer_batch_size",
      "histogram",
      "New entries this service acknowledged per new signed tree head.",
    );
    this.#hist.set("jc_sequencer_batch_size", new Histogram(BATCH_BUCKETS));
    this.#describe("jc_tree_size", "gauge", "Size of the latest signed tree head.");
  }

  #describe(name: string, type: string, help: string) {
    this.#help.set(name, [type, help]);
  }

  /**
   * Adds `by` to counter `name` with `labels`. A labels object passed again is keyed once (so it
   * must not be changed after its first use).
   */
  inc(name: string, labels: Labels = NO_LABELS, by = 1) {
    let m = this.#counters.get(name);
    if (!m) this.#counters.set(name, m = new Map());
    let k = this.#keys.get(labels);
    if (k === undefined) this.#keys.set(labels, k = labelKey(labels));
    m.set(k, (m.get(k) ?? 0) + by);
  }

  /** The current value of a counter (0 when never incremented). */
  counter(name: string, labels: Labels = {}): number {
    return this.#counters.get(name)?.get(labelKey(labels)) ?? 0;
  }

  /** Records one verification outcome (`source`: see MetricSource). */
  verification(code: string, source?: MetricSource) {
    const key = source ? `${source}\0${code}` : code;
    let labels = this.#codeLabels.get(key);
    if (!labels) this.#codeLabels.set(key, labels = source ? { code, source } : { code });
    this.inc("jc_verifications_total", labels);
  }

  /**
   * Records one acknowledged append: its result, latency, and which head covered it. Entries
   * answered under the same new head size form one batch.
   */
  append(created: boolean, latencyMs: number, headSize: number, source?: MetricSource) {
    const labels = source ? (created ? READING_CREATED : READING_DUPLICATE) : undefined;
    this.inc("jc_appends_total", labels ?? (created ? CREATED : DUPLICATE));
    this.#hist.get("jc_append_ack_seconds")!.observe(latencyMs / 1000);
    if (!created) return;
    if (headSize !== this.#lastBatchSize) {
      if (this.#lastBatchCount > 0) {
        this.#hist.get("jc_sequencer_batch_size")!.observe(this.#lastBatchCount);
      }
      this.#lastBatchSize = headSize;
      this.#lastBatchCount = 0;
    }
    this.#lastBatchCount++;
  }

  /** Sets a gauge. */
  set(name: string, v: number) {
    this.#gauges.set(name, v);
  }

  /** Sets a gauge with labels (e.g. one per witness), declaring it with `help` on first use. */
  setLabeled(name: string, labels: Labels, v: number, help = name) {
    let m = this.#labeledGauges.get(name);
    if (!m) {
      this.#labeledGauges.set(name, m = new Map());
      if (!this.#help.has(name)) this.#describe(name, "gauge", help);
    }
    m.set(labelKey(labels), v);
  }

  /** Declares a counter's help text (counters are otherwise declared on first use). */
  describeCounter(name: string, help: string) {
    if (!this.#help.has(name)) this.#describe(name, "counter", help);
  }

  /** Declares an unlabeled gauge's help text (`set` alone does not render it). */
  describeGauge(name: string, help: string) {
    if (!this.#help.has(name)) this.#describe(name, "gauge", help);
  }

  /** Renders the exposition text. */
  render(): string {
    const lines: string[] = [];
    const names = new Set([...this.#help.keys(), ...this.#counters.keys()]);
    for (const name of [...names].sort()) {
      const [type, help] = this.#help.get(name) ?? ["counter", name];
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      if (type === "counter") {
        const m = this.#counters.get(name);
        if (!m || m.size === 0) lines.push(`${name} 0`);
        else {
          for (const [k, v] of [...m].sort()) lines.push(`${name}${k ? `{${k}}` : ""} ${fmt(v)}`);
        }
      } else if (type === "gauge" && this.#labeledGauges.has(name)) {
        for (const [k, v] of [...this.#labeledGauges.get(name)!].sort()) {
          lines.push(`${name}{${k}} ${fmt(v)}`);
        }
      } else if (type === "gauge") {
        lines.push(`${name} ${fmt(this.#gauges.get(name) ?? 0)}`);
      } else {
        const h = this.#hist.get(name)!;
        h.buckets.forEach((b, i) => lines.push(`${name}_bucket{le="${fmt(b)}"} ${h.counts[i]}`));
        lines.push(`${name}_bucket{le="+Inf"} ${h.count}`);
        lines.push(`${name}_sum ${fmt(h.sum)}`, `${name}_count ${h.count}`);
      }
    }
    return lines.join("\n") + "\n";
  }
}
