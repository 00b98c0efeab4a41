// C2SP tlog-tiles paths: the spec's examples, canonical round trips, every non-canonical spelling
// refused with its code, and which tiles exist for a size against a naive reference that builds
// the tree level by level.
import assert from "node:assert/strict";
import fc from "fast-check";
import { c2sp } from "../../../log/mod.ts";
import { codeOf } from "./_codes.ts";

const { ENTRIES, newTiles, parseTilePath, tilePath, tileWidthAt, tileWithin } = c2sp;

Deno.test("tile paths: the spec's examples", () => {
  assert.equal(tilePath({ level: 0, index: 1234067, width: 256 }), "tile/0/x001/x234/067");
  assert.equal(tilePath({ level: 2, index: 5, width: 17 }), "tile/2/005.p/17");
  assert.equal(tilePath({ level: ENTRIES, index: 1000, width: 256 }), "tile/entries/x001/000");
  assert.deepEqual(parseTilePath("tile/entries/x001/x234/067.p/255"), {
    level: ENTRIES,
    index: 1234067,
    width: 255,
  });
  // tlog-tiles §Partial Tiles: size 70,000 has 273 full level-0 tiles, one partial of 112, one
  // full level-1 tile, one partial level-1 of 17 and one partial level-2 of 1.
  const tiles = [...newTiles(0, 70_000, false)];
  assert.equal(tiles.filter((t) => t.level === 0 && t.width === 256).length, 273);
  assert.deepEqual(tiles.filter((t) => t.width < 256), [
    { level: 0, index: 273, width: 112 },
    { level: 1, index: 1, width: 17 },
    { level: 2, index: 0, width: 1 },
  ]);
  assert.deepEqual([...newTiles(0, 256, false)], [
    { level: 0, index: 0, width: 256 },
    { level: 1, index: 0, width: 1 },
  ]);
});

Deno.test("tile paths: parse(format(t)) = t for every tile; format(parse(p)) = p", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -1, max: 63 }),
      fc.oneof(fc.nat(2000), fc.nat(), fc.maxSafeNat()),
      fc.integer({ min: 1, max: 256 }),
      (level, index, width) => {
        const t = { level, index, width };
        const p = tilePath(t);
        assert.deepEqual(parseTilePath(p), t);
        assert.equal(tilePath(parseTilePath(p)), p);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("tile paths: every non-canonical spelling is refused with its code", async () => {
  const cases: [string, string][] = [
    ["tile/0/000.p/0", "tile-path-bad-width"],
    ["tile/0/000.p/256", "tile-path-bad-width"],
    ["tile/0/000.p/012", "tile-path-bad-width"],
    ["tile/0/000.p/+1", "tile-path-bad-width"],
    ["tile/0/000.p/", "tile-path-bad-width"],
    ["tile/0/000.p", "tile-path-malformed"],
    ["tile/00/000", "tile-path-bad-level"],
    ["tile/64/000", "tile-path-bad-level"],
    ["tile/-1/000", "tile-path-bad-level"],
    ["tile/data/000", "tile-path-bad-level"],
    ["tile/8/0/000", "tile-path-bad-index"], // Go's x/mod spelling with the height
    ["tile/0/0", "tile-path-bad-index"],
    ["tile/0/0000", "tile-path-bad-index"],
    ["tile/0/x000/005", "tile-path-bad-index"], // would alias 005
    ["tile/0/001/005", "tile-path-bad-index"], // a non-final group without x
    ["tile/0/x001/x005", "tile-path-bad-index"], // a final group with x
    ["tile/0/x1/005", "tile-path-bad-index"],
    ["tile/0/X001/005", "tile-path-bad-index"],
    ["tile/0/x001//005", "tile-path-bad-index"],
    ["tile/0/x001/005/", "tile-path-bad-index"],
    ["tile/0/x009/x999/x999/x999/x999/x999/999", "tile-path-bad-index"],
    ["tile/0/x009/x999/x999/x999/x999/999", "tile-path-bad-index"], // over 2^53
    ["tile/0", "tile-path-malformed"],
    ["tiles/0/000", "tile-path-malformed"],
    ["/tile/0/000", "tile-path-malformed"],
    ["tile/0/00a", "tile-path-bad-index"],
    ["tile/0/\uff10\uff10\uff10", "tile-path-bad-index"],
  ];
  for (const [p, code] of cases) assert.equal(await codeOf(() => parseTilePath(p)), code, p);
});

/** Naive reference: build level counts by halving leaf counts, tile by tile. */
function naiveTiles(size: number): Set<string> {
  const out = new Set<string>();
  let count = size; // hashes at tree level 8L
  for (let level = 0; count > 0; level++) {
    for (let start = 0; start < count; start += 256) {
      out.add(`${level}/${start / 256}/${Math.min(256, count - start)}`);
    }
    count = Math.floor(count / 256); // only full tiles hash into the level above
  }
  return out;
}

Deno.test("which tiles exist: agrees with a naive reference for random (size, level, index, width)", () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.nat(70_000), fc.integer({ min: 0, max: 2 ** 40 })),
      fc.integer({ min: 0, max: 7 }),
      fc.nat(300),
      fc.integer({ min: 1, max: 256 }),
      (size, level, index, width) => {
        const ref = size <= 70_000 ? naiveTiles(size) : undefined;
        const w = tileWidthAt(size, level, index);
        if (ref) {
          const has = [...ref].find((k) => k.startsWith(`${level}/${index}/`));
          assert.equal(w, has ? Number(has.split("/")[2]) : 0);
          assert.equal(
            c2sp.tileOfSize(size, { level, index, width }),
            ref.has(`${level}/${index}/${width}`),
          );
          if (level === 0) {
            assert.equal(tileWidthAt(size, ENTRIES, index), w);
          }
        }
        // A tile of a smaller size stays available: full or partial, its end ≤ the level's count.
        const within = tileWithin(size, { level, index, width });
        let some = false;
        for (const s of [size, Math.max(0, (index * 256 + width) * 256 ** level)]) {
          if (s <= size && c2sp.tileOfSize(s, { level, index, width })) some = true;
        }
        assert.equal(within, some);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("newTiles(a, b) are exactly the tiles of b that a did not have", () => {
  fc.assert(
    fc.property(fc.nat(140_000), fc.nat(140_000), (x, y) => {
      const [a, b] = x <= y ? [x, y] : [y, x];
      const key = (t: { level: number; index: number; width: number }) =>
        `${t.level}/${t.index}/${t.width}`;
      const of = (s: number) => new Set([...newTiles(0, s)].map(key));
      const before = of(a);
      const want = [...of(b)].filter((k) => !before.has(k)).sort();
      assert.deepEqual([...newTiles(a, b)].map(key).sort(), want);
      const ref = naiveTiles(b);
      for (const k of of(b)) {
        if (!k.startsWith("-1/")) assert.ok(ref.has(k), k);
      }
      assert.equal([...of(b)].filter((k) => !k.startsWith("-1/")).length, ref.size);
    }),
    { numRuns: 200 },
  );
});
