// The static tiled publication (PUBLICATION.md P1-P2; API.md "Publication"): both views' C2SP
// checkpoints, hash tiles (height 8) and entry bundles, and tlog-proofs. Tile paths are parsed
// from the raw request path in canonical tlog-tiles form only (log/c2sp/tile_path.ts): anything
// else, a width of 0 or over 255, or a tile the tree does not have is a 404 with a stable code,
// never another path's bytes. Tiles and bundles never change once they exist (immutable);
// checkpoints do (no-cache).
import type { Context } from "hono";
import {
  C2spError,
  ENTRIES,
  formatTlogProof,
  levelCount,
  parseTilePath,
  TILE_WIDTH,
  type TileId,
} from "../../../log/c2sp/mod.ts";
import type { Log, TreeView } from "../../../log/mod.ts";
import { fromHex } from "../../../verify/mod.ts";
import { ApiError } from "../errors.ts";
import { hashParam, intParam } from "../params.ts";
import type { AppDeps, AppEnv, FastAnswer, RouteGroup } from "../route.ts";
import { latestCheckpoint } from "../../services/tile_readers.ts";
import { checkpointToServe } from "../../services/witness_collector.ts";
import { IMMUTABLE } from "./log_read.ts";
import { rawPath } from "../raw_path.ts";

/** The views and their path segment. */
function viewOf(c: Context<AppEnv>): TreeView {
  const v = c.req.param("view");
  if (v !== "blake3" && v !== "sha256") {
    throw new ApiError("unknown-view", `Cannot find view ${JSON.stringify(v)}: blake3 or sha256`, {
      status: 404,
    });
  }
  return v;
}

/**
 * Why a well-formed tile path has no tile in the tree of `size` (tlog-tiles §Partial Tiles:
 * "Empty tiles MUST NOT be served"): no hash of it exists yet (`tile-beyond-tree`), or fewer
 * hashes than the width asked (`tile-beyond-width`: a full tile asked while it is partial, or a
 * partial width it has not reached).
 */
function missingCode(size: number, t: TileId): string {
  return t.index * TILE_WIDTH >= levelCount(size, t.level)
    ? "tile-beyond-tree"
    : "tile-beyond-width";
}

/** The tile or bundle `t` of a view (undefined: the tree has none yet). */
function readTile(log: Log, view: TreeView, t: TileId): Promise<Uint8Array | undefined> {
  return t.level === ENTRIES
    ? log.bundle(t.index, t.width)
    : log.tile(view, t.level, t.index, t.width);
}

const TILE_HEADERS: [string, string][] = [
  ["content-type", "application/octet-stream"],
  ["cache-control", IMMUTABLE],
];

async function serveTile(c: Context<AppEnv>, log: Log, view: TreeView): Promise<Response> {
  // The raw path (not Hono's decoded parameter): `%30%30%30` must not alias `000`.
  const raw = rawPath(c.req.url);
  let t: TileId;
  try {
    t = parseTilePath(raw.slice(`/log/${view}/`.length));
  } catch (e) {
    if (e instanceof C2spError) throw new ApiError(e.code, e.message, { status: 404 });
    throw e;
  }
  const bytes = await readTile(log, view, t);
  if (bytes === undefined) {
    const size = (await log.latestHead()).size;
    const what = t.level === ENTRIES ? "entry bundle" : "tile";
    throw new ApiError(
      missingCode(size, t),
      `Cannot find ${what} ${
        raw.slice(`/log/${view}/`.length)
      }: the tree of size ${size} has no such ${what}`,
      { status: 404 },
    );
  }
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, Object.fromEntries(TILE_HEADERS));
}

/**
 * The tile route's fast lane (RouteDef.fast; docs/PERFORMANCE.md): a tile or bundle that exists,
 * straight from the raw path; everything else (a bad path, a view, a tile not yet there) is left
 * to the route above, which answers its 404.
 */
function fastTile(deps: AppDeps, path: string): Promise<FastAnswer | undefined> {
  const view = path.startsWith("/log/blake3/tile/")
    ? "blake3"
    : path.startsWith("/log/sha256/tile/")
    ? "sha256"
    : undefined;
  if (view === undefined) return Promise.resolve(undefined);
  let t: TileId;
  try {
    t = parseTilePath(path.slice(`/log/${view}/`.length));
  } catch {
    return Promise.resolve(undefined); // the route answers the path's 404
  }
  return readTile(deps.log, view, t).then((body) => body && { body, headers: TILE_HEADERS });
}

const VIEW_NOTE = "`{view}` is `blake3` (JouleClaw SPEC §22.1) or `sha256` (RFC 6962).";

/** The publication route group. */
export const publicationRoutes: RouteGroup = {
  name: "publication",
  routes: [
    {
      method: "GET",
      path: "/log/:view/checkpoint",
      cors: true,
      class: {
        id: "jc:Checkpoint",
        title: "Checkpoint",
        description: "A view's latest signed tree head as a C2SP tlog-checkpoint signed note.",
      },
      operation: {
        title: "Get a view's checkpoint",
        description: `${VIEW_NOTE} text/plain; charset=utf-8, signed by the log key (origin ` +
          "`<log name>/<view>`); not cached.",
        expects: "owl:Nothing",
        returns: "jc:Checkpoint",
        possibleStatus: [
          { status: 200, description: "The checkpoint." },
          { status: 404, description: "No such view (unknown-view)." },
        ],
        toolId: "jouleclaw:log.checkpoint",
        mutating: false,
      },
      handler: async (c) => {
        const view = viewOf(c);
        const deps = c.get("deps");
        // docs/WITNESS.md: the SHA-256 view's newest cosigned checkpoint, with its cosignatures.
        const note = await checkpointToServe(deps.services, view, await deps.log.checkpoint(view));
        return c.body(note, 200, {
          "content-type": "text/plain; charset=utf-8",
          "cache-control": "no-cache",
        });
      },
    },
    {
      method: "GET",
      path: "/log/:view/tile/:path{.+}",
      cors: true,
      class: {
        id: "jc:Tile",
        title: "Tile or entry bundle",
        description: "C2SP tlog-tiles: `tile/<L>/<N>[.p/<W>]` (256 hashes of tree level 8L, " +
          "or W of a partial tile) and `tile/entries/<N>[.p/<W>]` (uint16-prefixed entries).",
      },
      operation: {
        title: "Get a tile or an entry bundle",
        description: `${VIEW_NOTE} application/octet-stream, immutable. Only the canonical ` +
          "tlog-tiles path answers; every other is 404 with its code.",
        expects: "owl:Nothing",
        returns: "jc:Tile",
        possibleStatus: [
          { status: 200, description: "The tile or bundle." },
          {
            status: 404,
            description: "Not a canonical path (tile-path-malformed, tile-path-bad-level, " +
              "tile-path-bad-index, tile-path-bad-width), or not in the tree " +
              "(tile-beyond-tree, tile-beyond-width), or no such view (unknown-view).",
          },
        ],
        toolId: "jouleclaw:log.tile",
        mutating: false,
      },
      handler: (c) => serveTile(c, c.get("deps").log, viewOf(c)),
      fast: { prefix: "/log/", answer: fastTile },
      ownsRawPath: true,
    },
    {
      method: "GET",
      path: "/v1/log/proof/tlog-proof",
      query: ["index", "leaf_hash", "view"],
      cors: true,
      class: {
        id: "jc:TlogProof",
        title: "tlog-proof",
        description: "c2sp.org/tlog-proof@v1: an entry's index, its inclusion proof and the " +
          "signed checkpoint, verifiable offline.",
      },
      operation: {
        title: "Get a tlog-proof",
        description: "By `index` or by `leaf_hash` (the BLAKE3 leaf hash; exactly one), for " +
          "`view` (`sha256`, the default, or `blake3`), against the view's latest checkpoint. " +
          "text/plain.",
        expects: "owl:Nothing",
        returns: "jc:TlogProof",
        possibleStatus: [
          { status: 200, description: "The proof." },
          { status: 400, description: "Malformed parameters or an index past the checkpoint." },
          { status: 404, description: "No entry has that leaf hash." },
        ],
        toolId: "jouleclaw:log.tlog_proof",
        mutating: false,
      },
      handler: async (c) => {
        const { log } = c.get("deps");
        const rawView = c.req.query("view") ?? "sha256";
        if (rawView !== "blake3" && rawView !== "sha256") {
          throw new ApiError("bad-parameter", "Cannot read view: blake3 or sha256");
        }
        const rawIndex = c.req.query("index");
        const rawLeaf = c.req.query("leaf_hash");
        if ((rawIndex === undefined) === (rawLeaf === undefined)) {
          throw new ApiError(
            "bad-parameter",
            "Cannot make a tlog-proof: give exactly one of index and leaf_hash",
          );
        }
        const { note, size, reader } = await latestCheckpoint(log, rawView, c.get("deps").services);
        let index: number;
        if (rawLeaf !== undefined) {
          const leaf = hashParam("leaf_hash", rawLeaf);
          const i = await log.indexOfLeaf(fromHex(leaf));
          if (i === undefined) {
            throw new ApiError(
              "not-found",
              `Cannot make a tlog-proof: no entry has leaf hash ${leaf}`,
            );
          }
          index = i;
        } else index = intParam("index", rawIndex);
        if (index >= size) {
          throw new ApiError(
            "bad-parameter",
            `Cannot make a tlog-proof: entry ${index} is not in the checkpoint's tree of size ${size}`,
          );
        }
        const proof = await reader.inclusionProof(index);
        return c.body(formatTlogProof({ index, proof, checkpoint: note }), 200, {
          "content-type": "text/plain; charset=utf-8",
          "cache-control": "no-cache",
        });
      },
    },
  ],
};
