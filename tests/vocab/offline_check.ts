// Run by offline_test.ts in a subprocess WITHOUT network permission: converts every document
// (every positive conformance vector and the hand-built ones) to JSON-LD and RDF and validates it.
// Any attempt of the JSON-LD processor to fetch a context would fail with a permission error.
import { toJsonLd, toQuads } from "../../vocab/mod.ts";
import { sharedValidator } from "../../vocab/validate.ts";
import { allDocs } from "./_docs.ts";

let n = 0;
for (const d of allDocs()) {
  const quads = await toQuads(
    toJsonLd(d.json, { cls: d.cls, id: `https://log.example/v1/log/entries/${n}` }),
  );
  const r = await sharedValidator().validate(quads);
  if (!r.conforms) {
    throw new Error(`${d.name} does not conform offline: ${JSON.stringify(r.results)}`);
  }
  n++;
}
// The embedded-context form as well.
await toQuads(toJsonLd(allDocs()[0].json, { embedContext: true }));
// A remote context is refused by the loader with its code (were it fetched, the missing
// network permission would raise a different error).
let refused = "";
try {
  await toQuads({ "@context": "https://example.org/ctx.jsonld", "@type": "x" });
} catch (e) {
  refused = (e as { code?: string }).code ?? String(e);
}
console.log(JSON.stringify({ converted: n, refused }));
