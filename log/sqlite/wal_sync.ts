// Durability off the event loop (issue 16; docs/STORAGE.md "Durability off the event loop"):
// COMMIT (synchronous=NORMAL) has written the batch's WAL frames; an fdatasync of the WAL file on
// Deno's blocking pool makes them durable while the event loop goes on (the sequencer meanwhile
// sequences the next batch). Syncs never overlap: a commit made while one runs waits for the
// next, which covers every commit before it. A failed sync poisons the store (after a failed
// fsync the kernel may drop the dirty pages and a later fsync succeed regardless): every later
// commit fails until the store is reopened.
import { dirname } from "node:path";
import { LogStorageError } from "../errors.ts";
import type { StoreSync } from "../sql/store.ts";

/** fdatasync of `<path>-wal` after commits (the SQL store's `sync`). */
export class WalSync implements StoreSync {
  #wal: Deno.FsFile | undefined;
  #failed: Error | undefined;
  #syncing: Promise<void> | undefined;
  #again: Promise<void> | undefined;

  constructor(readonly path: string) {}

  failed(): Error | undefined {
    return this.#failed;
  }

  async #sync(): Promise<void> {
    if (this.#failed) throw this.#failed;
    try {
      if (!this.#wal) {
        this.#wal = await Deno.open(`${this.path}-wal`, { read: true });
        const dir = await Deno.open(dirname(this.path), { read: true });
        try {
          await dir.sync(); // the WAL file's directory entry, once
        } finally {
          dir.close();
        }
      }
      await this.#wal.syncData();
    } catch (err) {
      this.#failed = new LogStorageError(
        "storage-sync",
        `Cannot make the commit durable (fdatasync ${this.path}-wal): ${(err as Error).message}`,
        { cause: err },
      );
      throw this.#failed;
    }
  }

  durable(): Promise<void> {
    if (!this.#syncing) {
      const p = this.#syncing = this.#sync().finally(() => {
        if (this.#syncing === p) this.#syncing = undefined;
      });
      return p;
    }
    // a sync that started before this commit: one more after it, shared by every commit meanwhile
    return this.#again ??= this.#syncing.catch(() => {}).then(() => {
      this.#again = undefined;
      return this.durable();
    });
  }

  close(): void {
    this.#wal?.close();
    this.#wal = undefined;
  }
}
