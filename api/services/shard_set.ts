// The shards of one service (docs/SHARDS.md): opens every shard the directory state lists, serves
// the signed directory (re-signed at most once a second), rotates the active shard by age, size
// or command in the order of docs/SHARDS.md "Lifecycle", and gives the service-level routes that
// append (`/v1/readings`) a log that is always the active shard's, with agents' chain heads
// carried across rotations; at a rotation the frozen shard's key state is carried into the new
// shard's store (docs/SHARDS.md "Carried state"). Platform-neutral besides the injected ShardFiles.
import type { AppendResult, Log } from "../../log/mod.ts";
import { c2sp } from "../../log/mod.ts";
import {
  type Directory,
  type ShardEntry,
  shardId,
  shardLogName,
  shardPrefix,
  signDirectory,
} from "../../log/shards/mod.ts";
import { operatorVkey } from "../../log/shards/mod.ts";
import { ed25519PublicKey, toHex } from "../../verify/mod.ts";
import { type ActiveRef, ShardGate } from "./shard_gate.ts";
import { ActiveShardLog } from "./shard_active.ts";
import { type ShardFiles, type ShardRecord, ShardStateError } from "../deno/shard_files.ts";
import type { ListedShard } from "./shard_logs.ts";

export type { ShardRecord } from "../deno/shard_files.ts";

/** What the routes use (api/http/routes/shards.ts): the directory and the rotation command. */
export interface ShardService {
  operatorVkey(): string;
  /** The signed directory and its content (cached: re-signed at most once a second). */
  directory(): Promise<{ note: string; directory: Directory }>;
  /** Rotates now; resolves with the directory that names the new active shard. */
  rotate(reason: string): Promise<Directory>;
  /** Optional: every open shard's log (health and metrics cover each one's store). */
  logs?(): Log[];
}

/** One open shard. */
export interface ShardHandle {
  n: number;
  id: string;
  prefix: string;
  gate: ShardGate;
  rec: ShardRecord;
  /** Memoized time of the first entry (RFC 3339), once the shard has one. */
  firstTime?: string;
}

/** Options of `ShardSet.open`. */
export interface ShardSetOptions {
  files: ShardFiles;
  /**
   * The operator key's secret (the directory's signer). `create`: whether a missing key may be
   * generated (no directory state and no shard bound to an operator key yet: a new service).
   */
  operatorKey(create: boolean): Uint8Array;
  /** The configured log name of s0 (undefined: the bound one or the default). */
  logName?: string;
  maxSize?: number;
  maxAgeMs?: number;
  now?: () => number;
  /** Called for every shard once open (at start and at each rotation), before it is listed. */
  onShard?: (h: ShardHandle) => Promise<void> | void;
  /** Called when a shard closes (at shutdown). */
  onShardClose?: (h: ShardHandle) => Promise<void> | void;
  report?: (line: string) => void;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** Keys of a shard's own state in its store (ShardMeta). */
export const FROZEN_MARK = "shard_frozen";
const OPERATOR_MARK = "operator_key";
/** The key state carried into a shard at its creation (log/sql/keys.ts `KEYS_CARRIED`). */
const KEYS_CARRIED_MARK = "keys_carried";

/** A shard's own record of being frozen (FROZEN_MARK's value) per its directory record. */
export function frozenMark(rec: ShardRecord): string | undefined {
  return rec.state === "frozen" ? JSON.stringify({ size: rec.size, root: rec.root }) : undefined;
}

const b64Root = (note: string) =>
  c2sp.toBase64(c2sp.parseCheckpoint(c2sp.parseNote(note).text).root);

/** The open shards of a service and their lifecycle. */
export class ShardSet implements ShardService {
  readonly shards: ShardHandle[] = [];
  /** The log of the routes that append to the active shard (`/v1/readings`, agents' heads). */
  readonly activeLog: Log;
  readonly #o: ShardSetOptions;
  readonly #now: () => number;
  #operatorSecret: Uint8Array = new Uint8Array(0);
  #vkey = "";
  #base = "";
  #rotation: Promise<Directory> | undefined;
  #cache: { at: number; p: Promise<{ note: string; directory: Directory }> } | undefined;
  #issued = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  private constructor(o: ShardSetOptions) {
    this.#o = o;
    this.#now = o.now ?? Date.now;
    this.activeLog = this.#activeProxy();
  }

  /** Opens every listed shard (discarding unlisted ones), then starts the age timer. */
  static async open(o: ShardSetOptions): Promise<ShardSet> {
    const set = new ShardSet(o);
    try {
      await set.#open();
    } catch (e) {
      await set.close();
      throw e;
    }
    return set;
  }

  async #open(): Promise<void> {
    const f = this.#o.files;
    let recs = f.load();
    const first = recs === undefined;
    const folders = f.folders();
    if (first && folders.length > 0) {
      // the directory state is lost: which shard is active and which are final is not guessed
      throw new ShardStateError(
        "shards-state-missing",
        `Cannot open the shards: the directory state (shards.json) is missing while shard ` +
          `folders exist (${folders.map((n) => shardId(n)).join(", ")}); restore it from a backup`,
      );
    }
    recs ??= [{ id: "s0", state: "active", created: iso(this.#now()) }];
    recs.forEach((r, n) => {
      if (r.id !== shardId(n) || (r.state === "active") !== (n === recs!.length - 1)) {
        throw new Error(
          `Cannot open the shards: the state's shard ${n} is not ${shardId(n)}, ` +
            "or not exactly the last is active",
        );
      }
    });
    for (const n of folders) {
      if (n >= recs.length && await f.holdsEntries(n)) {
        // an older directory state (or a shard put back by hand): never moved aside, never lost
        throw new ShardStateError(
          "shard-unlisted",
          `Cannot open the shards: ${shardId(n)} holds entries but the directory state lists ` +
            `${recs.length} shard(s); restore the newest shards.json`,
        );
      }
    }
    for (const moved of f.discardFrom(recs.length)) {
      this.#o.report?.(
        `shards: moved an unlisted shard aside (a rotation cut short, no entries): ${moved}`,
      );
    }
    for (const [n, rec] of recs.entries()) {
      const log = await f.openLog(
        n,
        n === 0 ? this.#o.logName : shardLogName(this.#base, n),
        false,
      );
      if (n === 0) this.#base = log.logName();
      const h = this.#handle(n, log, rec);
      this.shards.push(h); // closed with the set, even if refused below
      await this.#ownState(h, rec);
      if (rec.state === "frozen") {
        const size = (await log.latestHead()).size;
        if (size !== rec.size) {
          throw new Error(
            `Cannot open the shards: frozen ${rec.id} holds ${size} entries, ` +
              `its state says ${rec.size}`,
          );
        }
      }
      await this.#o.onShard?.(h);
    }
    // the operator key is bound to the directory it signs: s0's store records its public key
    const s0 = f.meta(0);
    const bound = s0.get(OPERATOR_MARK);
    this.#operatorSecret = this.#o.operatorKey(first && bound === undefined);
    const pub = toHex(ed25519PublicKey(this.#operatorSecret));
    if (bound !== undefined && bound !== pub) {
      throw new ShardStateError(
        "operator-key-changed",
        `Cannot open the shards: the operator key is not the one this log's directory was ` +
          `signed with (public key ${bound}); restore the operator key file`,
      );
    }
    if (bound === undefined) await s0.set(OPERATOR_MARK, pub);
    const active = () => this.#activeRef();
    for (const h of this.shards) if (h.rec.state === "frozen") h.gate.freeze(active);
    if (first) f.save(recs);
    this.#vkey = operatorVkey(this.#base, ed25519PublicKey(this.#operatorSecret));
    if (this.#o.maxAgeMs) {
      const every = Math.max(50, Math.min(1000, Math.floor(this.#o.maxAgeMs / 4)));
      this.#timer = setInterval(
        () => this.#checkAge().catch((e) => this.#o.report?.(`shards: cannot check the age: ${e}`)),
        every,
      );
    }
  }

  /**
   * A shard's own record of being frozen against the directory state (issue 27): a listed-active
   * shard its own store says is frozen means the state is older than the shard: refused. A frozen
   * one whose store lacks the record (a crash right after the state was written) gets it now.
   */
  async #ownState(h: ShardHandle, rec: ShardRecord): Promise<void> {
    const meta = this.#o.files.meta(h.n);
    const own = meta.get(FROZEN_MARK);
    const frozen = frozenMark(rec);
    if (own !== undefined && own !== frozen) {
      throw new ShardStateError(
        "shards-state-behind",
        `Cannot open the shards: ${h.id}'s own store records it frozen (${own}), the directory ` +
          `state (shards.json) says ${rec.state}${
            frozen ? ` ${frozen}` : ""
          }: the state is older than the shard; restore the newest shards.json`,
      );
    }
    if (own === undefined && frozen !== undefined) await meta.set(FROZEN_MARK, frozen);
    // the key state carried in at the shard's creation is pinned by the directory state: a
    // store that lost it (rolled back to before the carry) would forget rotated-out keys
    if (rec.keys_carried !== undefined && meta.get(KEYS_CARRIED_MARK) !== rec.keys_carried) {
      throw new ShardStateError(
        "shard-carry-missing",
        `Cannot open the shards: ${h.id}'s store lacks the key state carried into it when it was ` +
          `created (${rec.keys_carried}): the store is older than the shard; restore it from a ` +
          "backup",
      );
    }
  }

  #handle(n: number, log: Log, rec: ShardRecord): ShardHandle {
    const gate = new ShardGate(shardId(n), log, (r) => this.#checkSize(gate, r));
    return { n, id: shardId(n), prefix: shardPrefix(n), gate, rec };
  }

  /** The active shard (the last). */
  active(): ShardHandle {
    return this.shards[this.shards.length - 1];
  }

  /** A shard by id (`s1`), or undefined. */
  byId(id: string): ShardHandle | undefined {
    const m = /^s(0|[1-9]\d{0,8})$/.exec(id);
    return m ? this.shards[Number(m[1])] : undefined;
  }

  #activeRef(): ActiveRef {
    const a = this.active();
    return { id: a.id, prefix: a.prefix };
  }

  operatorVkey(): string {
    return this.#vkey;
  }

  /** Runs `f` with the operator key (issue 23: it seals the verifier-config/1 documents). */
  withOperatorKey<T>(f: (secret: Uint8Array) => T): T {
    return f(this.#operatorSecret);
  }

  #checkSize(gate: ShardGate, r: AppendResult): void {
    const max = this.#o.maxSize;
    if (!max || r.tree_head.size < max || gate !== this.active().gate || this.#rotation) return;
    this.rotate("size").catch((e) => this.#o.report?.(`shards: rotation by size failed: ${e}`));
  }

  async #checkAge(): Promise<void> {
    const max = this.#o.maxAgeMs!;
    const a = this.active();
    if (this.#rotation || this.#closed) return;
    // counted from the shard's first entry: an empty shard never rotates, and a shard that stood
    // empty for long is not cut right after its first entry
    const first = await this.#firstTime(a);
    if (first === null || Date.parse(first) + max > this.#now()) return;
    this.rotate("age").catch((e) => this.#o.report?.(`shards: rotation by age failed: ${e}`));
  }

  /**
   * Rotates (docs/SHARDS.md "Lifecycle"), each step durable before the next: create the next
   * shard (new key, empty tree and its signed head); hold and drain the active one (every append
   * it accepted is committed and answered; its latest checkpoints are its final ones); write the
   * state with both changes at once. Only then are appends to the old shard answered 409.
   */
  rotate(reason: string): Promise<Directory> {
    if (this.#closed) return Promise.reject(new Error("Cannot rotate: the shards are closed"));
    return this.#rotation ??= this.#rotate(reason).finally(() => this.#rotation = undefined);
  }

  async #rotate(reason: string): Promise<Directory> {
    const old = this.active();
    const n = this.shards.length;
    const release = old.gate.hold();
    let created: Log | undefined;
    try {
      created = await this.#o.files.openLog(n, shardLogName(this.#base, n), true);
      await old.gate.drain();
      const log = old.gate.inner;
      const head = await log.latestHead();
      const [b3, sha] = await Promise.all([log.checkpoint("blake3"), log.checkpoint("sha256")]);
      const first = head.size > 0 ? await this.#firstTime(old) : null;
      const frozen: ShardRecord = {
        ...old.rec,
        state: "frozen",
        size: head.size,
        root: { blake3: b64Root(b3), sha256: b64Root(sha) },
        first_time: first,
        last_time: head.size > 0 ? iso(head.timestamp) : null,
      };
      // docs/SHARDS.md "Carried state": the drained shard's key state is final; it goes into the
      // new shard's store (one transaction) before the directory lists the shard, so identities'
      // chains continue there and a key rotated out stays out
      const carried = await this.#o.files.carryKeys(old.n, n);
      const next: ShardRecord = { id: shardId(n), state: "active", created: iso(this.#now()) };
      if (carried !== undefined) next.keys_carried = carried;
      const recs = [...this.shards.slice(0, -1).map((s) => s.rec), frozen, next];
      this.#o.files.save(recs); // the new directory is in force from here
      const h = this.#handle(n, created, next);
      created = undefined;
      old.rec = frozen;
      this.shards.push(h);
      old.gate.freeze(() => this.#activeRef());
      // then in the old shard's own store (a crash before this: written at the next start)
      await this.#o.files.meta(old.n).set(
        FROZEN_MARK,
        frozenMark(frozen)!,
      )
        .catch((e) =>
          this.#o.report?.(`shards: cannot record ${old.id} frozen in its store: ${e}`)
        );
      this.#cache = undefined;
      await this.#o.onShard?.(h);
      this.#o.report?.(
        `shards: rotated (${reason}): ${old.id} frozen at ${head.size}, ${h.id} active`,
      );
      return (await this.directory()).directory;
    } catch (e) {
      // the old directory stays in force; the unlisted shard is moved aside at the next start
      await created?.close().catch(() => {});
      throw e;
    } finally {
      release();
    }
  }

  async #firstTime(h: ShardHandle): Promise<string | null> {
    if (h.firstTime) return h.firstTime;
    const first = await h.gate.inner.firstHead?.();
    if (!first) return null;
    return h.firstTime = iso(first.timestamp);
  }

  async #entry(h: ShardHandle): Promise<ShardEntry> {
    const log = h.gate.inner;
    const vkeys = log.vkeys();
    const base = {
      id: h.id,
      log_name: log.logName(),
      prefix: h.prefix,
      state: h.rec.state,
      signer: log.signer(),
      vkeys: { blake3: vkeys.blake3, sha256: vkeys.sha256 },
    };
    if (h.rec.state === "frozen") {
      return {
        ...base,
        first_time: h.rec.first_time ?? null,
        last_time: h.rec.last_time ?? null,
        size: h.rec.size!,
        root: h.rec.root,
      };
    }
    const head = await log.latestHead();
    const first = head.size > 0 ? await this.#firstTime(h) : null;
    return {
      ...base,
      first_time: first,
      last_time: head.size > 0 ? iso(Math.max(head.timestamp, Date.parse(first!))) : null,
      size: head.size,
    };
  }

  directory(): Promise<{ note: string; directory: Directory }> {
    const now = this.#now();
    if (this.#cache && now - this.#cache.at < 1000 && now >= this.#cache.at) return this.#cache.p;
    const p = (async () => {
      const shards = await Promise.all(this.shards.map((h) => this.#entry(h)));
      // never issued earlier than a directory already served (directory-rollback)
      this.#issued = Math.max(this.#issued, this.#now());
      const directory: Directory = { operator: this.#base, issued: iso(this.#issued), shards };
      return { note: signDirectory(directory, this.#operatorSecret), directory };
    })();
    this.#cache = { at: now, p };
    p.catch(() => this.#cache?.p === p && (this.#cache = undefined));
    return p;
  }

  /** Every listed shard's id, prefix and log, s0 first (api/services/shard_logs.ts `ShardLogs`). */
  listed(): Promise<ListedShard[]> {
    return Promise.resolve(
      this.shards.map((h) => ({ id: h.id, prefix: h.prefix, log: h.gate.log })),
    );
  }

  /** Every shard's log, s0 first. */
  logs(): Log[] {
    return this.shards.map((h) => h.gate.log);
  }

  /** A log whose every call goes to the active shard; agents' heads fall back to older shards. */
  #activeProxy(): Log {
    return new ActiveShardLog({
      active: () => this.active().gate.log,
      all: () => this.shards.map((h) => h.gate.log),
    });
  }

  /** Stops the timer, waits for a rotation under way, closes every shard's log. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.#rotation?.catch(() => {});
    for (const h of this.shards) {
      await this.#o.onShardClose?.(h);
      await h.gate.inner.close();
    }
  }
}
