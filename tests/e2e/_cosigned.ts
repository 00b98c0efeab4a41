// Waiting for a witnessed checkpoint over real HTTP (tests of witnessing): a free port to start a
// witness on before the log that names it, and the served checkpoint once it reaches a size and
// carries a valid signature under every vkey asked for.
import { openNote, verifierFromVkey } from "../../log/c2sp/note.ts";
import { parseCheckpoint } from "../../log/c2sp/checkpoint.ts";

/** A port free now on 127.0.0.1. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The served SHA-256 checkpoint at `url`, once at `size` and cosigned under every vkey. */
export async function cosigned(url: string, size: number, vkeys: string[], ms = 60_000) {
  const t0 = Date.now();
  let last = "";
  while (Date.now() - t0 < ms) {
    last = await (await fetch(url)).text();
    try {
      const text = last.slice(0, last.lastIndexOf("\n\n") + 1);
      if (parseCheckpoint(text).size === size) {
        const o = await openNote(last, vkeys.map((v) => verifierFromVkey(v)));
        if (o.verified.length === vkeys.length) return last;
      }
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Cannot see ${url} at ${size} cosigned by ${vkeys.length}: ${last}`);
}
