// node:sqlite's group reader (docs/STORAGE.md "Tile groups"; docs/PERFORMANCE.md): published
// tiles read on a second, read-only connection, many reads per read transaction.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { viewTables } from "../sql/tiles.ts";
import { unrefTimer as unref } from "../../net/mod.ts";

/** Published-tile reads one read transaction serves at most (the snapshot's age, by count). */
export const GROUP_READS_PER_SNAPSHOT = 256;
/** Milliseconds a group-read snapshot is kept at most. */
export const GROUP_SNAPSHOT_MS = 2;

/**
 * Reads tile groups on its own read-only connection, many reads per read transaction: beginning
 * and ending a WAL read transaction costs more than the read (measured 7.3-10.2 µs a read alone,
 * 4.9-5.8 µs inside one). A snapshot is ended after GROUP_READS_PER_SNAPSHOT reads or
 * GROUP_SNAPSHOT_MS, whichever first, so it never holds back a checkpoint for longer. A group is
 * immutable once written, so an old snapshot can only lack a group committed since: the caller
 * then reads the tiles through the store's own connection.
 */
export class GroupReader {
  #db: DatabaseSync | undefined;
  #limit: { ms: number; reads: number };
  #stmts: StatementSync[] = [];
  #reads = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(readonly path: string, limit?: { ms: number; reads: number }) {
    this.#limit = limit ?? { ms: GROUP_SNAPSHOT_MS, reads: GROUP_READS_PER_SNAPSHOT };
  }

  /** The group row (level·2^48 + group) of view 0 (blake3) or 1 (sha256), or undefined. */
  read(view: 0 | 1, id: number): Uint8Array | undefined {
    if (this.#closed) throw new Error("the store is closed");
    if (!this.#db) {
      const db = this.#db = new DatabaseSync(this.path, { readOnly: true });
      db.exec("PRAGMA mmap_size = 1073741824");
      const t = viewTables("");
      this.#stmts = [t.blake3, t.sha256].map((v) => {
        const st = db.prepare(`SELECT hashes FROM ${v.groups} WHERE id = ?`);
        (st as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true); // no row object
        return st;
      });
    }
    if (this.#reads === 0) {
      if (!this.#db.isTransaction) this.#db.exec("BEGIN");
      this.#timer = setTimeout(() => this.#end(), this.#limit.ms);
      unref(this.#timer); // never what keeps a process alive
    }
    try {
      return (this.#stmts[view].get(id) as unknown[] | undefined)?.[0] as Uint8Array | undefined;
    } finally {
      if (++this.#reads >= this.#limit.reads) this.#end();
    }
  }

  #end(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#reads === 0) return;
    this.#reads = 0;
    // Ending a read transaction does not fail in practice; should it, the connection is dropped
    // (the next read opens another) rather than the error reaching the timer that called this.
    try {
      if (this.#db?.isTransaction) this.#db.exec("COMMIT");
    } catch {
      try {
        this.#db?.close();
      } catch { /* already unusable */ }
      this.#db = undefined;
    }
  }

  close(): void {
    this.#end();
    this.#closed = true;
    this.#db?.close();
    this.#db = undefined;
  }
}
