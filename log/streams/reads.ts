// The log's stream reads (issue 24; docs/STREAMS.md): a steward's streams and findings, an
// entry's findings, the content-id lookup and the search, over the store's `StreamIndex` (and
// its `ContentIndex`). Each is a bounded number of index seeks: O(log n) at any log size.
import { blake3 } from "../crypto.ts";
import type { ContentIndex, KeyIndex, LogStorage, StreamIndex } from "../storage.ts";
import type { IdentityRecord } from "../keys/mod.ts";
import { cidKey, searchKey } from "./check.ts";
import type { StreamFinding } from "./facts.ts";
import type { StreamSummary } from "./summary.ts";
import type { SearchQuery, StreamReads } from "./query.ts";

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
    const events = r.events.filter((i) => i < size);
    if (events.length === 0) return undefined;
    let head = r.head;
    if (head.index >= size) {
      const e = await this.#k!.keyEvent(identity, events.length - 1);
      if (!e) return undefined;
      head = { identity, ...e };
    }
    const forks = r.forks.filter((f) => f.index < size);
    if (head.forkedAt !== undefined && head.forkedAt >= size) delete head.forkedAt;
    return { head, events, forks };
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

  /**
   * The entry of a content id: JCP §3's (BLAKE3 of the envelope's bytes, what `prev` and
   * `settles` name), confirmed against the entry; else the log's content identity
   * (verify/content_id.ts), which every envelope of one signed content shares.
   */
  async byContentId(cid: Uint8Array): Promise<number | undefined> {
    const size = this.#size();
    for (const i of await this.#x.search([cidKey("c", cid)], -1, 8)) {
      if (i >= size) break;
      const e = await this.#s.entry(i);
      if (e && same(blake3(e), cid)) return i;
    }
    const [at] = this.#c ? await this.#c.contentIndex([cid]) : [undefined];
    return at !== undefined && at < size ? at : undefined;
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
