// `client get INDEX --out FILE` (issue 28; what Rekor's `get` and Tessera's entry readers give):
// downloads entry INDEX's envelope (its raw COSE_Sign1 bytes) and writes it only once it is proven
// in the log: from the tiles, the entry read from its bundle, hashed here and proven against the
// signed BLAKE3 checkpoint (TileClient.prove); through the API, the inclusion proof checked against
// the signed head and the bytes hashed to its leaf (LogClient.prove, then the same bytes checked).
// An index at or past the signed size is a not-found (EntryNotFound, exit 1), nothing written; a
// proof that fails is a failed check (exit 3), nothing written. The file appears whole or not at
// all (written beside it, then renamed).
import { entryLeafHash, toHex } from "../verify/mod.ts";
import { EntryNotFound, type LogClient, VerificationFailure } from "./client.ts";
import type { TileClient } from "./tiles.ts";

/** What `get` printed (one JSON line) besides writing the file. */
export interface GotEntry {
  index: number;
  size: number;
  leaf_hash: string;
  bytes: number;
  out: string;
  from: "tiles" | "api";
  verified: true;
}

/** Fetches entry `index`, proves it, writes its bytes to `out`; what it checked. */
export async function getEntry(
  source: { tiles: TileClient } | { api: LogClient },
  index: number,
  out: string,
): Promise<GotEntry> {
  let entry: Uint8Array, size: number, leaf: string;
  if ("tiles" in source) {
    const c = await source.tiles.checkpoint("blake3");
    if (index >= c.checkpoint.size) throw new EntryNotFound(index, c.checkpoint.size, "get");
    const r = await source.tiles.prove(c, index);
    entry = r.entry;
    size = r.size;
    leaf = r.leaf_hash;
  } else {
    const r = await source.api.prove(index); // a 404 past the end: HttpError, exit 1
    entry = await source.api.entryBytes(index);
    size = r.size;
    leaf = r.leaf_hash;
  }
  // The bytes written are the bytes proven (the API path fetched them a second time).
  if (toHex(entryLeafHash(entry)) !== leaf) {
    throw new VerificationFailure(`Cannot trust entry ${index}: its bytes do not hash to ${leaf}`);
  }
  const tmp = `${out}.${Deno.pid}.part`;
  await Deno.writeFile(tmp, entry);
  await Deno.rename(tmp, out);
  return {
    index,
    size,
    leaf_hash: leaf,
    bytes: entry.length,
    out,
    from: "tiles" in source ? "tiles" : "api",
    verified: true,
  };
}
