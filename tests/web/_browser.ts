// Debian's Chromium driven by playwright-core (issue 13; design/TEST-SETUPS.md). A test that needs
// the browser fails loudly when /usr/bin/chromium is missing (`.ci/run` installs it): it never
// passes silently.
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Where Debian puts Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Launches headless Chromium with the flags this machine needs (root, no GPU, closed network). */
export async function launchChromium(): Promise<Browser> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`,
    );
  }
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-dev-shm-usage",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Takes a full-page screenshot of a state. Always taken (and checked not to be blank); written to
 * docs/screenshots/ (the committed ones) only with JC_WRITE_SCREENSHOTS=1, else to a temp dir.
 */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = Deno.env.get("JC_WRITE_SCREENSHOTS") === "1"
    ? `${ROOT}docs/screenshots`
    : await Deno.makeTempDir({ prefix: "jc-shots-" });
  await Deno.mkdir(dir, { recursive: true });
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.length > 5_000, `screenshot ${name} is empty`);
  await Deno.writeFile(`${dir}/${name}.png`, png);
}
