// Static scan of a pure folder (ARCHITECTURE "Layout": web-standard APIs only): every module
// reachable from its mod.ts, and the APIs a pure module must not use.
import assert from "node:assert/strict";

/** Every module reachable from `mod` by relative imports/exports: URL → source. */
export async function reachable(mod: URL): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const queue = [mod];
  while (queue.length) {
    const u = queue.pop()!;
    if (seen.has(u.href)) continue;
    const src = await Deno.readTextFile(u);
    seen.set(u.href, src);
    for (const m of src.matchAll(/(?:import|export)[^"';]*?from\s+"(\.{1,2}\/[^"]+)"/g)) {
      queue.push(new URL(m[1], u));
    }
  }
  return seen;
}

/** Asserts that no module uses Deno.*, node:*, Buffer, process or require (comments aside). */
export function assertWebOnly(mods: Map<string, string>): void {
  for (const [href, src] of mods) {
    const code = src.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, ""); // comments may say anything
    for (
      const banned of [/\bDeno\./, /from\s+"node:/, /\bBuffer\b/, /\bprocess\./, /\brequire\(/]
    ) {
      assert.ok(!banned.test(code), `${href} uses ${banned}`);
    }
  }
}
