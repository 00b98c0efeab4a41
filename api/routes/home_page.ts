// The HTML page served at `GET /` to browsers (API.md "Discovery"). A plain page that says what
// the service is and links the API documentation; the verification page replaces it later.

/** The home page's HTML. */
export function homePage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>JouleClaw receipt verification and transparency log</title>
<link rel="http://www.w3.org/ns/hydra/core#apiDocumentation" href="/v1/api-doc">
</head>
<body>
<h1>JouleClaw receipt verification and transparency log</h1>
<p>This service verifies JouleClaw energy receipts (JCR-1 COSE_Sign1 envelopes) and appends
valid ones to an append-only BLAKE3 Merkle log. Every answer to an append carries a signed tree
head and an inclusion proof; consistency proofs show the log only grew.</p>
<ul>
<li><a href="/v1/api-doc">API documentation</a> (Hydra, JSON-LD)</li>
<li><a href="/v1/log/tree-head">Latest signed tree head</a></li>
<li><a href="/v1/log/entries">Entries</a></li>
<li><a href="/v1/log/key">Log key</a></li>
</ul>
</body>
</html>
`;
}
