// Meter readings for tests (docs/METER-READING.md): the conformance suite's valid meter-reading/1
// core, re-keyed to an agent of the test's own and re-chained (seq, prev), its span moved to the
// seq-th of a contiguous run, signed by that agent.
import {
  coseSign1,
  decodeCbor,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  fromHex,
  parseCoseSign1,
} from "../verify/mod.ts";

const vectorFile = JSON.parse(
  await Deno.readTextFile(new URL("../conformance/vectors/meter-reading.json", import.meta.url)),
);
const vector = vectorFile.vectors.find((v: { expected: { valid: boolean } }) => v.expected.valid);
const baseCore = decodeCbor(parseCoseSign1(fromHex(vector.cose_sign1_hex)).payload) as Map<
  string,
  unknown
>;

/** An agent of a test: its did:key and its readings. */
export interface ReadingAgent {
  did: string;
  /**
   * The agent's reading `seq` after `prev` (hex BLAKE3 of the previous reading, "" first), over
   * the `at`-th span of the run (default: the seq-th, contiguous with the one before).
   */
  reading(seq: number, prev: string, at?: number): Uint8Array;
}

/** The agent whose Ed25519 secret seed is `secret`. */
export function readingAgent(secret: Uint8Array): ReadingAgent {
  const did = didKeyFromPublicKey(ed25519PublicKey(secret));
  return {
    did,
    reading(seq, prev, at = seq) {
      const core = new Map(baseCore);
      core.set("agent", did);
      core.set("seq", seq);
      core.set("prev", prev);
      // one agent's spans are contiguous (reading-overlap): reading n covers the nth span
      const start = Number(baseCore.get("start")), len = Number(baseCore.get("end")) - start;
      const shift = at * len;
      core.set("start", start + shift);
      core.set("end", start + len + shift);
      const l = new Map(baseCore.get("liveness") as Map<string, unknown>);
      l.set("probed_at", Number(l.get("probed_at")) + shift);
      core.set("liveness", l);
      return coseSign1(encodeCbor(core), secret, did);
    },
  };
}
