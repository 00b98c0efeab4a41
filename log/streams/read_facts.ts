// Reads an envelope's stream facts (log/streams/facts.ts) from its signed core (issue 24): the
// sequencer's default when the append did not hand them over, and the recomputation the crash
// tests check the stored state against. Never throws: bytes that are not a COSE_Sign1 envelope
// with a map core have no facts.
import { accountFactsOf } from "../accounts/mod.ts";
import {
  blake3,
  type CborMap,
  type CborValue,
  contentIdBytes,
  decodeCbor,
  fromHex,
  HEX64,
  jcpObjectKind,
  parseCoseSign1,
} from "../../verify/mod.ts";
import type { EntryFacts } from "./facts.ts";
import { keyEventFactOf, signedFact } from "../keys/mod.ts";

/** A core member by name (a CBOR map's or a JSON projection's). */
export type CoreGet = (name: string) => CborValue | unknown;

/** Why an entry's stream link cannot be logged (the append answers 400 with the code). */
export const SEQ_RANGE = "stream-seq-range";

/** Why an entry's stream link is malformed (the append answers 400 with the code). */
export const LINK_MALFORMED = "stream-link-malformed";

/** An exact JS integer >= 0, or undefined. */
function uint(v: unknown): number | undefined {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/**
 * The facts of a core signed by `kid`, whose envelope's content id is `cid`. `refused` is set
 * when a `seq` is an integer past 2^53 − 1 (the log keeps exact seqs; docs/STREAMS.md).
 */
export function factsOfCore(
  get: CoreGet,
  kid: string,
  cid: Uint8Array,
): EntryFacts & { refused?: string } {
  const f: EntryFacts & { refused?: string } = { cid, steward: kid };
  const jcp = get("jcp_receipt"), jc = get("jc_receipt");
  if (typeof jcp === "string" || (typeof jc === "string" && jc !== "meter-reading/1")) {
    // issue 25: a receipt under an identity is judged against its key-event chain
    const key = signedFact(get("steward"), kid);
    if (key) f.key = key;
  }
  if (typeof jcp === "string") {
    const seq = get("seq"), prev = get("prev");
    if (seq !== undefined && typeof prev === "string" && HEX64.test(prev)) {
      const s = uint(seq);
      if (s === undefined) f.refused = SEQ_RANGE;
      else f.chain = { key: "jcp", seq: s, prev: fromHex(prev) };
    }
    const settles = get("settles");
    if (typeof settles === "string" && HEX64.test(settles)) f.settles = fromHex(settles);
    if (get("held_uj") !== undefined && get("verdict") === "allow") f.hold = true;
    const acts = get("activities");
    if (jcp === "efficiency/1" && Array.isArray(acts)) {
      // JCP §5.3: resolved by the sequencer (log/outcomes.ts); the verifier checked their form
      f.activities = acts.filter((a) => typeof a === "string" && HEX64.test(a)).map(fromHex);
    }
    // issue 30: what it debited, held, settled or minted, for the accounts
    const account = accountFactsOf(get, kid);
    if (account) f.account = account;
    // issue 25: an allow is checked for revocation against the grant (and chain) it names
    const gid = get("grant_id"), ids = get("chain_ids"), issuer = get("issuer");
    if (get("verdict") === "allow" && typeof gid === "string" && HEX64.test(gid)) {
      const chain = Array.isArray(ids)
        ? ids.filter((x) => typeof x === "string" && HEX64.test(x)).map((x) => fromHex(x))
        : [];
      f.allow = { grant: fromHex(gid), chain, issuer: typeof issuer === "string" ? issuer : "" };
    }
    return f;
  }
  if (typeof jc !== "string") return f;
  if (jc === "meter-reading/1") {
    const end = uint(get("end"));
    if (end !== undefined) f.closedAtMs = end;
    return f;
  }
  const id = get("id"), input = get("input_hash"), closed = get("closed_at");
  if (typeof id === "string") f.receiptId = id;
  if (typeof input === "string" && HEX64.test(input)) f.inputHash = input;
  if (typeof closed === "string") {
    const t = Date.parse(closed);
    if (Number.isFinite(t)) f.closedAtMs = t;
  }
  const engine = get("engine_id"), aseq = uint(get("audit_sequence"));
  if (typeof engine === "string" && aseq !== undefined) f.audit = { engine, seq: aseq };
  return f;
}

/**
 * The grant facts of a JCP object's core (issue 25): a grant's id (BLAKE3 of `payload`, its
 * canonical bytes, JCP §3) and links, or the grant a revocation names; nothing for a key event
 * or a map that is not a well-formed JCP object (never throws).
 */
export function jcpObjectFacts(
  core: CborMap,
  payload: Uint8Array,
): Pick<EntryFacts, "grant" | "revokes"> {
  let kind;
  try {
    kind = jcpObjectKind(core);
  } catch {
    return {};
  }
  if (kind === "grant") {
    const issuer = core.get("issuer"), subject = core.get("subject");
    if (typeof issuer !== "string" || typeof subject !== "string") return {};
    const parent = core.has("parent") ? contentIdBytes(core.get("parent")) : undefined;
    return { grant: { id: blake3(payload), issuer, subject, ...(parent ? { parent } : {}) } };
  }
  if (kind === "revocation") {
    const id = contentIdBytes(core.get("grant_id"));
    return id ? { revokes: id } : {};
  }
  return {};
}

/** The facts of an envelope's bytes, or undefined for bytes that are not an envelope. */
export function entryFacts(entry: Uint8Array): (EntryFacts & { refused?: string }) | undefined {
  try {
    const env = parseCoseSign1(entry);
    const core = decodeCbor(env.payload);
    if (!(core instanceof Map)) return undefined;
    const f = factsOfCore((k) => core.get(k), env.kid, blake3(entry));
    Object.assign(f, jcpObjectFacts(core as CborMap, env.payload)); // issue 25: grants
    if (core.has("next_hash")) {
      // issue 25: a key event (JCP §2.1; its signature was checked by the route that took it)
      const key = keyEventFactOf(entry);
      if (key) f.key = key;
    }
    return f;
  } catch {
    return undefined;
  }
}

/**
 * Why an envelope's JCP §8.1 link is malformed, or undefined: a `jcp` core whose `seq` is not an
 * unsigned integer, whose `prev` is not 64 lowercase hex digits (a content id, JCP §3), or that
 * carries one without the other. Such an envelope fails verification (JCR-1 §6 step 1); the append
 * routes ask this only then, to answer 400 `stream-link-malformed` (docs/STREAMS.md).
 */
export function malformedLink(entry: Uint8Array): string | undefined {
  let core: CborValue;
  try {
    core = decodeCbor(parseCoseSign1(entry).payload);
  } catch {
    return undefined;
  }
  if (!(core instanceof Map) || typeof core.get("jcp_receipt") !== "string") return undefined;
  const seq = core.get("seq"), prev = core.get("prev");
  if (seq === undefined && prev === undefined) return undefined;
  if (seq === undefined || prev === undefined) {
    return `${seq === undefined ? "seq" : "prev"} is missing beside ${
      seq === undefined ? "prev" : "seq"
    } (JCP §8.1)`;
  }
  const uint = (typeof seq === "number" && Number.isSafeInteger(seq) && seq >= 0) ||
    (typeof seq === "bigint" && seq >= 0n);
  if (!uint) return "seq is not an unsigned integer (JCP §8.1)";
  if (typeof prev !== "string" || !HEX64.test(prev)) {
    return "prev is not a content id: 64 lowercase hex digits (JCP §3, §8.1)";
  }
  return undefined;
}
