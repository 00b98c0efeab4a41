// The log's stream reads (issue 24; docs/STREAMS.md): a steward's streams and findings, an
// entry's findings, the content-id lookup and the search, over the store's `StreamIndex` (and
// its `ContentIndex`). Each is a bounded number of index seeks: O(log n) at any log size.
import { blake3, bytesEqual, toHex } from "../crypto.ts";
import type { ContentIndex, KeyIndex, LogStorage, StreamIndex } from "../storage.ts";
import type { IdentityRecord } from "../keys/mod.ts";
import { cidKey, searchKey } from "./check.ts";
import type { StreamFinding } from "./facts.ts";
import type { StreamSummary } from "./summary.ts";
import type { AccountPage, AccountQuery } from "../accounts/mod.ts";
import type { GrantAnswer, SearchQuery, StreamReads } from "./query.ts";
import { MAX_GRANT_DEPTH } from "./grants.ts";
import type { AllowFacts } from "./facts.ts";
import { NOT_CHECKED, type RevocationStatus, revocationStatus, walkAsync } from "./revocation.ts";

/**
 * The entry below `size` of a content id: JCP §3's (BLAKE3 of the envelope's bytes), confirmed
 * against the entry, else the log's content identity. A bounded number of index seeks.
 */
export async function findContent(
  s: LogStorage,
  x: StreamIndex,
  c: ContentIndex | undefined,
  size: number,
  cid: Uint8Array,
): Promise<number | undefined> {
  return (await findContentEntry(s, x, c, size, cid))?.index;
}

/** `findContent`, with the entry's bytes when the lookup read them (the envelope's content id). */
export async function findContentEntry(
  s: LogStorage,
  x: StreamIndex,
  c: ContentIndex | undefined,
  size: number,
  cid: Uint8Array,
): Promise<{ index: number; entry?: Uint8Array } | undefined> {
  for (const i of await x.search([cidKey("c", cid)], -1, 8)) {
    if (i >= size) break;
    const e = await s.entry(i);
    if (e && bytesEqual(blake3(e), cid)) return { index: i, entry: e };
  }
  const [at] = c ? await c.contentIndex([cid]) : [undefined];
  return at !== undefined && at < size ? { index: at } : undefined;
}

/** The stream reads of one log. */
export class LogStreams implements StreamReads {
  readonly #s: LogStorage;
  readonly #x: StreamIndex;
  readonly #c: ContentIndex | undefined;
  /** The log's served size: nothing past it is answered. */
  readonly #size: () => number;
  readonly #k: KeyIndex | undefined;

  constructor(
    s: LogStorage,
    x: StreamIndex,
    c: ContentIndex | undefined,
    size: () => number,
    k?: KeyIndex,
  ) {
    this.#s = s;
    this.#x = x;
    this.#c = c;
    this.#size = size;
    this.#k = k;
  }

  /**
   * Issue 25: an identity's chain as served: events and forks past the served size (committed,
   * not yet durable) are left out, and the head is the last served event.
   */
  async identity(identity: string): Promise<IdentityRecord | undefined> {
    const r = await this.#k?.identityRecord(identity);
    if (!r) return undefined;
    const size = this.#size();
    // an event or fork carried from an earlier shard (docs/SHARDS.md "Carried state") is served
    const served = (i: number, shard?: string | null) =>
      (shard ?? undefined) !== undefined ||
      i < size;
    const keep = r.events.map((i, k) => served(i, r.eventShards?.[k]));
    const events = r.events.filter((_, k) => keep[k]);
    if (events.length === 0) return undefined;
    let head = r.head;
    if (!served(head.index, head.shard)) {
      const e = await this.#k!.keyEvent(identity, events.length - 1);
      if (!e) return undefined;
      head = { identity, ...e };
    }
    const forks = r.forks.filter((f) => served(f.index, f.shard));
    if (head.forkedAt !== undefined && !served(head.forkedAt, head.forkedShard)) {
      delete head.forkedAt;
    }
    const out: IdentityRecord = { head, events, forks };
    if (r.eventShards) out.eventShards = r.eventShards.filter((_, k) => keep[k]);
    return out;
  }

  streams(steward: string): Promise<StreamSummary[]> {
    return this.#x.streams(steward);
  }

  findings(steward: string, after: number, limit: number): Promise<StreamFinding[]> {
    return this.#x.streamFindings(steward, after, limit);
  }

  async entryFindings(index: number): Promise<StreamFinding[]> {
    return index < this.#size() ? await this.#x.entryFindings(index) : [];
  }

  /** The first signed head that covers entry `index` (JCP §11), undefined past the log. */
  async integratedIn(index: number): Promise<{ size: number; timestamp: number } | undefined> {
    if (index >= this.#size()) return undefined;
    const at = await this.#x.integration(index);
    if (at) return at;
    const [h] = await this.#s.heads(index + 1, 1); // an entry logged before the records
    return h && { size: h.size, timestamp: h.timestamp };
  }

  reach(): Promise<number | "all"> {
    return this.#x.streamsReach();
  }

  /** A steward's accounts over a window (issue 30): a few index seeks per grant answered. */
  accounts(q: AccountQuery): Promise<AccountPage> {
    return this.#x.accounts(q);
  }

  /**
   * The entry of a content id: JCP §3's (BLAKE3 of the envelope's bytes, what `prev` and
   * `settles` name), confirmed against the entry; else the log's content identity
   * (verify/content_id.ts), which every envelope of one signed content shares.
   */
  byContentId(cid: Uint8Array): Promise<number | undefined> {
    return findContent(this.#s, this.#x, this.#c, this.#size(), cid);
  }

  /**
   * A logged grant (issue 25): its entry, its first revocation and its chain of ancestors, root
   * first, each one read (a logged chain is at most MAX_GRANT_DEPTH deep). Nothing past the
   * served size is answered.
   */
  async grant(id: Uint8Array): Promise<GrantAnswer | undefined> {
    const size = this.#size();
    const read = async (gid: Uint8Array) => {
      const g = await this.#x.grant?.(gid);
      if (!g || g.index >= size) return undefined;
      if (g.revocation !== undefined && g.revocation >= size) delete g.revocation;
      return g;
    };
    const g = await read(id);
    if (!g) return undefined;
    const a: GrantAnswer = {
      index: g.index,
      issuer: g.issuer,
      subject: g.subject,
      depth: g.depth,
      chain: [],
    };
    if (g.parent) a.parent = toHex(g.parent);
    if (g.revocation !== undefined) a.revocation = g.revocation;
    let up = g.parent;
    for (let hop = 0; up && hop <= MAX_GRANT_DEPTH; hop++) {
      const p = await read(up);
      if (!p) break;
      const link: GrantAnswer["chain"][number] = { grant_id: toHex(up), index: p.index };
      if (p.revocation !== undefined) link.revocation = p.revocation;
      a.chain.unshift(link);
      up = p.parent;
    }
    return a;
  }

  /**
   * Issue 25 (docs/GRANTS.md "Revocation status"): the allow at `index` against the grants and
   * revocations logged before it, as its commit checked it (revocation.ts; a few index seeks). An
   * entry before the stream checks' reach, or a store without grants, was not checked.
   */
  async revocation(index: number, allow: AllowFacts): Promise<RevocationStatus> {
    const read = this.#x.grant;
    if (!read || index >= this.#size()) return NOT_CHECKED;
    const reach = await this.#x.streamsReach();
    if (reach !== "all" && index < reach) return NOT_CHECKED;
    return revocationStatus(await walkAsync(allow, index, (id) => read.call(this.#x, id)), index);
  }

  /** Indices matching every given member, after `after`, ascending, at most `limit`. */
  async search(q: SearchQuery, after: number, limit: number): Promise<number[]> {
    const keys: Uint8Array[] = [];
    if (q.receiptId !== undefined) keys.push(searchKey("i", q.receiptId));
    if (q.inputHash !== undefined) keys.push(searchKey("n", q.inputHash));
    if (q.steward !== undefined) keys.push(searchKey("s", q.steward));
    if (keys.length === 0) throw new RangeError("Cannot search: no member given");
    const size = this.#size();
    return (await this.#x.search(keys, after, limit)).filter((i) => i < size);
  }
}
