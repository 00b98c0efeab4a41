// Debian's Chromium driven by playwright-core (issue 13; design/TEST-SETUPS.md). A test that needs
// the browser fails loudly when /usr/bin/chromium is missing (`.ci/run` installs it): it never
// passes silently.
import { type Browser, chromium } from "playwright-core";

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
