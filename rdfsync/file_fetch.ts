// A fetch over a local mirror directory (`client mirror`'s layout, docs/PUBLICATION.md
// "Mirroring"): `file:` URLs answered from disk, 200 with the bytes or 404, so the tile client
// reads a mirror exactly as it reads a server. Deno-only (Deno.readFile).
import { fileURLToPath } from "node:url";

/** fetch for `file:` URLs (anything else goes to the global fetch). */
export const fileFetch: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (!url.startsWith("file:")) return await fetch(input, init);
  try {
    return new Response(await Deno.readFile(fileURLToPath(url)), { status: 200 });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return new Response("not found", { status: 404 });
    throw e;
  }
};
