// C2SP tlog-tiles paths at height 8 (256 hashes a tile): hash tiles `tile/<L>/<N>[.p/<W>]` and
// entry bundles `tile/entries/<N>[.p/<W>]`, N in zero-padded 3-digit groups, all but the last
// prefixed `x` (tlog-tiles §Merkle Tree). Parsing accepts exactly the canonical spelling so that
// no two paths name one resource (a server answers 404 with the code for anything else), and
// which tiles a tree of a given size has is pure arithmetic here.
import { C2spError } from "./errors.ts";

/** tlog-tiles: tree levels per tile (8: a full tile is 256 hashes, 8,192 bytes). */
export const TILE_HEIGHT = 8;
/** Hashes (or entries) in a full tile or bundle. */
export const TILE_WIDTH = 256;
/** The `level` of an entry bundle in a `TileId` (as Go's x/mod tlog names data tiles -1). */
export const ENTRIES = -1;
/** tlog-tiles: L "between 0 and 63". */
export const MAX_LEVEL = 63;

/** One tile or bundle: `level` (ENTRIES for a bundle), index N, width 1..256 (256 = full). */
export interface TileId {
  level: number;
  index: number;
  width: number;
}

function bad(code: string, why: string): never {
  throw new C2spError(code, `Cannot read tile path: ${why}`);
}

/** N as tlog-tiles path elements: 1234067 → `x001/x234/067`, 5 → `005`. */
export function formatTileIndex(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) bad("tile-path-bad-index", `index ${n}`);
  let s = String(n % 1000).padStart(3, "0");
  for (let r = Math.floor(n / 1000); r > 0; r = Math.floor(r / 1000)) {
    s = `x${String(r % 1000).padStart(3, "0")}/${s}`;
  }
  return s;
}

/**
 * The canonical path of a tile or bundle, relative to the view's prefix.
 *
 * @example
 * ```ts
 * tilePath({ level: 0, index: 1234067, width: 256 }); // "tile/0/x001/x234/067"
 * tilePath({ level: ENTRIES, index: 0, width: 17 }); // "tile/entries/000.p/17"
 * ```
 */
export function tilePath(t: TileId): string {
  if (t.level !== ENTRIES && (!Number.isInteger(t.level) || t.level < 0 || t.level > MAX_LEVEL)) {
    bad("tile-path-bad-level", `level ${t.level}`);
  }
  if (!Number.isInteger(t.width) || t.width < 1 || t.width > TILE_WIDTH) {
    bad("tile-path-bad-width", `width ${t.width}`);
  }
  const l = t.level === ENTRIES ? "entries" : String(t.level);
  return `tile/${l}/${formatTileIndex(t.index)}${t.width === TILE_WIDTH ? "" : `.p/${t.width}`}`;
}

const LEVEL = /^(?:0|[1-9][0-9]?)$/;
const WIDTH = /^[1-9][0-9]{0,2}$/;
const GROUP_X = /^x[0-9]{3}$/;
const GROUP = /^[0-9]{3}$/;

/**
 * Parses a path relative to a view's prefix (`tile/...`), accepting only the canonical form.
 * Codes: `tile-path-malformed`, `tile-path-bad-level`, `tile-path-bad-index`,
 * `tile-path-bad-width` (stable: the server answers each with a 404 problem+json).
 */
export function parseTilePath(path: string): TileId {
  if (typeof path !== "string" || path.length > 128) bad("tile-path-malformed", "too long");
  const parts = path.split("/");
  if (parts.length < 3 || parts[0] !== "tile") bad("tile-path-malformed", "not tile/<L>/<N>");
  let level: number;
  if (parts[1] === "entries") level = ENTRIES;
  else if (LEVEL.test(parts[1]) && Number(parts[1]) <= MAX_LEVEL) level = Number(parts[1]);
  else bad("tile-path-bad-level", "L is not a decimal 0..63 without leading zeros");
  let rest = parts.slice(2);
  let width = TILE_WIDTH;
  if (rest[rest.length - 1].endsWith(".p")) bad("tile-path-malformed", "`.p` without a width");
  if (rest.length >= 2 && rest[rest.length - 2].endsWith(".p")) {
    const w = rest[rest.length - 1];
    // tlog-tiles: W "between 1 and 255, with no additional leading zeroes".
    if (!WIDTH.test(w) || Number(w) > TILE_WIDTH - 1) {
      bad("tile-path-bad-width", "W is not a decimal 1..255 without leading zeros");
    }
    width = Number(w);
    rest = [...rest.slice(0, -2), rest[rest.length - 2].slice(0, -2)];
  }
  if (rest.length === 0 || rest.length > 6) bad("tile-path-bad-index", "N has 1 to 6 groups");
  let index = 0;
  for (let i = 0; i < rest.length; i++) {
    const g = rest[i];
    const final = i === rest.length - 1;
    // tlog-tiles: "zero-padded 3-digit path elements. All but the last path element MUST begin
    // with an x."
    if (final ? !GROUP.test(g) : !GROUP_X.test(g)) {
      bad("tile-path-bad-index", "N is not in x-prefixed 3-digit groups");
    }
    const v = Number(final ? g : g.slice(1));
    // A leading group of x000 would spell N a second way.
    if (i === 0 && !final && v === 0) bad("tile-path-bad-index", "N has a leading x000 group");
    index = index * 1000 + v;
  }
  if (!Number.isSafeInteger(index)) bad("tile-path-bad-index", "N is too large");
  return { level, index, width };
}

/** Number of hashes of tree level 8·L (L ≥ 0; ENTRIES counts as 0) in a tree of `size` leaves. */
export function levelCount(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** Math.max(level, 0));
}

/**
 * The width tile (level, index) has in the tree of `size` leaves: 256 when full, 1..255 for the
 * rightmost partial tile, 0 when the tree has no such tile (tlog-tiles §Partial Tiles: "Empty
 * tiles MUST NOT be served").
 */
export function tileWidthAt(size: number, level: number, index: number): number {
  const c = levelCount(size, level);
  if ((index + 1) * TILE_WIDTH <= c) return TILE_WIDTH;
  if (index === Math.floor(c / TILE_WIDTH)) return c % TILE_WIDTH;
  return 0;
}

/** True when `t` is exactly a tile (or bundle) of the tree of `size` leaves. */
export function tileOfSize(size: number, t: TileId): boolean {
  return t.width > 0 && tileWidthAt(size, t.level, t.index) === t.width;
}

/**
 * True when `t` is a tile of the tree at `size` or at some smaller size: a full tile that exists,
 * or a partial tile that some size ≤ `size` had (tlog-tiles lets a log keep serving those).
 */
export function tileWithin(size: number, t: TileId): boolean {
  if (!Number.isSafeInteger(t.index) || t.index < 0) return false;
  if (t.width < 1 || t.width > TILE_WIDTH) return false;
  return t.index * TILE_WIDTH + t.width <= levelCount(size, t.level);
}

/** The hash-tile levels a tree of `size` leaves has: L with levelCount(size, L) > 0. */
export function tileLevels(size: number): number {
  let n = 0;
  while (levelCount(size, n) > 0) n++;
  return n;
}

/** The rightmost partial tiles of the tree of `size` (one per level whose count is not a multiple
 * of 256): the tiles the root is computed from. */
export function partialTiles(size: number): TileId[] {
  const out: TileId[] = [];
  for (let l = 0; l < tileLevels(size); l++) {
    const c = levelCount(size, l);
    if (c % TILE_WIDTH) {
      out.push({ level: l, index: Math.floor(c / TILE_WIDTH), width: c % TILE_WIDTH });
    }
  }
  return out;
}

/**
 * Every tile and bundle a tree of `size` leaves has that a tree of `from` leaves did not have
 * (all of them when `from` is 0): new full tiles, then the new rightmost partial tiles. A mirror
 * fetches exactly these to move from `from` to `size`.
 */
export function* newTiles(from: number, size: number, bundles = true): Generator<TileId> {
  for (const level of bundles ? [ENTRIES] : []) yield* newAtLevel(from, size, level);
  for (let l = 0; l < tileLevels(size); l++) yield* newAtLevel(from, size, l);
}

function* newAtLevel(from: number, size: number, level: number): Generator<TileId> {
  const c0 = levelCount(from, level);
  const c = levelCount(size, level);
  for (let n = Math.floor(c0 / TILE_WIDTH); n < Math.floor(c / TILE_WIDTH); n++) {
    yield { level, index: n, width: TILE_WIDTH };
  }
  if (c % TILE_WIDTH && c !== c0) {
    yield { level, index: Math.floor(c / TILE_WIDTH), width: c % TILE_WIDTH };
  }
}
