// Conformance vectors for the page tests.
import { fromHex, verifyEnvelope } from "../../verify/mod.ts";
import { ROOT } from "../../fixtures/service.ts";

/** Envelopes of the positive vectors that are valid under the default configuration (did:key
 * signers, no gateway keys): what a default service logs. */
export async function defaultValidPositives(): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const f of ["jcr1", "siblings"]) {
    const doc = JSON.parse(await Deno.readTextFile(`${ROOT}conformance/vectors/${f}.json`));
    for (const v of doc.vectors as { cose_sign1_hex: string }[]) {
      const env = fromHex(v.cose_sign1_hex);
      if ((await verifyEnvelope(env)).valid) out.push(env);
    }
  }
  if (out.length < 4) throw new Error(`only ${out.length} default-valid vectors`);
  return out;
}
