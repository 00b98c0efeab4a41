// verifier.html (issue 13): one self-contained file — script and style inline, no other request —
// that verifies a receipt and a c2sp.org/tlog-proof@v1 against a pasted log key or policy, opened
// from disk (file://). Its Content-Security-Policy (a <meta> tag, which also works from file://)
// allows exactly its own inline script and style by hash and no network at all.

async function b64sha256(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let s = "";
  for (const b of d) s += String.fromCharCode(b);
  return btoa(s);
}

/** The offline verifier's HTML and its CSP. */
export async function offlineHtml(js: string, css: string): Promise<{ html: string; csp: string }> {
  // A literal "</script" inside the bundle would end the element early: escape it.
  const safeJs = js.replaceAll("</script", "<\\/script");
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${await b64sha256(safeJs)}'`,
    `style-src 'sha256-${await b64sha256(css)}'`,
    "img-src data:",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>JouleClaw offline verifier</title>
<style>${css}</style>
</head>
<body>
<header><p class="brand">JouleClaw offline verifier</p></header>
<main id="main">
<h1>Verify a receipt and its log proof, offline</h1>
<p>This one file needs no network: it checks a receipt, a <code>c2sp.org/tlog-proof@v1</code> for it,
and the checkpoint's signatures against a log key or a witness policy you paste. Save it and open it
from disk.</p>
<div class="inputs">
<div class="field"><label for="file">Receipt file (COSE_Sign1, hex, or {"envelope": hex})</label><input type="file" id="file"></div>
<div class="field"><label for="hex">Or paste the envelope as hex</label><textarea id="hex" spellcheck="false"></textarea></div>
<div class="field"><label for="proof">tlog-proof (text)</label><textarea id="proof" spellcheck="false"></textarea></div>
<div class="field"><label for="proof-file">Or choose the tlog-proof file</label><input type="file" id="proof-file"></div>
<div class="field"><label for="trust">Log key (vkey) or witness policy (C2SP tlog-policy)</label><textarea id="trust" spellcheck="false"></textarea></div>
<div><button type="button" id="run">Verify</button></div>
</div>
<div id="result" class="result" role="status" aria-live="polite"></div>
<section id="log-panel" class="panel" aria-labelledby="log-h" hidden><h2 id="log-h">In the log?</h2><div id="log-body"></div></section>
</main>
<script type="module">${safeJs}</script>
</body>
</html>
`;
  return { html, csp };
}
