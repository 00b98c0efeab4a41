// The client of a static tiled log (docs/PUBLICATION.md): the two views' C2SP checkpoints, tiles
// and entry bundles under `<base>/log/{blake3,sha256}/`, each checkpoint opened with the log's
// vkey and every tile checked against it (log/c2sp's TileHashReader) before any proof is built
// from it. It reads the service, a CDN, a mirror directory behind any static file server: all
// the same. Every request goes through `getBytes` (net/: deadlines, a body budget per kind).
import {
  blake3Hasher,
  c2sp,
  type Hasher,
  sha256Hasher,
  verifyConsistency,
  verifyInclusion,
} from "../log/mod.ts";
import { type BodyKind, request } from "../net/mod.ts";
import { toHex } from "../verify/mod.ts";
import { HttpError, type NetOptions, VerificationFailure } from "./client.ts";

/** The two views of the log's one entry sequence (PUBLICATION.md Decision P1). */
export const VIEWS = { blake3: blake3Hasher, sha256: sha256Hasher } as const satisfies Record<
  string,
  Hasher
>;
/** A view's name: the last path element of its prefix and of its origin. */
export type View = keyof typeof VIEWS;
/** Both views, BLAKE3 (JouleClaw's own) first. */
export const VIEW_NAMES: View[] = ["blake3", "sha256"];

/** How the client reaches the network; tests inject `fetch`. */
export interface TileNet extends NetOptions {
  fetch?: typeof fetch;
}

/** The problem+json members of a refused answer ({} when its body is not a JSON object). */
export function problemOf(res: { json(): unknown }): Record<string, unknown> {
  try {
    const p = res.json();
    if (p && typeof p === "object") return p as Record<string, unknown>;
  } catch { /* not problem+json */ }
  return {};
}

/**
 * The one outbound GET of the tile client and the mirror: `url`'s body within the budget of
 * `kind`; a non-2xx answer is an HttpError (a 404 tile is the server's refusal, not a network
 * failure), a transport failure a NetError.
 */
export async function getBytes(
  url: string,
  kind: BodyKind,
  net: TileNet = {},
): Promise<Uint8Array> {
  const { fetch: f, ...opts } = net;
  const res = await request(url, { ...opts, kind, fetch: f });
  if (!res.ok) {
    const problem = problemOf(res);
    throw new HttpError(res.status, { ...problem, detail: problem.detail ?? url });
  }
  return res.bytes;
}

/** `url`'s JSON answer (net/'s strict UTF-8 and JSON: NetError net-bad-utf8 / net-bad-json). */
export async function getJson(url: string, kind: BodyKind, net: TileNet = {}): Promise<unknown> {
  const { fetch: f, ...opts } = net;
  const res = await request(url, {
    ...opts,
    kind,
    fetch: f,
    headers: { accept: "application/json" },
  });
  if (!res.ok) throw new HttpError(res.status, { detail: url });
  return res.json();
}

/**
 * Both views' vkeys from one of them: the views share the log's Ed25519 key and differ by origin
 * (`<name>/blake3`, `<name>/sha256`).
 *
 * @example
 * ```ts
 * logVkeys("log.example/jc/sha256+1a2b3c4d+Ab…").blake3; // "log.example/jc/blake3+…"
 * ```
 */
export function logVkeys(vkey: string): Record<View, string> {
  const k = c2sp.parseVkey(vkey);
  const m = /^(.*)\/(blake3|sha256)$/.exec(k.name);
  if (!m || k.type !== c2sp.SIG_ED25519) {
    throw new Error(
      `Cannot use log key ${vkey}: a log vkey is an Ed25519 key named <name>/blake3 or <name>/sha256`,
    );
  }
  return {
    blake3: c2sp.encodeVkey(`${m[1]}/blake3`, c2sp.SIG_ED25519, k.publicKey),
    sha256: c2sp.encodeVkey(`${m[1]}/sha256`, c2sp.SIG_ED25519, k.publicKey),
  };
}

/** A view's checkpoint, opened with the log's key. */
export interface ViewCheckpoint {
  view: View;
  /** The signed note, verbatim. */
  note: string;
  checkpoint: c2sp.Checkpoint;
}

/** A record proven from tiles. */
export interface TileInclusion {
  view: View;
  index: number;
  size: number;
  leaf_hash: string;
  root: string;
  path: string[];
  entry: Uint8Array;
}

/** The client of one log's tiles at `base` (the service root, or a mirror's root). */
export class TileClient {
  readonly base: string;
  readonly vkeys: Record<View, string>;
  readonly net: TileNet;
  /** Raw tiles and bundles fetched (counts the network cost of the checks). */
  fetches = 0;

  constructor(base: string, vkey: string, net: TileNet = {}) {
    this.base = base.replace(/\/+$/, "");
    this.vkeys = logVkeys(vkey);
    this.net = net;
  }

  /** The URL of a view's resource (`checkpoint` or a tile path). */
  url(view: View, path: string): string {
    return `${this.base}/log/${view}/${path}`;
  }

  /** The latest checkpoint of `view`, its signature checked with the view's vkey. */
  async checkpoint(view: View): Promise<ViewCheckpoint> {
    const bytes = await getBytes(this.url(view, "checkpoint"), "checkpoint", this.net);
    return await this.open(view, bytes);
  }

  /** Opens a checkpoint note of `view`; a bad one is a VerificationFailure. */
  async open(view: View, note: string | Uint8Array): Promise<ViewCheckpoint> {
    try {
      const o = await c2sp.openCheckpoint(note, this.vkeys[view]);
      const text = typeof note === "string" ? note : new TextDecoder().decode(note);
      return { view, note: text, checkpoint: o.checkpoint };
    } catch (e) {
      if (e instanceof c2sp.C2spError) {
        throw new VerificationFailure(
          `Cannot trust the ${view} checkpoint: ${e.code}: ${e.message}`,
        );
      }
      throw e;
    }
  }

  /** A fetcher of `view`'s tiles and bundles. */
  fetcher(view: View): c2sp.TileFetcher {
    return (t) => {
      this.fetches++;
      return getBytes(
        this.url(view, c2sp.tilePath(t)),
        t.level === c2sp.ENTRIES ? "bundle" : "tile",
        this.net,
      );
    };
  }

  /** A reader of `view`'s tree at checkpoint `c`: every tile checked against its signed root. */
  reader(c: ViewCheckpoint, opts?: c2sp.TileHashReaderOptions): c2sp.TileHashReader {
    return new c2sp.TileHashReader(VIEWS[c.view], c.checkpoint, this.fetcher(c.view), opts);
  }

  /**
   * Proves entry `index` in `c`'s tree from tiles: the entry read from its bundle (checked
   * against the level-0 tile), its inclusion proof computed from tiles and verified (RFC 9162
   * §2.1.3.2) against the signed root. A tile or bundle that disagrees is a VerificationFailure.
   */
  async prove(c: ViewCheckpoint, index: number, reader = this.reader(c)): Promise<TileInclusion> {
    const h = VIEWS[c.view];
    const size = c.checkpoint.size;
    if (!Number.isSafeInteger(index) || index < 0 || index >= size) {
      throw new VerificationFailure(
        `Cannot prove entry ${index}: the ${c.view} checkpoint has ${size}`,
      );
    }
    return await guard(c.view, async () => {
      const [entries, path] = await Promise.all([
        reader.entries(Math.floor(index / c2sp.TILE_WIDTH)),
        reader.inclusionProof(index),
      ]);
      const entry = entries[index % c2sp.TILE_WIDTH].slice();
      const leaf = h.leaf(entry);
      if (!verifyInclusion(h, index, size, leaf, path, c.checkpoint.root)) {
        throw new VerificationFailure(`Cannot trust entry ${index}: its proof from tiles fails`);
      }
      return {
        view: c.view,
        index,
        size,
        leaf_hash: toHex(leaf),
        root: toHex(c.checkpoint.root),
        path: path.map(toHex),
        entry,
      };
    });
  }

  /**
   * Checks that `newer` extends `older` (same view): the older root recomputed from tiles checked
   * against the newer signed root, and the consistency proof from those tiles verified. Throws a
   * VerificationFailure on a rollback, two roots at one size, or a fork.
   */
  async checkConsistency(older: ViewCheckpoint, newer: ViewCheckpoint): Promise<void> {
    const a = older.checkpoint, b = newer.checkpoint;
    const view = newer.view;
    if (b.size < a.size) {
      throw new VerificationFailure(
        `Cannot trust the log: the ${view} checkpoint went back from ${a.size} to ${b.size}`,
      );
    }
    if (b.size === a.size || a.size === 0) {
      if (b.size === a.size && toHex(a.root) !== toHex(b.root)) {
        throw new VerificationFailure(
          `Cannot trust the log: two signed ${view} roots at size ${a.size} (${toHex(a.root)} and ${
            toHex(b.root)
          }): equivocation`,
        );
      }
      return;
    }
    await guard(view, async () => {
      const r = this.reader(newer);
      const proof = await r.consistencyProof(a.size);
      if (!verifyConsistency(VIEWS[view], a.size, b.size, proof, a.root, b.root)) {
        throw new VerificationFailure(
          `Cannot trust the log: the ${view} checkpoint ${b.size} does not extend ${a.size} ` +
            `(root ${toHex(a.root)}): split view or rewrite`,
        );
      }
    });
  }
}

/** Runs `f`, turning a C2SP refusal (a tile or bundle that does not prove itself) into a failure. */
async function guard<T>(view: View, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof c2sp.C2spError) {
      throw new VerificationFailure(`Cannot trust the ${view} tiles: ${e.code}: ${e.message}`);
    }
    throw e;
  }
}
