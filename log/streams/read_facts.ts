// Reads an envelope's stream facts (log/streams/facts.ts) from its signed core (issue 24): the
// sequencer's default when the append did not hand them over, and the recomputation the crash
// tests check the stored state against. Never throws: bytes that are not a COSE_Sign1 envelope
// with a map core have no facts.
import { blake3, type CborValue, decodeCbor, fromHex, parseCoseSign1 } from "../../verify/mod.ts";
import type { EntryFacts } from "./facts.ts";
import { keyEventFactOf, signedFact } from "../keys/mod.ts";

/** A core member by name (a CBOR map's or a JSON projection's). */
export type CoreGet = (name: string) => CborValue | unknown;

/** Why an entry's stream link cannot be logged (the append answers 400 with the code). */
export const SEQ_RANGE = "stream-seq-range";

const HEX64 = /^[0-9a-f]{64}$/;

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

/** The facts of an envelope's bytes, or undefined for bytes that are not an envelope. */
export function entryFacts(entry: Uint8Array): (EntryFacts & { refused?: string }) | undefined {
  try {
    const env = parseCoseSign1(entry);
    const core = decodeCbor(env.payload);
    if (!(core instanceof Map)) return undefined;
    const f = factsOfCore((k) => core.get(k), env.kid, blake3(entry));
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
