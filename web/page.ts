// The verification page's HTML (issue 13), served at `GET /` to browsers. Static: no receipt or
// server data is ever written into it (the script inserts everything as text), no inline script or
// style (the Content-Security-Policy forbids both), no external resource.

/** Content-Security-Policy of the page and its assets. `connect-src` allows https: so that
 * `/?url=<receipt URL>` can read a receipt published elsewhere; everything else is 'self'. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' https:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The page. `assetVersion` busts caches when the bundle changes. */
export function pageHtml(assetVersion: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verify a JouleClaw receipt</title>
<meta name="description" content="Verify a JouleClaw energy receipt and its place in the transparency log, in your browser.">
<link rel="http://www.w3.org/ns/hydra/core#apiDocumentation" href="/v1/api-doc">
<link rel="stylesheet" href="/assets/page.css?v=${assetVersion}">
<script type="module" src="/assets/app.js?v=${assetVersion}"></script>
</head>
<body>
<header>
<nav aria-label="Site">
<ul>
<li class="brand"><a href="/">JouleClaw receipts</a></li>
<li><a href="/?view=explore">Explore the log</a></li>
<li><a href="/verifier.html">Offline verifier</a></li>
<li><a href="/v1/api-doc">API (Hydra)</a></li>
<li><a href="/vocab/v1">Vocabulary</a></li>
</ul>
</nav>
</header>
<main id="main">
<section id="verify" aria-labelledby="verify-h">
<h1 id="verify-h">Verify a receipt</h1>
<p>Everything is checked here, in your browser, with the same code as the command-line verifier:
the envelope, the canonical encoding, the signature, the tool receipts and the honesty rules. Nothing
you choose is uploaded. Then the page checks the log's answer against a signed checkpoint.</p>
<div class="inputs">
<div class="field">
<label for="file">Receipt file (COSE_Sign1, hex, or {"envelope": hex})</label>
<input type="file" id="file" name="file">
</div>
<button type="button" id="drop" class="dropzone" aria-describedby="drop-help">Drop a receipt file here, or press to choose one</button>
<p id="drop-help" class="visually-hidden">Opens the file chooser; you can also drag a file onto this button.</p>
<form id="paste-form" class="field">
<label for="hex">Or paste the envelope as hex</label>
<textarea id="hex" name="hex" spellcheck="false" autocomplete="off"></textarea>
<div><button type="submit" id="verify-hex">Verify pasted hex</button></div>
</form>
<details id="settings">
<summary>Verifier settings</summary>
<div class="field">
<label for="config">Operator configuration (JSON, as for <code>deno task verify --config</code>)</label>
<input type="file" id="config" name="config" accept=".json,application/json">
<p id="config-status" class="status-line" role="status">No operator configuration: did:key signers only.</p>
</div>
<div class="field">
<label for="policy">Witness policy (C2SP tlog-policy)</label>
<input type="file" id="policy" name="policy">
<p id="policy-status" class="status-line" role="status">Using the log operator's default policy.</p>
</div>
</details>
</div>
<div id="result" class="result" role="status" aria-live="polite" aria-atomic="false"></div>
<section id="log-panel" class="panel" aria-labelledby="log-h" hidden>
<h2 id="log-h">In the log?</h2>
<div id="log-body" aria-live="polite"></div>
</section>
</section>
<section id="explore" aria-labelledby="explore-h"></section>
</main>
<footer><p class="status-line">Page <span id="ready">loading</span>. Receipts are checked locally; the log's answers are checked against signed checkpoints.</p></footer>
</body>
</html>
`;
}
