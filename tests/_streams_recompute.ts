// The stream state recomputed from a log's entries alone (issue 24): every entry's facts read from
// its bytes (log/streams/read_facts.ts), checked in index order by the same rules over an
// in-memory state, each batch's head timestamp the first signed head covering the entry. What a
// store holds must equal this whatever crashed in between (tests/e2e/streams_crash_test.ts).
import type { LogStorage, StreamFinding, StreamSummary } from "../log/mod.ts";
import {
  checkStreams,
  entryFacts,
  type GrantRecord,
  type StoredLink,
  type StreamTx,
} from "../log/streams/mod.ts";
import { toHex } from "../verify/mod.ts";

/** The recomputed state: each steward's streams and findings (in the order they were made). */
export interface Recomputed {
  streams: Map<string, StreamSummary[]>;
  findings: StreamFinding[];
  /** Issue 25: every logged grant (by its id, hex) with its first revocation. */
  grants: Map<string, GrantRecord>;
  /** Every search key (hex) with its entries, ascending: what a search must answer. */
  keys: Map<string, number[]>;
}

/** Replays `size` entries of `s` through the checks, `skewMs` as the service's. */
export async function recompute(s: LogStorage, size: number, skewMs: number): Promise<Recomputed> {
  const streams = new Map<string, StreamSummary & { steward: string; sid: number }>();
  const links = new Map<string, StoredLink[]>();
  const keys = new Map<string, number[]>();
  const audit = new Map<string, { seq: number; index: number }>();
  const findings: StreamFinding[] = [];
  let sids = 0;
  const grants = new Map<string, GrantRecord>();
  const tx: StreamTx = {
    grants: {
      grant: (id) => {
        const g = grants.get(toHex(id));
        return g && { ...g };
      },
      putGrant: (id, row) => void (grants.has(toHex(id)) || grants.set(toHex(id), { ...row })),
      putRevocation: (id, index) => {
        const g = grants.get(toHex(id));
        if (g && g.revocation === undefined) g.revocation = index;
      },
      issuerKnown: (issuer) => [...grants.values()].some((g) => g.issuer === issuer),
    },
    countLink(steward, key, seq, index) {
      const k = `${steward}\n${key}`;
      const st = streams.get(k);
      if (!st) {
        streams.set(k, {
          steward,
          sid: ++sids,
          key,
          length: 1,
          last_seq: seq,
          first_index: index,
          last_index: index,
        });
        return sids;
      }
      st.length++;
      st.last_seq = Math.max(st.last_seq, seq);
      st.last_index = index;
      return st.sid;
    },
    links: (sid, seq) => links.get(`${sid}/${seq}`) ?? [],
    putLink: (sid, seq, l) =>
      void (links.get(`${sid}/${seq}`) ?? links.set(`${sid}/${seq}`, []).get(`${sid}/${seq}`)!)
        .push(l),
    keyed: (k, limit) => (keys.get(toHex(k)) ?? []).slice(0, limit),
    putKeys: (index, ks, plain = []) => {
      for (const k of [...ks, ...plain]) {
        const l = keys.get(toHex(k)) ?? keys.set(toHex(k), []).get(toHex(k))!;
        if (!l.includes(index)) l.push(index);
      }
    },
    auditHead: (steward, engine) => audit.get(`${steward}\n${engine}`),
    putAuditHead: (steward, engine, seq, index) =>
      void audit.set(`${steward}\n${engine}`, { seq, index }),
    addFinding: (f) => {
      f.id = findings.length + 1;
      findings.push(f);
    },
    // JCP §5.3 bindings come from the sequencer's resolution (log/outcomes.ts), not from an
    // entry's facts alone: the replay has none to write (tests/e2e/outcomes_test checks them)
    bind: () => {},
    clearGap: (index, by) => {
      for (const f of findings) {
        if (f.index === index && f.code === "stream-gap" && f.cleared_by === undefined) {
          f.cleared_by = by;
        }
      }
    },
  };
  for (let i = 0; i < size; i += 256) {
    const es = await s.entries(i, Math.min(256, size - i));
    for (let k = 0; k < es.length; k++) {
      const index = i + k;
      const facts = entryFacts(es[k]);
      if (!facts) continue;
      const [head] = await s.heads(index + 1, 1);
      checkStreams(tx, [{ index, facts }], head.timestamp, skewMs);
    }
  }
  const bySteward = new Map<string, StreamSummary[]>();
  for (const { steward, sid: _sid, ...st } of streams.values()) {
    (bySteward.get(steward) ?? bySteward.set(steward, []).get(steward)!).push(st);
  }
  return { streams: bySteward, findings, grants, keys };
}
