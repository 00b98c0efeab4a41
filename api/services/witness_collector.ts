// The cosignature collector (PUBLICATION.md Decision P3, docs/WITNESS.md): the service asks each
// configured witness to cosign its own SHA-256 checkpoints with C2SP tlog-witness add-checkpoint.
// Off the append path: a timer looks at the latest checkpoint at most about once a second and runs
// one round when it changed (or a witness is behind and out of its backoff); rounds never overlap,
// and the witnesses of a round are asked in parallel. Each witness gets a consistency proof from
// the size it last cosigned (learned from its 409 `text/x.tlog.size` answers and kept in the
// witness state). A 422 is an alarm: the witness holds a history of this log that this log does
// not have. Platform-neutral: the clock, the checkpoint source and the HTTP call are injected.
import { parseCheckpoint } from "../../log/c2sp/mod.ts";
import {
  formatSignatureLine,
  type NoteVerifier,
  openNote,
  parseNote,
  parseSignatureLine,
  parseVkey,
  SIG_COSIGNATURE_V1,
  verifierFromVkey,
} from "../../log/c2sp/mod.ts";
import { formatAddCheckpoint } from "../../log/c2sp/mod.ts";
import type { WitnessStateStore } from "../../log/c2sp/mod.ts";
import { request } from "../../net/mod.ts";
import { toHex } from "../../verify/mod.ts";
import type { CollectorWitnessSetting } from "./witness_config.ts";
import type { Metrics } from "../http/metrics.ts";

/** Where the collector reads our own checkpoints and proofs. */
export interface CheckpointSource {
  /** The latest SHA-256 checkpoint (a signed note by the log key). */
  latest(): Promise<string>;
  /** RFC 6962 consistency proof in the same view from `first` (> 0) to the tree `tree`. */
  consistency(first: number, tree: { size: number; root: Uint8Array }): Promise<Uint8Array[]>;
}

/** One HTTP exchange with a witness. */
export type WitnessPost = (
  url: string,
  body: Uint8Array,
) => Promise<{ status: number; contentType: string; text: string }>;

/** The default WitnessPost: net/'s bounded request (5 s to headers, 10 s in all, 16 KiB answer). */
export const postWithNet: WitnessPost = async (url, body) => {
  const res = await request(url, {
    method: "POST",
    body,
    headers: { "content-type": "text/plain; charset=utf-8" },
    kind: "checkpoint",
    connectMs: 5_000,
    totalMs: 10_000,
  });
  return {
    status: res.status,
    contentType: res.headers.get("content-type") ?? "",
    text: new TextDecoder().decode(res.bytes),
  };
};

/** What the collector reports per witness (metrics, /healthz). */
export interface WitnessStatus {
  name: string;
  url: string;
  /** The size this witness last cosigned (or told us it holds). */
  cosignedSize: number;
  /** Our checkpoint size minus `cosignedSize`. */
  lag: number;
  failures: number;
  /** The last 422 (or a witness ahead of us), if any: the alarm. */
  alarm?: string;
  lastError?: string;
}

/** Options of `WitnessCollector`. */
export interface CollectorOptions {
  witnesses: CollectorWitnessSetting[];
  source: CheckpointSource;
  state: WitnessStateStore;
  post?: WitnessPost;
  metrics?: Metrics;
  /** ms clock (backoff). */
  now?: () => number;
  /** Least time between rounds, ms (default 1000). */
  intervalMs?: number;
  /** Longest backoff after failures, ms (default 60 s). */
  maxBackoffMs?: number;
  log?: (line: string) => void;
}

interface Peer {
  setting: CollectorWitnessSetting;
  name: string;
  verifier: NoteVerifier;
  failures: number;
  retryAt: number;
  alarm?: string;
  lastError?: string;
}

/** The round's checkpoint and the cosignature lines collected for it, by witness. */
interface Round {
  note: string;
  text: string;
  size: number;
  root: Uint8Array;
  lines: Map<string, string>;
}

/**
 * Collects cosignatures of our SHA-256 checkpoints from the configured witnesses.
 *
 * @example
 * ```ts
 * const c = new WitnessCollector({ witnesses, source, state });
 * c.start();
 * c.served(await source.latest()); // the checkpoint to serve, with the cosignatures it has
 * ```
 */
export class WitnessCollector {
  readonly #o: CollectorOptions;
  readonly #peers: Peer[];
  readonly #post: WitnessPost;
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #latestSize = 0;
  /** The newest round in which at least one witness cosigned. */
  #cosigned: Round | undefined;

  constructor(o: CollectorOptions) {
    this.#o = o;
    this.#post = o.post ?? postWithNet;
    this.#now = o.now ?? Date.now;
    this.#peers = o.witnesses.map((w) => {
      const k = parseVkey(w.vkey);
      if (k.type !== SIG_COSIGNATURE_V1) {
        throw new Error(`Cannot load config: witnesses: ${w.vkey} is not a cosignature/v1 vkey`);
      }
      return { setting: w, name: k.name, verifier: verifierFromVkey(k), failures: 0, retryAt: 0 };
    });
    o.metrics?.describeCounter(
      "jc_witness_failures_total",
      "add-checkpoint requests to a witness that failed (network, 5xx, bad answer), by witness.",
    );
    o.metrics?.describeCounter(
      "jc_witness_alarms_total",
      "422 answers (or a witness ahead of this log): the witness holds another history, by witness.",
    );
  }

  /** Starts the timer: a round at most every `intervalMs`. */
  start(): void {
    const every = this.#o.intervalMs ?? 1000;
    const loop = () => {
      if (this.#stopped) return;
      this.#running = this.round().catch((e) => this.#log(`round failed: ${e?.message ?? e}`))
        .finally(() => {
          this.#running = undefined;
          if (!this.#stopped) this.#timer = setTimeout(loop, every);
        });
    };
    this.#timer = setTimeout(loop, 0);
  }

  /** Stops the timer and waits for a round in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #log(line: string) {
    (this.#o.log ?? console.error)(`witness collector: ${line}`);
  }

  /**
   * One round: reads the latest checkpoint; when it is new, or a witness is behind it and out of
   * backoff, sends add-checkpoint to each such witness. Resolves when every answer is handled.
   */
  async round(): Promise<void> {
    if (this.#peers.length === 0) return;
    const note = await this.#o.source.latest();
    const text = parseNote(note).text;
    const cp = parseCheckpoint(text);
    this.#latestSize = cp.size;
    const round: Round = { note, text, size: cp.size, root: cp.root, lines: new Map() };
    const now = this.#now();
    await Promise.all(this.#peers.map(async (p) => {
      const rec = await this.#o.state.getCollector(p.setting.vkey);
      if (rec?.cosignature && rec.size === cp.size && rec.root === toHex(cp.root)) {
        round.lines.set(p.name, rec.cosignature); // already cosigned this very tree
        return;
      }
      if (now < p.retryAt) return; // backing off after failures
      const line = await this.#ask(p, round, rec?.size ?? 0);
      if (line) round.lines.set(p.name, line);
    }));
    this.#report(cp.size);
    if (round.lines.size > 0) this.#cosigned = round;
  }

  // Sends add-checkpoint (once more after a 409 that teaches a usable size); the cosignature
  // line on success.
  async #ask(p: Peer, r: Round, known: number): Promise<string | undefined> {
    let old = known;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (old > r.size) {
        this.#alarm(p, `it cosigned size ${old}, beyond our checkpoint of ${r.size}`);
        return undefined;
      }
      let res;
      try {
        const proof = old === 0 || old === r.size
          ? []
          : await this.#o.source.consistency(old, { size: r.size, root: r.root });
        const body = formatAddCheckpoint(old, proof, new TextEncoder().encode(r.note));
        res = await this.#post(`${p.setting.url}/add-checkpoint`, body);
      } catch (e) {
        this.#fail(p, (e as Error)?.message ?? String(e));
        return undefined;
      }
      if (res.status === 200) {
        try {
          // tlog-witness: "the client MAY concatenate it to the checkpoint, and use a note
          // verification function configured with the witness keys it trusts".
          await openNote(r.text + "\n" + res.text, [p.verifier]);
          const line = res.text.split("\n").filter((l) => l !== "").map(parseSignatureLine)
            .find((s) => s.name === p.name && s.keyId === p.verifier.keyId);
          if (!line) throw new Error("no cosignature by its key");
          await this.#o.state.putCollector(p.setting.vkey, {
            size: r.size,
            root: toHex(r.root),
            cosignature: formatSignatureLine(line),
          });
          p.failures = 0;
          p.retryAt = 0;
          p.lastError = undefined;
          return formatSignatureLine(line);
        } catch (e) {
          this.#fail(p, `its answer does not verify: ${(e as Error).message}`);
          return undefined;
        }
      }
      if (res.status === 409 && /^text\/x\.tlog\.size\b/.test(res.contentType)) {
        const m = /^(0|[1-9][0-9]{0,15})\n?$/.exec(res.text);
        if (!m) {
          this.#fail(p, "a 409 without a size");
          return undefined;
        }
        old = Number(m[1]);
        await this.#o.state.putCollector(p.setting.vkey, { size: old });
        continue;
      }
      if (res.status === 422) {
        this.#alarm(p, `422: ${res.text.slice(0, 200)}`);
        return undefined;
      }
      this.#fail(p, `HTTP ${res.status}: ${res.text.slice(0, 200)}`);
      return undefined;
    }
    this.#fail(p, "409 twice in a row");
    return undefined;
  }

  #fail(p: Peer, why: string) {
    p.failures++;
    p.lastError = why;
    const max = this.#o.maxBackoffMs ?? 60_000;
    p.retryAt = this.#now() + Math.min(max, 1000 * 2 ** Math.min(p.failures - 1, 16));
    this.#o.metrics?.inc("jc_witness_failures_total", { witness: p.name });
    this.#log(`${p.name} (${p.setting.url}) failed ${p.failures}x: ${why}`);
  }

  #alarm(p: Peer, why: string) {
    p.alarm = why;
    this.#o.metrics?.inc("jc_witness_alarms_total", { witness: p.name });
    this.#log(`ALARM ${p.name} (${p.setting.url}): ${why}`);
    this.#fail(p, why);
  }

  #report(size: number) {
    const m = this.#o.metrics;
    if (!m) return;
    void Promise.all(this.#peers.map(async (p) => {
      const rec = await this.#o.state.getCollector(p.setting.vkey);
      const cosigned = rec?.size ?? 0;
      m.setLabeled(
        "jc_witness_cosigned_size",
        { witness: p.name },
        cosigned,
        "Size of our checkpoint each witness last cosigned.",
      );
      m.setLabeled(
        "jc_witness_lag",
        { witness: p.name },
        Math.max(0, size - cosigned),
        "Entries between our latest checkpoint and the one each witness last cosigned.",
      );
    })).catch(() => {});
  }

  /**
   * The checkpoint to serve: the newest one at least one witness cosigned, with every cosignature
   * collected for it; `latest` (uncosigned) until there is one.
   */
  served(latest: string): string {
    const r = this.#cosigned;
    if (!r) return latest;
    return r.note + [...r.lines.values()].join("");
  }

  /** Per-witness status (metrics, /healthz). */
  async status(): Promise<WitnessStatus[]> {
    // The lag is against our latest checkpoint now, not the one of the last round.
    try {
      const n = parseCheckpoint(parseNote(await this.#o.source.latest()).text).size;
      this.#latestSize = Math.max(this.#latestSize, n);
    } catch { /* the last round's size */ }
    return await Promise.all(this.#peers.map(async (p) => {
      const rec = await this.#o.state.getCollector(p.setting.vkey);
      const s: WitnessStatus = {
        name: p.name,
        url: p.setting.url,
        cosignedSize: rec?.size ?? 0,
        lag: Math.max(0, this.#latestSize - (rec?.size ?? 0)),
        failures: p.failures,
      };
      if (p.alarm) s.alarm = p.alarm;
      if (p.lastError) s.lastError = p.lastError;
      return s;
    }));
  }
}

/** What the routes need of a collector (the Worker's lives in its Durable Object, over RPC). */
export interface CosignedCheckpoints {
  /** The checkpoint to serve given the latest (see `WitnessCollector.served`). */
  served(latest: string): string | Promise<string>;
  status(): Promise<WitnessStatus[]>;
}

/**
 * The checkpoint note a `/log/{view}/checkpoint` route serves: for the SHA-256 view with witnesses
 * configured, the newest cosigned one with its cosignatures (`WitnessCollector.served`); otherwise
 * the latest as it is.
 */
export async function checkpointToServe(
  services: { collector?: CosignedCheckpoints } | undefined,
  view: string,
  latest: string,
): Promise<string> {
  const collector = services?.collector;
  return view === "sha256" && collector ? await collector.served(latest) : latest;
}
