// The stream findings as RDF (issue 24, docs/RDF.md "Stream findings"): the fast path and the
// JSON-LD processor agree on a finding's quads, every finding conforms to jc:StreamFindingShape,
// and one with an unknown code or a literal where an entry belongs does not.
import assert from "node:assert/strict";
import {
  type FindingInput,
  findingNode,
  findingQuads,
  findingsJsonLd,
  ShapeValidator,
  toNQuads,
  toQuads,
} from "../../vocab/mod.ts";
import { CONTEXT_URL } from "../../vocab/mod.ts";

const O = "https://log.example";
const STEWARD = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const FINDINGS: FindingInput[] = [
  { id: 1, code: "stream-gap", steward: STEWARD, stream: "jcp", index: 3, seq: 3, cleared_by: 4 },
  { id: 2, code: "stream-fork", steward: STEWARD, stream: "jcp", index: 9, seq: 2, other: 7 },
  { id: 3, code: "receipt-id-reused", steward: STEWARD, index: 11, other: 5 },
  { id: 4, code: "closed-after-integration", steward: STEWARD, index: 12 },
];

function sorted(nq: string): string[] {
  return nq.split("\n").filter(Boolean).sort();
}

Deno.test("findings rdf: the fast path agrees with the JSON-LD processor; every finding conforms", async () => {
  const v = new ShapeValidator();
  for (const f of FINDINGS) {
    const fast = await findingQuads(f, O);
    const slow = await toQuads({ "@context": CONTEXT_URL, ...findingNode(f, O) });
    assert.deepEqual(sorted(toNQuads(fast)), sorted(toNQuads(slow)), f.code);
    const nq = toNQuads(fast);
    assert.match(nq, new RegExp(`<${O}/v1/log/entries/${f.index}/findings#${f.id}> `));
    assert.match(
      nq,
      new RegExp(`jc:aboutEntry|vocab/v1#aboutEntry> <${O}/v1/log/entries/${f.index}>`),
    );
    assert.ok((await v.validate(fast)).conforms, f.code);
  }
  const doc = findingsJsonLd(FINDINGS, O);
  assert.equal(
    (await toQuads(doc)).length,
    (await Promise.all(FINDINGS.map((f) => findingQuads(f, O)))).flat().length,
  );
});

Deno.test("findings rdf: an unknown code, or a literal where an entry belongs, does not conform", async () => {
  const v = new ShapeValidator();
  const bad = await findingQuads({ ...FINDINGS[1], code: "stream-fine" }, O);
  assert.equal((await v.validate(bad)).conforms, false);
  const lit = await toQuads({
    "@context": CONTEXT_URL,
    ...findingNode(FINDINGS[1], O),
    about: { "@value": "9" },
  });
  assert.equal((await v.validate(lit)).conforms, false);
});
