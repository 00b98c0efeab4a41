// SHACL messages speak the wire format (issue 17): an enumeration violation names the wire values
// (`L0`-`L4`, `HwShunt`, …) and the value sent, never the IRIs they map to (`…#Cache`).
import assert from "node:assert/strict";
import { validateDocument } from "../../vocab/mod.ts";

Deno.test("shapes: sh:in violations name wire values, not IRIs", async () => {
  const r = await validateDocument(JSON.stringify({
    jc_receipt: "1",
    id: "x",
    closed_at: "2026-01-01T00:00:00Z",
    input_hash: "a".repeat(64),
    tier: "L9",
    joules_uj: 1,
    energy_provenance: "Bogus",
    steward: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
  }));
  assert.equal(r.conforms, false);
  const messages = r.results.map((x) => x.message);
  assert.ok(
    messages.includes('tier must be one of L0, L1, L2, L3, L4; got "L9"'),
    messages.join("\n"),
  );
  assert.ok(
    messages.includes(
      'energy_provenance must be one of HwShunt, ModelBased, Estimator; got "Bogus"',
    ),
    messages.join("\n"),
  );
  for (const m of messages) assert.doesNotMatch(m, /https?:\/\/|#Cache|jc:/, m);
});
