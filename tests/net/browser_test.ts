// Issue 18 (and issue 13's page): net/ runs in a real browser — Debian's Chromium, headless — with
// no Deno or Node API: bundled for the browser, served from the hostile server's own origin, it
// ends every hostile case within its deadline with the same code as in Deno.
import assert from "node:assert/strict";
import { ROOT } from "../../fixtures/service.ts";
import { startHostile } from "./_hostile_server.ts";
import { removeDirRetrying } from "../_fs.ts";

const CHROMIUM = "/usr/bin/chromium";

Deno.test("browser: net/ in headless Chromium ends each hostile case with its code", async () => {
  await Deno.stat(CHROMIUM).catch(() => {
    throw new Error(`this test needs Debian's chromium at ${CHROMIUM} (apt-get install chromium)`);
  });
  const tmp = await Deno.makeTempDir({ prefix: "net-browser-" });
  const js = `${tmp}/page.js`;
  const b = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "browser",
      "--format",
      "esm",
      "-o",
      js,
      `${ROOT}tests/net/_browser_page.ts`,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  assert.equal(b.code, 0, "deno bundle --platform browser failed");
  const bundle = await Deno.readFile(js);
  assert.ok(
    !/\bDeno\.|\bprocess\.|node:/.test(new TextDecoder().decode(bundle)),
    "the bundle uses Deno/Node APIs",
  );
  let report: (s: string) => void = () => {};
  const reported = new Promise<string>((r) => report = r);
  const h = startHostile(undefined, {
    files: {
      "/__page.html": {
        type: "text/html",
        body: new TextEncoder().encode(
          `<!doctype html><script type="module" src="/__page.js"></script>`,
        ),
      },
      "/__page.js": { type: "text/javascript", body: bundle },
    },
    onReport: report,
  });
  const chrome = new Deno.Command(CHROMIUM, {
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-extensions",
      `--user-data-dir=${tmp}/profile`,
      `${h.url}/__page.html`,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const text = await Promise.race([
      reported,
      new Promise<never>((_, rej) =>
        timer = setTimeout(() => rej(new Error("no report from the page in 90 s")), 90_000)
      ),
    ]);
    const r = JSON.parse(text) as Record<string, { code: string; ms: number }>;
    console.log(r);
    assert.equal(r.environment.code, "browser");
    const want: Record<string, string> = {
      silent: "net-timeout",
      "stall-headers": "net-timeout",
      endless: "net-body-too-large",
      "big-checkpoint": "net-body-too-large",
      "big-declared": "net-body-too-large",
      "long-proof": "net-body-too-large",
      "redirect-loop": "net-too-many-redirects",
      "bad-utf8": "net-bad-utf8",
      "bad-json": "net-bad-json",
      good: "ok",
    };
    for (const [name, code] of Object.entries(want)) {
      assert.equal(r[name]?.code, code, `${name}: ${JSON.stringify(r[name])}`);
      assert.ok(r[name].ms < 2000 + 1500, `${name} took ${r[name].ms} ms`);
    }
  } finally {
    clearTimeout(timer);
    chrome.kill("SIGKILL");
    await chrome.status;
    await h.close();
    await removeDirRetrying(tmp);
  }
});
