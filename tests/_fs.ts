// Test clean-up helpers.

/**
 * Removes a directory a browser profile may still be written into: Chromium's helper processes
 * outlive the browser for a moment. Retries for about 2 s and never throws (clean-up must not fail
 * a test whose assertions passed).
 */
export async function removeDirRetrying(path: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    try {
      await Deno.remove(path, { recursive: true });
      return;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
