// Delivery of spooled readings to `POST /v1/readings` (docs API.md "Meter readings"): batches in
// seq order, retried with exponential backoff (honouring Retry-After) through outages. A reading
// leaves the spool only when the service answered it with a log index; a resubmission of the same
// bytes is answered with the existing index, so a retry after a lost answer duplicates nothing.

import { request } from "../../net/mod.ts";
import type { Spool } from "./spool.ts";

/** One envelope's answer. */
export type ReadingResult = { seq: number; index: number } | {
  seq: number;
  code: string;
  detail?: string;
};

/** What one acknowledged batch was. */
export interface DeliveredBatch {
  count: number;
  firstSeq: number;
  lastSeq: number;
  firstIndex: number;
  lastIndex: number;
}

/** Delivery options. */
export interface DeliverOptions {
  batchMax?: number;
  /**
   * Refusals after which a reading is parked (moved to <spool>/parked, logged, counted), with
   * every pending reading after it (they chain from it), instead of being retried for ever.
   * Default 10.
   */
  parkAfter?: number;
  /** Told of parked seqs (the agent then resumes its chain from the service's head). */
  onPark?: (seqs: number[]) => void;
  /** Told how many readings an answer acknowledged. */
  onAck?: (n: number) => void;
  baseDelayMs?: number;
  maxDelayMs?: number;
  log?: (msg: string) => void;
  /** Called after each batch the service acknowledged (the agent logs one line per batch). */
  delivered?: (batch: DeliveredBatch) => void;
  fetch?: typeof fetch;
  /** Deadline of one batch, whole request (default 30 s); net/ caps the answer's size too. */
  timeoutMs?: number;
}

/**
 * POSTs one batch as `application/cbor-seq` (RFC 8742: the envelopes one after another, half the
 * bytes of JSON's hex and no hex to decode on the service: issue 29's bulk format) through net/ (a deadline per batch, the answer's
 * size capped while streaming, redirects capped); throws on transport failure (a NetError) or a
 * non-200. Nothing leaves the spool unless this returns.
 */
export async function postReadings(
  server: string,
  envelopes: Uint8Array[],
  opts: DeliverOptions = {},
): Promise<ReadingResult[]> {
  const totalMs = opts.timeoutMs ?? 30_000;
  const url = new URL("/v1/readings", server);
  const res = await request(url, { // a NetError names the URL
    method: "POST",
    headers: { "content-type": "application/cbor-seq" },
    body: cborSeq(envelopes),
    kind: "json",
    totalMs,
    connectMs: Math.min(totalMs, 10_000),
    fetch: opts.fetch,
  });
  if (res.status !== 200) {
    const text = new TextDecoder().decode(res.bytes.subarray(0, 200));
    const err = new Error(`Cannot deliver readings to ${url}: HTTP ${res.status} ${text}`) as
      & Error
      & {
        retryAfterMs?: number;
      };
    const ra = Number(res.headers.get("retry-after"));
    if (Number.isFinite(ra) && ra > 0) err.retryAfterMs = ra * 1000;
    throw err;
  }
  const body = res.json() as { results?: ReadingResult[] } | null;
  if (!body || !Array.isArray(body.results)) {
    throw new Error("Cannot deliver readings: the answer has no results array");
  }
  return body.results;
}

/** The envelopes one after another (RFC 8742 §2: a CBOR sequence is its items' bytes, concatenated). */
function cborSeq(envelopes: Uint8Array[]): Uint8Array<ArrayBuffer> {
  let n = 0;
  for (const e of envelopes) n += e.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const e of envelopes) out.set(e, n), n += e.length;
  return out;
}

/** Drains the spool to the service, forever, until stopped. */
export class Deliverer {
  readonly #spool: Spool;
  readonly #server: string;
  readonly #opts: DeliverOptions;
  #wake?: () => void;
  #stopped = false;
  #delay = 0;
  /** Readings acknowledged so far (this process). */
  acked = 0;
  /** Readings parked so far (this process). */
  parked = 0;
  /** Refusals so far of each pending seq (this process). */
  readonly #refusals = new Map<number, number>();
  constructor(spool: Spool, server: string, opts: DeliverOptions = {}) {
    this.#spool = spool;
    this.#server = server;
    this.#opts = opts;
  }

  /** Something new is spooled: stop waiting (unless backing off). */
  kick(): void {
    if (this.#delay === 0) this.#wake?.();
  }

  stop(): void {
    this.#stopped = true;
    this.#wake?.();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(() => (this.#wake = undefined, r()), ms);
      this.#wake = () => (clearTimeout(t), this.#wake = undefined, r());
    });
  }

  /** Sends what is pending once; true when the spool is empty afterwards. */
  async once(): Promise<boolean> {
    const batch = this.#spool.pending(this.#opts.batchMax ?? 64);
    if (batch.length === 0) return true;
    const results = await postReadings(this.#server, batch.map((b) => b.envelope), this.#opts);
    const sent = new Set(batch.map((b) => b.seq));
    const ok = results.filter((r): r is { seq: number; index: number } =>
      "index" in r && sent.has(r.seq)
    );
    const done = ok.map((r) => r.seq);
    this.#spool.ack(done);
    this.acked += done.length;
    if (ok.length) {
      this.#opts.delivered?.({
        count: ok.length,
        firstSeq: Math.min(...done),
        lastSeq: Math.max(...done),
        firstIndex: Math.min(...ok.map((r) => r.index)),
        lastIndex: Math.max(...ok.map((r) => r.index)),
      });
    }
    if (done.length) this.#opts.onAck?.(done.length);
    if (done.length === 0 && !results.some((r) => "code" in r)) {
      // An answer that acknowledges none of what was sent is no progress: back off, never spin.
      throw new Error(
        `Cannot deliver readings: the answer acknowledged none of seq ${batch[0].seq}..`,
      );
    }
    const refused = results.filter((r) => "code" in r);
    const parkAfter = this.#opts.parkAfter ?? 10;
    for (const r of refused) {
      const n = (this.#refusals.get(r.seq) ?? 0) + 1;
      this.#refusals.set(r.seq, n);
      if (n < parkAfter) continue;
      // Refused parkAfter times: park it and everything pending after it (chained from it).
      const later = this.#spool.pending().map((b) => b.seq).filter((s) => s >= r.seq);
      const moved = this.#spool.park(later);
      for (const s of moved) this.#refusals.delete(s);
      this.parked += moved.length;
      this.#opts.log?.(
        `parked reading seq ${r.seq} after ${n} refusals (${(r as { code: string }).code} ${
          (r as { detail?: string }).detail ?? ""
        }) and ${
          moved.length - 1
        } later reading(s) chained from it; kept in ${this.#spool.dir}/parked`,
      );
      this.#opts.onPark?.(moved);
      return this.#spool.pending(1).length === 0;
    }
    if (refused.length) {
      // Kept in the spool: a refusal is an operator matter (registration, a broken chain), never a drop.
      throw new Error(
        `Cannot deliver reading seq ${refused[0].seq}: ${(refused[0] as { code: string }).code} ${
          (refused[0] as { detail?: string }).detail ?? ""
        }`,
      );
    }
    return this.#spool.pending(1).length === 0;
  }

  /** The loop: send, back off exponentially on failure (base 250 ms, cap 30 s, with jitter). */
  async run(): Promise<void> {
    const base = this.#opts.baseDelayMs ?? 250;
    const max = this.#opts.maxDelayMs ?? 30_000;
    while (!this.#stopped) {
      try {
        const empty = await this.once();
        this.#delay = 0;
        if (empty) await this.#sleep(60_000);
      } catch (e) {
        const ra = (e as { retryAfterMs?: number }).retryAfterMs;
        this.#delay = Math.min(max, this.#delay ? this.#delay * 2 : base);
        const wait = Math.max(ra ?? 0, this.#delay * (0.5 + Math.random() / 2));
        this.#opts.log?.(`${(e as Error).message}; retrying in ${Math.round(wait)} ms`);
        await this.#sleep(wait);
      }
    }
  }
}
