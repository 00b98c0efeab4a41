// Durable spool: every signed reading is on disk (written, fsynced, renamed into place, directory
// fsynced) before it is sent, and it stays there until the service has acknowledged it. The chain
// head (next seq and prev) is derived from what is on disk, so after a restart the agent neither
// re-signs a spooled reading nor reuses its seq: across restarts and outages no reading is lost,
// duplicated, or signed twice with different bytes. A span measured while the chain head is not
// known yet (a new or lost spool, the service not answering GET /v1/agents/{did}) is stashed
// unsigned in unsigned/ (just as durably) and signed, in order, once the head is known.

import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { decodeCbor, parseCoseSign1 } from "../../verify/mod.ts";
import type { GradedSpan } from "./meter.ts";
import { type ChainHead, GENESIS, headAfter } from "./reading.ts";

const NAME = /^(\d{16})\.cose$/;
const STASHED = /^(\d{16})\.json$/;

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch { /* some platforms cannot fsync a directory; the rename is still atomic */ }
}

/** Writes `data` to `path` atomically and durably (tmp, fsync, rename, fsync dir). */
export function writeDurable(path: string, data: Uint8Array | string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(join(path, ".."));
}

/** A spooled reading awaiting acknowledgement. */
export interface Spooled {
  seq: number;
  envelope: Uint8Array;
}

/** A span stashed unsigned while the chain head was unknown. */
export interface Stashed {
  n: number;
  span: GradedSpan;
}

/** The on-disk spool of one agent identity. */
export class Spool {
  readonly dir: string;
  readonly #pending: string;
  readonly #parked: string;
  readonly #unsigned: string;
  constructor(dir: string) {
    this.dir = dir;
    this.#pending = join(dir, "pending");
    this.#parked = join(dir, "parked");
    this.#unsigned = join(dir, "unsigned");
    mkdirSync(this.#pending, { recursive: true });
  }

  /**
   * Whether this spool remembers no chain (lost, or never used): no chain.json and nothing
   * pending (spans stashed unsigned do not count: they are not in a chain yet). The agent then
   * resumes from the service's head (GET /v1/agents/{did}) instead of starting again at seq 0,
   * which the service would refuse as a replay.
   */
  isFresh(): boolean {
    try {
      readFileSync(join(this.dir, "chain.json"));
      return false;
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
    }
    return this.#seqs().length === 0;
  }

  /** Records `head` (from the service) as where the chain continues. */
  resume(did: string, head: ChainHead): void {
    writeDurable(join(this.dir, "chain.json"), JSON.stringify({ did, ...head }));
  }

  /**
   * Parks readings: moves them from pending/ to parked/ (kept on disk for the operator, never
   * sent again). Answers the seqs moved.
   */
  park(seqs: number[]): number[] {
    mkdirSync(this.#parked, { recursive: true });
    const moved: number[] = [];
    for (const s of seqs) {
      // seq and time: a seq parked again after a chain resumed never overwrites the first
      const name = `${String(s).padStart(16, "0")}.${Date.now()}.cose`;
      try {
        renameSync(this.#path(s), join(this.#parked, name));
        moved.push(s);
      } catch (e) {
        if ((e as { code?: string }).code !== "ENOENT") throw e;
      }
    }
    fsyncDir(this.#parked);
    fsyncDir(this.#pending);
    return moved;
  }

  /** The chain head after everything ever signed here, for identity `did` (refuses another's spool). */
  open(did: string): ChainHead {
    let head = GENESIS;
    try {
      const c = JSON.parse(readFileSync(join(this.dir, "chain.json"), "utf8"));
      if (c.did !== did) {
        throw new Error(`Cannot open spool ${this.dir}: it belongs to ${c.did}, not ${did}`);
      }
      head = { seq: c.seq, prev: c.prev };
      if (typeof c.end === "number") head.end = c.end;
      if (c.calibrations && typeof c.calibrations === "object") head.calibrations = c.calibrations;
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
    }
    const last = this.#seqs().at(-1);
    if (last !== undefined && last + 1 > head.seq) {
      // spooled, then a crash before chain.json: the head after that reading
      head = headAfter({ ...head, seq: last }, this.#read(last));
    }
    return head;
  }

  #seqs(): number[] {
    const out: number[] = [];
    for (const f of readdirSync(this.#pending)) {
      const m = NAME.exec(f);
      if (m) out.push(Number(m[1]));
      else if (f.endsWith(".tmp")) unlinkSync(join(this.#pending, f)); // never renamed: never signed-and-kept
    }
    return out.sort((a, b) => a - b);
  }

  #path(seq: number): string {
    return join(this.#pending, `${String(seq).padStart(16, "0")}.cose`);
  }

  #read(seq: number): Uint8Array {
    return new Uint8Array(readFileSync(this.#path(seq)));
  }

  /**
   * Spools a signed reading durably, then records the new chain head (with the reading's span end,
   * which tells a stashed span already signed from one that is not: {@link signedEnd}).
   */
  append(did: string, head: ChainHead, envelope: Uint8Array): ChainHead {
    writeDurable(this.#path(head.seq), envelope);
    const next = headAfter(head, envelope);
    writeDurable(join(this.dir, "chain.json"), JSON.stringify({ did, ...next }));
    return next;
  }

  /** Stashes a span measured while the chain head is unknown, durably, after the others. */
  stash(span: GradedSpan): void {
    mkdirSync(this.#unsigned, { recursive: true });
    const n = (this.#stashedNumbers().at(-1) ?? -1) + 1;
    writeDurable(join(this.#unsigned, `${String(n).padStart(16, "0")}.json`), JSON.stringify(span));
  }

  /** The stashed spans, oldest first. */
  stashed(): Stashed[] {
    return this.#stashedNumbers().map((n) => ({
      n,
      span: JSON.parse(readFileSync(this.#stashPath(n), "utf8")) as GradedSpan,
    }));
  }

  /** Drops a stashed span once it is signed and spooled (or was already). */
  unstash(n: number): void {
    try {
      unlinkSync(this.#stashPath(n));
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
    }
    fsyncDir(this.#unsigned);
  }

  /**
   * The span end of the last reading signed here: chain.json's, or the last pending reading's when
   * that is later (a crash between spooling a reading and recording the head). A stashed span
   * ending no later was signed before a crash and is not signed again.
   */
  signedEnd(): number {
    let end = -Infinity;
    const c = this.readJson("chain.json") as { end?: unknown } | undefined;
    if (typeof c?.end === "number") end = c.end;
    const last = this.#seqs().at(-1);
    if (last !== undefined) {
      const core = decodeCbor(parseCoseSign1(this.#read(last)).payload) as Map<string, unknown>;
      const e = core.get("end");
      if (typeof e === "number" && e > end) end = e;
    }
    return end;
  }

  #stashedNumbers(): number[] {
    let names: string[];
    try {
      names = readdirSync(this.#unsigned);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    const out: number[] = [];
    for (const f of names) {
      const m = STASHED.exec(f);
      if (m) out.push(Number(m[1]));
      else if (f.endsWith(".tmp")) unlinkSync(join(this.#unsigned, f)); // never renamed: never kept
    }
    return out.sort((a, b) => a - b);
  }

  #stashPath(n: number): string {
    return join(this.#unsigned, `${String(n).padStart(16, "0")}.json`);
  }

  /** The oldest unacknowledged readings, in seq order. */
  pending(limit = Infinity): Spooled[] {
    return this.#seqs().slice(0, limit).map((seq) => ({ seq, envelope: this.#read(seq) }));
  }

  /** Drops acknowledged readings (chain.json keeps the head). */
  ack(seqs: number[]): void {
    for (const s of seqs) {
      try {
        unlinkSync(this.#path(s));
      } catch (e) {
        if ((e as { code?: string }).code !== "ENOENT") throw e;
      }
    }
    fsyncDir(this.#pending);
  }

  /** Reads a JSON side file (e.g. calibration.json), or undefined. */
  readJson(name: string): unknown {
    try {
      return JSON.parse(readFileSync(join(this.dir, name), "utf8"));
    } catch {
      return undefined;
    }
  }

  /** Writes a text side file durably (e.g. meter-agent.prom). */
  writeText(name: string, text: string): void {
    writeDurable(join(this.dir, name), text);
  }

  /** Writes a JSON side file durably. */
  writeJson(name: string, v: unknown): void {
    writeDurable(join(this.dir, name), JSON.stringify(v));
  }
}
