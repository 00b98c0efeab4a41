// The key checks at append (issue 25; JCP §2.1; docs/KEYS.md): run by the sequencer over a
// batch's new entries in log order, against the store's key state as the previous batch left it,
// before the batch is sequenced. A refused entry is never sequenced; the state the accepted ones
// move is written in the batch's own commit (log/sql/keys.ts), so the check and the append are
// one step of the one sequencer: a receipt judged against a head is never logged after an event
// that retired its key (no race with a concurrent rotation). O(1) store reads per entry.
import { LogInputError } from "../errors.ts";
import { bytesEqual } from "../crypto.ts";
import type {
  KeyChainEvent,
  KeyEventFact,
  KeyFact,
  KeyFork,
  KeyHead,
  KeyOutcome,
  KeyRefusalCode,
  KeyWrites,
  SignedFact,
} from "./facts.ts";

/** The store's key state as the checks read it (log/storage.ts `KeyIndex`). */
export interface KeyStateReads {
  /** The heads of these identities (those that have a chain). */
  keyHeads(identities: string[]): Promise<Map<string, KeyHead>>;
  /** The first chain's event at `seq`. */
  keyEvent(identity: string, seq: number): Promise<KeyChainEvent | undefined>;
}

/**
 * A key refusal: the entry is not logged (the HTTP layer answers 422 with the code). Its name
 * stays "LogInputError": the edge's RPC rebuilds it by name with its code (edge/worker/wire.ts).
 */
export class KeyRefusal extends LogInputError {
  constructor(code: KeyRefusalCode, message: string) {
    super(code, message);
  }
}

/** One entry's judgement: refused, or accepted (under an identity, or not concerned). */
export type KeyJudgement = { refused: KeyRefusal } | { outcome?: KeyOutcome };

const refused = (code: KeyRefusalCode, why: string): KeyJudgement => ({
  refused: new KeyRefusal(code, why),
});

/**
 * Judges `facts` (entry k of the batch's new entries; undefined: no key facts) in order; the
 * accepted entries take consecutive indices from `base`. Returns each judgement and the writes
 * of the accepted ones.
 */
export async function judgeKeys(
  state: KeyStateReads,
  facts: (KeyFact | undefined)[],
  base: number,
): Promise<{ judged: KeyJudgement[]; writes: KeyWrites }> {
  const ids = [...new Set(facts.filter((f) => f).map((f) => f!.identity))];
  const heads = await state.keyHeads(ids);
  // this batch's accepted events, by identity and seq (a later entry sees them)
  const mine = new Map<string, KeyChainEvent>();
  const writes: KeyWrites = { events: [], forks: [] };
  const judged: KeyJudgement[] = [];
  let index = base;
  for (const f of facts) {
    const j = !f
      ? {}
      : f.kind === "signed"
      ? signed(heads.get(f.identity), f)
      : await event(state, heads, mine, writes, f, index);
    judged.push(j);
    if (!("refused" in j)) index++;
  }
  return { judged, writes };
}

/**
 * A receipt under an identity: with no chain it is not concerned (the verifier's kid = steward
 * binding holds); with one, its kid must be the head's `current` (the log's order is the time a
 * third party can trust: a key rotated away from before this append signs nothing here).
 */
function signed(h: KeyHead | undefined, f: SignedFact): KeyJudgement {
  if (!h) return {};
  if (f.kid !== h.current) {
    return refused(
      "key-rotated-out",
      `Cannot append the envelope: its kid ${f.kid} is not the current key of ${f.identity} ` +
        `(event ${h.seq} at index ${h.index} made ${h.current} current)`,
    );
  }
  return { outcome: under(h) };
}

function under(h: KeyHead): KeyOutcome {
  const o: KeyOutcome = { identity: h.identity, seq: h.seq, index: h.index };
  // docs/SHARDS.md "Carried state": an event carried from an earlier shard names its shard
  if (h.shard !== undefined) o.shard = h.shard;
  if (h.forkedAt !== undefined) o.forked_at = h.forkedAt;
  if (h.forkedShard !== undefined) o.forked_shard = h.forkedShard;
  return o;
}

/** JCP §2.1: "a verifier MUST reject sequence gaps, parent-link mismatches, hash mismatches". */
async function event(
  state: KeyStateReads,
  heads: Map<string, KeyHead>,
  mine: Map<string, KeyChainEvent>,
  writes: KeyWrites,
  f: KeyEventFact,
  index: number,
): Promise<KeyJudgement> {
  const h = heads.get(f.identity);
  const at = `${f.identity} seq ${f.seq}`;
  if (h?.forkedAt !== undefined) {
    // docs/KEYS.md "Forks": a forked identity is frozen; no event is resolved over the fork.
    return refused(
      "key-event-fork",
      `Cannot log the key event: ${f.identity} is frozen by the fork at index ${h.forkedAt}`,
    );
  }
  const headSeq = h ? h.seq : -1;
  if (f.seq > headSeq + 1) {
    return refused(
      "key-event-seq-gap",
      `Cannot log the key event: ${at} does not follow ` +
        (h ? `the logged seq ${h.seq}` : "an inception (none is logged)"),
    );
  }
  // The event this one must follow: the head (a rotation), or the chain's event at seq - 1 (a
  // second event at a logged seq: a fork only if it chains as validly as the first did).
  let prev: KeyChainEvent | undefined;
  if (f.seq > 0) {
    prev = f.seq - 1 === headSeq
      ? h
      : mine.get(`${f.identity}\n${f.seq - 1}`) ?? await state.keyEvent(f.identity, f.seq - 1);
    if (!prev) {
      return refused("key-event-seq-gap", `Cannot log the key event: ${at} has no logged parent`);
    }
    if (!bytesEqual(f.parent!, prev.cid)) {
      return refused(
        "key-event-parent-mismatch",
        `Cannot log the key event: ${at} names a parent other than event ${prev.seq}'s content id`,
      );
    }
    if (!bytesEqual(f.currentHash, prev.nextHash)) {
      // JCP §2.1: possession of the pre-committed key is the proof of control; a thief holding
      // only the current key ends here.
      return refused(
        "key-event-next-mismatch",
        `Cannot log the key event: ${at}'s current key does not hash to event ${prev.seq}'s ` +
          "next_hash",
      );
    }
  }
  if (f.seq <= headSeq) {
    // A second, different event at a logged seq (identical content never gets here: the
    // content index answers it 200): logged as evidence, the identity frozen (docs/KEYS.md).
    const first = mine.get(`${f.identity}\n${f.seq}`) ?? await state.keyEvent(f.identity, f.seq);
    const firstIndex = first?.index ?? h!.index;
    const firstShard = first ? first.shard : h!.shard;
    const fork: KeyFork = { seq: f.seq, index, first: firstIndex };
    if (firstShard !== undefined) fork.first_shard = firstShard;
    writes.forks.push({ identity: f.identity, fork });
    const frozen = { ...h!, forkedAt: index };
    heads.set(f.identity, frozen);
    const o: KeyOutcome = { ...under(frozen), fork_of: firstIndex };
    if (firstShard !== undefined) o.fork_of_shard = firstShard;
    return { outcome: o };
  }
  const ev: KeyChainEvent = {
    seq: f.seq,
    current: f.current,
    nextHash: f.nextHash,
    cid: f.cid,
    index,
  };
  writes.events.push({ identity: f.identity, event: ev });
  mine.set(`${f.identity}\n${f.seq}`, ev);
  const head: KeyHead = { identity: f.identity, ...ev };
  heads.set(f.identity, head);
  return { outcome: under(head) };
}

/**
 * The sequencer's use of `judgeKeys`: its new entries (those with key facts among them), judged in
 * order; the refused ones by entry, the outcomes of the accepted ones by index, the writes.
 * Undefined when no entry has key facts (no store read).
 */
export async function judgeBatch<P extends { facts?: { key?: KeyFact } }>(
  state: KeyStateReads,
  fresh: P[],
  base: number,
): Promise<
  { refused: Map<P, KeyRefusal>; by: Map<number, KeyOutcome>; writes: KeyWrites } | undefined
> {
  if (!fresh.some((p) => p.facts?.key)) return undefined;
  const { judged, writes } = await judgeKeys(state, fresh.map((p) => p.facts?.key), base);
  const refused = new Map<P, KeyRefusal>();
  const by = new Map<number, KeyOutcome>();
  let at = base;
  fresh.forEach((p, k) => {
    const j = judged[k];
    if ("refused" in j) refused.set(p, j.refused);
    else if (j.outcome) by.set(at++, j.outcome);
    else at++;
  });
  return { refused, by, writes };
}
