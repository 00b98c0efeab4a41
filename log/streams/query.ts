// The stream reads as one serializable query (issue 24): the Worker asks the sequencer object,
// which keeps the stream state in its SQLite, over one RPC method (edge/worker/sequencer.ts);
// `answerStreamQuery` runs a query on a log's reads and `queriedStreamReads` is the reads a
// caller with only that RPC gets. Platform-neutral.
import type { StreamFinding } from "./facts.ts";
import type { StreamSummary } from "./summary.ts";
import type { AccountPage, AccountQuery } from "../accounts/mod.ts";
import type { IdentityRecord } from "../keys/mod.ts";
import type { AllowFacts } from "./facts.ts";
import type { RevocationStatus } from "./revocation.ts";

/** What GET /v1/log/search narrows by (any combination, at least one). */
export interface SearchQuery {
  steward?: string;
  receiptId?: string;
  inputHash?: string;
}

/** What `GET /v1/log/entries/{index}` and the findings route name as its integration. */
export interface Integration {
  size: number;
  timestamp: number;
}

/** A logged grant as GET /v1/grants/{grant_id} answers it (issue 25; docs/GRANTS.md). */
export interface GrantAnswer {
  /** Its entry. */
  index: number;
  issuer: string;
  subject: string;
  /** Hops from its root (a root: 0). */
  depth: number;
  /** Its parent's id (lowercase hex), for a delegated grant. */
  parent?: string;
  /** The entry of its first revocation (JCP §4.3: its marker), when revoked. */
  revocation?: number;
  /** Its ancestors, root first (JCP §4.2), each with its entry and first revocation. */
  chain: { grant_id: string; index: number; revocation?: number }[];
}

/** The stream reads a log offers (log/streams/reads.ts `LogStreams`, or over an RPC). */
export interface StreamReads {
  streams(steward: string): Promise<StreamSummary[]>;
  findings(steward: string, after: number, limit: number): Promise<StreamFinding[]>;
  entryFindings(index: number): Promise<StreamFinding[]>;
  integratedIn(index: number): Promise<Integration | undefined>;
  reach(): Promise<number | "all">;
  byContentId(cid: Uint8Array): Promise<number | undefined>;
  search(q: SearchQuery, after: number, limit: number): Promise<number[]>;
  /** A steward's accounts over a window (issue 30; docs/ACCOUNTING.md). */
  accounts(q: AccountQuery): Promise<AccountPage>;
  /** Issue 25: a logged grant (32-byte id), undefined when none is. */
  grant(id: Uint8Array): Promise<GrantAnswer | undefined>;
  /** Issue 25: an identity's key-event chain (docs/KEYS.md), undefined when none is logged. */
  identity(identity: string): Promise<IdentityRecord | undefined>;
  /** Issue 25: the revocation status of the allow logged at `index` (docs/GRANTS.md). */
  revocation(index: number, allow: AllowFacts): Promise<RevocationStatus>;
}

/** One read, as data. */
export type StreamQuery =
  | { op: "streams"; steward: string }
  | { op: "findings"; steward: string; after: number; limit: number }
  | { op: "entryFindings"; index: number }
  | { op: "integratedIn"; index: number }
  | { op: "reach" }
  | { op: "byContentId"; cid: Uint8Array }
  | { op: "search"; q: SearchQuery; after: number; limit: number }
  | { op: "accounts"; q: AccountQuery }
  | { op: "grant"; id: Uint8Array }
  | { op: "identity"; identity: string }
  | { op: "revocation"; index: number; allow: AllowFacts };

/** Runs a query on `r`. */
export function answerStreamQuery(r: StreamReads, q: StreamQuery): Promise<unknown> {
  switch (q.op) {
    case "streams":
      return r.streams(q.steward);
    case "findings":
      return r.findings(q.steward, q.after, q.limit);
    case "entryFindings":
      return r.entryFindings(q.index);
    case "integratedIn":
      return r.integratedIn(q.index);
    case "reach":
      return r.reach();
    case "byContentId":
      return r.byContentId(q.cid);
    case "search":
      return r.search(q.q, q.after, q.limit);
    case "accounts":
      return r.accounts(q.q);
    case "grant":
      return r.grant(q.id);
    case "identity":
      return r.identity(q.identity);
    case "revocation":
      return r.revocation(q.index, q.allow);
  }
}

/** The reads of a caller that can only send queries (`ask` answers each, or throws). */
export function queriedStreamReads(ask: (q: StreamQuery) => Promise<unknown>): StreamReads {
  return {
    streams: (steward) => ask({ op: "streams", steward }) as Promise<StreamSummary[]>,
    findings: (steward, after, limit) =>
      ask({ op: "findings", steward, after, limit }) as Promise<StreamFinding[]>,
    entryFindings: (index) => ask({ op: "entryFindings", index }) as Promise<StreamFinding[]>,
    integratedIn: (index) => ask({ op: "integratedIn", index }) as Promise<Integration | undefined>,
    reach: () => ask({ op: "reach" }) as Promise<number | "all">,
    byContentId: (cid) => ask({ op: "byContentId", cid }) as Promise<number | undefined>,
    search: (q, after, limit) => ask({ op: "search", q, after, limit }) as Promise<number[]>,
    accounts: (q) => ask({ op: "accounts", q }) as Promise<AccountPage>,
    grant: (id) => ask({ op: "grant", id }) as Promise<GrantAnswer | undefined>,
    identity: (identity) =>
      ask({ op: "identity", identity }) as Promise<IdentityRecord | undefined>,
    revocation: (index, allow) =>
      ask({ op: "revocation", index, allow }) as Promise<RevocationStatus>,
  };
}
