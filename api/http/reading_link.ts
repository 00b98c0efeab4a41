// A log entry as a link of a meter agent's chain (JCP §5, docs/METER-READING.md): the agent, its
// seq, and the prev the agent's next reading must carry (the BLAKE3 of this envelope's bytes).
// The readings route stores it with each reading it appends; the log folds older stores with it
// once (log/agent_heads.ts), here and in the edge's sequencer.
import type { AgentLink } from "../../log/mod.ts";
import {
  blake3,
  type CborMap,
  decodeCbor,
  meterReading,
  parseCoseSign1,
} from "../../verify/mod.ts";

/** The reading's (agent, core) if `entry` is a meter-reading/1 envelope, else undefined. */
export function readingOf(entry: Uint8Array): { kid: string; core: CborMap } | undefined {
  try {
    const cose = parseCoseSign1(entry);
    const core = decodeCbor(cose.payload);
    if (!(core instanceof Map) || core.get("jc_receipt") !== meterReading.METER_READING_SCHEMA) {
      return undefined;
    }
    return { kid: cose.kid, core };
  } catch {
    return undefined;
  }
}

const SCHEMA_BYTES = new TextEncoder().encode(meterReading.METER_READING_SCHEMA);

/** Whether `bytes` contains `pat` (a cheap test before a parse that would throw). */
function contains(bytes: Uint8Array, pat: Uint8Array): boolean {
  const first = pat[0], last = bytes.length - pat.length;
  outer: for (let i = bytes.indexOf(first); i >= 0 && i <= last; i = bytes.indexOf(first, i + 1)) {
    for (let j = 1; j < pat.length; j++) if (bytes[i + j] !== pat[j]) continue outer;
    return true;
  }
  return false;
}

/** The chain link `entry` makes, if it is a meter reading with an integer seq. */
export function readingLink(entry: Uint8Array): AgentLink | undefined {
  if (!contains(entry, SCHEMA_BYTES)) return undefined; // not a reading: no parse (the fold's hot path)
  const r = readingOf(entry);
  const seq = r?.core.get("seq");
  if (!r || typeof seq !== "number" || !Number.isSafeInteger(seq)) return undefined;
  return { did: r.kid, seq, prev: blake3(entry) };
}
