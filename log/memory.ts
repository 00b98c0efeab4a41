// Memory backend of the storage contract (log/storage.ts), with fault injection after sunlight's
// testlog_test.go: a commit can be made to fail and persist (the write lands, the caller sees an
// error, as when an acknowledgement is lost) or fail and not persist. Either way no half-written
// batch is ever visible.
import {
  type AgentHead,
  type AgentHeads,
  type Batch,
  checkBatchExtends,
  type ContentIndex,
  type LogStorage,
  StorageConflictError,
  type StoredHead,
  type TreeView,
  type ViewBackfill,
  type ViewMigration,
  type WriteProbe,
} from "./storage.ts";
import { LogStorageError } from "./errors.ts";
import { toHex } from "./crypto.ts";

/** What the next commits do: succeed, fail and persist, or fail and not persist. */
export type CommitFault = "fail-and-persist" | "fail-and-not-persist";

/**
 * The memory store's contents (kept when a log over it is closed, to reopen it), with the
 * extensions it offers (its `capabilities()` lists them).
 */
export interface MemoryStore
  extends LogStorage, ContentIndex, AgentHeads, ViewMigration, WriteProbe {
  /** Makes the next commit fail as `fault` (one-shot). */
  injectFault(fault: CommitFault): void;
  /** A function deciding each commit's fate (for random fault tests); undefined = succeed. */
  faultPlan?: (commitNumber: number) => CommitFault | undefined;
  /** Commits attempted so far. */
  readonly commits: number;
  /**
   * A full disk: while true every commit and write probe fails (nothing persisted) with
   * `storage-full`; reads are served (the disk-full tests where no tmpfs can be mounted).
   */
  full: boolean;
}

/** Creates an empty memory store. */
export function createMemoryStore(): MemoryStore {
  const entries: Uint8Array[] = [];
  const heads = new Map<number, StoredHead>();
  const tiles = new Map<string, Uint8Array>();
  const leaves = new Map<string, number>();
  const contentIds = new Map<string, number>(); // content identity → index
  let latest: StoredHead | undefined;
  const agents = new Map<string, AgentHead>();
  const putAgents = (hs: AgentHead[] | undefined) => {
    for (const a of hs ?? []) {
      const old = agents.get(a.did);
      if (!old || a.index > old.index) agents.set(a.did, { ...a, prev: a.prev.slice() });
    }
  };
  let name: string | undefined;
  let nextFault: CommitFault | undefined;
  let commits = 0;
  const copyHead = (h: StoredHead): StoredHead => ({
    ...h,
    root: h.root.slice(),
    signature: h.signature.slice(),
    sha256Root: h.sha256Root?.slice(),
  });
  const tileKey = (view: TreeView | undefined, level: number, index: number) =>
    `${view ?? "blake3"}/${level}/${index}`;
  const store: MemoryStore = {
    get commits() {
      return commits;
    },
    injectFault(fault) {
      nextFault = fault;
    },
    full: false,
    probeWrite: () =>
      store.full
        ? Promise.reject(new LogStorageError("storage-full", "Cannot write: the disk is full"))
        : Promise.resolve(),
    latestHead: () => Promise.resolve(latest && copyHead(latest)),
    head: (size) => {
      const h = heads.get(size);
      return Promise.resolve(h && copyHead(h));
    },
    heads: (fromSize, limit) => {
      const out = [...heads.values()].filter((h) => h.size >= fromSize)
        .sort((a, b) => a.size - b.size).slice(0, limit);
      return Promise.resolve(out.map(copyHead));
    },
    entry: (index) => Promise.resolve(entries[index]?.slice()),
    entries: (start, limit) =>
      Promise.resolve(entries.slice(start, start + limit).map((e) => e.slice())),
    tile: (level, index, view) => Promise.resolve(tiles.get(tileKey(view, level, index))?.slice()),
    leafCandidates: (leafHash) => {
      const i = leaves.get(toHex(leafHash));
      return Promise.resolve(i === undefined ? [] : [i]);
    },
    tileRange: (level, start, count, view) =>
      Promise.resolve(
        Array.from(
          { length: count },
          (_, k) => tiles.get(tileKey(view, level, start + k))?.slice(),
        ),
      ),
    contentIndex: (ids) => Promise.resolve(ids.map((id) => contentIds.get(toHex(id)))),
    contentIndexReach: () => Promise.resolve("all"), // created with the index
    backfillContentIndex: (rows) => {
      for (const r of rows) {
        const k = toHex(r.contentId);
        if (!contentIds.has(k)) contentIds.set(k, r.index); // the first index wins
      }
      return Promise.resolve();
    },
    commitBatch(batch: Batch) {
      commits++;
      if (store.full) {
        return Promise.reject(
          new LogStorageError("storage-full", "Cannot commit batch: the disk is full"),
        );
      }
      const fault = nextFault ?? store.faultPlan?.(commits);
      nextFault = undefined;
      if (fault === "fail-and-not-persist") {
        return Promise.reject(
          new LogStorageError(
            "storage-fault",
            "Cannot commit batch: injected fault (not persisted)",
          ),
        );
      }
      try {
        checkBatchExtends(batch, latest?.size);
      } catch (e) {
        return Promise.reject(e);
      }
      // The leaf index is unique (docs/STORAGE.md): a leaf hash already stored refuses the batch.
      const seen = new Set<string>();
      for (const e of batch.entries) {
        const k = toHex(e.leafHash);
        if (leaves.has(k) || seen.has(k)) {
          return Promise.reject(
            new StorageConflictError(`Cannot commit batch: leaf hash ${k} is already stored`),
          );
        }
        seen.add(k);
        if (e.contentId) {
          const c = "c" + toHex(e.contentId);
          if (contentIds.has(c.slice(1)) || seen.has(c)) {
            return Promise.reject(
              new StorageConflictError(`Cannot commit batch: content ${c} is already stored`),
            );
          }
          seen.add(c);
        }
      }
      // Applied as one step: nothing in between can observe a part of it.
      for (const e of batch.entries) {
        entries[e.index] = e.bytes.slice();
        leaves.set(toHex(e.leafHash), e.index);
        if (e.contentId) contentIds.set(toHex(e.contentId), e.index);
      }
      for (const t of batch.tiles) tiles.set(tileKey("blake3", t.level, t.index), t.hashes.slice());
      for (const t of batch.sha256Tiles) {
        tiles.set(tileKey("sha256", t.level, t.index), t.hashes.slice());
      }
      latest = copyHead(batch.head);
      heads.set(latest.size, latest);
      putAgents(batch.agents);
      if (fault === "fail-and-persist") {
        return Promise.reject(
          new LogStorageError("storage-fault", "Cannot commit batch: injected fault (persisted)"),
        );
      }
      return Promise.resolve();
    },
    agentHead: (did) => {
      const a = agents.get(did);
      return Promise.resolve(a && { ...a, prev: a.prev.slice() });
    },
    agentHeadsComplete: () => Promise.resolve(true), // created with them
    putAgentHeads: (hs) => {
      if (store.full) {
        return Promise.reject(
          new LogStorageError("storage-full", "Cannot write: the disk is full"),
        );
      }
      putAgents(hs);
      return Promise.resolve();
    },
    commitViewBackfill(b: ViewBackfill) {
      for (const r of b.roots) {
        const h = heads.get(r.size);
        if (h) h.sha256Root = r.sha256Root.slice();
      }
      for (const t of b.sha256Tiles) {
        tiles.set(tileKey("sha256", t.level, t.index), t.hashes.slice());
      }
      return Promise.resolve();
    },
    logName: () => Promise.resolve(name),
    setLogName(n: string) {
      if (name !== undefined && name !== n) {
        return Promise.reject(
          new StorageConflictError(`Cannot name the log ${n}: it is named ${name}`),
        );
      }
      name = n;
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
    // the store itself, so a copy that overrides a method (`{ ...store, ... }`) keeps these
    capabilities: () => ({
      contentIndex: store,
      agentHeads: store,
      viewMigration: store,
      writeProbe: store,
    }),
  };
  return store;
}
