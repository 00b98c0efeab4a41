// Durable spool: every signed reading is on disk (written, fsynced, renamed into place, directory
// fsynced) before it is sent, and it stays there until the service has acknowledged it. The chain
// head (next seq and prev) is derived from what is on disk, so after a restart the agent neither
// re-signs a spooled reading nor reuses its seq: across restarts and outages no reading is lost,
// duplicated, or signed twice with different bytes.

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
import { type ChainHead, envelopeHash, GENESIS } from "./reading.ts";

const NAME = /^(\d{16})\.cose$/;

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

/** The on-disk spool of one agent identity. */
export class Spool {
  readonly dir: string;
  readonly #pending: string;
  readonly #parked: string;
  constructor(dir: string) {
    this.dir = dir;
    this.#pending = join(dir, "pending");
    this.#parked = join(dir, "parked");
    mkdirSync(this.#pending, { recursive: true });
  }

  /**
   * Whether this spool remembers no chain (lost, or never used): no chain.json and nothing
   * pending. The agent then resumes from the service's head (GET /v1/agents/{did}) instead of
   * starting again at seq 0, which the service would refuse as a replay.
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
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
    }
    const last = this.#seqs().at(-1);
    if (last !== undefined && last + 1 > head.seq) {
      head = { seq: last + 1, prev: envelopeHash(this.#read(last)) };
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

  /** Spools a signed reading durably, then records the new chain head. */
  append(did: string, seq: number, envelope: Uint8Array): ChainHead {
    writeDurable(this.#path(seq), envelope);
    const head = { seq: seq + 1, prev: envelopeHash(envelope) };
    writeDurable(join(this.dir, "chain.json"), JSON.stringify({ did, ...head }));
    return head;
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
