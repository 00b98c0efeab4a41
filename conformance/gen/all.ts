// Every published vector file, as file name → exact text. One place lists the sets, so adding a
// set (e.g. a meter-reading/1 module) is one import and one line.

import { operatorConfigJson } from "./config.ts";
import { divergenceVectors } from "./divergences.ts";
import { es256Vectors } from "./es256.ts";
import { jcr1Vectors } from "./jcr1.ts";
import { meterReadingVectors } from "./meter_reading.ts";
import { negativeVectors } from "./negatives.ts";
import { outcomeVectors } from "./outcomes.ts";
import { siblingVectors } from "./siblings.ts";
import type { Vector } from "./vector.ts";

/** The vector sets: file name → (title, generator). */
export const SETS: Record<string, { title: string; make: () => Vector[] | Promise<Vector[]> }> = {
  "jcr1.json": {
    title: 'JCR-1 cascade receipts (jc_receipt "1"): the ten §7.3 slots and two behaviours',
    make: jcr1Vectors,
  },
  "siblings.json": {
    title:
      "Sibling schemas: policy/1 (SPEC §10), verdict-receipt/1 (SPEC §16.7), jcp/2 and legacy jcp/1 (JCP §8)",
    make: siblingVectors,
  },
  "meter-reading.json": {
    title: "meter-reading/1 (docs/METER-READING.md): a valid reading and every reading-* refusal",
    make: meterReadingVectors,
  },
  "negative.json": {
    title: "Negative vectors: every refusal reason code of verify/codes.ts",
    make: negativeVectors,
  },
  "es256.json": {
    title:
      "ES256 (JCR-1 §4 alg -7): the cascade receipt's positive, the EdDSA-only siblings refused, tagged, high s and its twin, and every ES256 refusal",
    make: es256Vectors,
  },
  "outcomes.json": {
    title:
      "intercept/1 and efficiency/1 (JCP §5.2, §5.3): step and outcome receipts, each rule with a corrupted variant",
    make: outcomeVectors,
  },
  "divergences.json": {
    title:
      "The seven divergences decided against the seed text (docs/DECISIONS.md): jcp members, @context, trust_tier, input_hash, a reading's agent, frame_kind",
    make: divergenceVectors,
  },
};

/** JSON text with a trailing newline (the published form). */
export function publish(v: unknown): string {
  return JSON.stringify(v, null, 2) + "\n";
}

/** Generates every file. */
export async function generateAll(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [file, { title, make }] of Object.entries(SETS)) {
    out[file] = publish({
      kind: "receipt-vectors/1",
      title,
      generator: "conformance/gen.ts (deno task conformance:gen)",
      operator_config: "operator-config.json",
      vectors: await make(),
    });
  }
  out["operator-config.json"] = publish(operatorConfigJson());
  return out;
}
