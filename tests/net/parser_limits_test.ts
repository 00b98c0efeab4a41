// Issue 18: the parsers of what a hostile server sends refuse oversize input before any work — a
// 10 MB checkpoint, a note with too many signatures or lines, a tile of the wrong size, an
// oversize bundle, a tlog-proof of 100,000 hashes — and net/'s body budgets agree with them (a
// well-formed answer the parser accepts is never cut by the transport).
import assert from "node:assert/strict";
import { BODY_LIMITS } from "../../net/mod.ts";
import { blake3Hasher, HASH_SIZE } from "../../log/mod.ts";
import {
  C2spError,
  MAX_BUNDLE_BYTES,
  MAX_CHECKPOINT_EXTENSIONS,
  NOTE_LIMITS,
  parseBundle,
  parseCheckpoint,
  parseNote,
  parseTlogProof,
  TILE_WIDTH,
  TileHashReader,
  toBase64,
} from "../../log/c2sp/mod.ts";

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof C2spError, String(e));
    return e.code;
  }
  assert.fail("accepted");
}

const ROOT = toBase64(new Uint8Array(HASH_SIZE));

Deno.test("parser limits: net/ budgets match the parsers' own limits", () => {
  assert.equal(BODY_LIMITS.checkpoint, NOTE_LIMITS.maxBytes);
  assert.equal(BODY_LIMITS.tile, TILE_WIDTH * HASH_SIZE);
  assert.equal(BODY_LIMITS.bundle, MAX_BUNDLE_BYTES);
});

Deno.test("parser limits: a 10 MB checkpoint note, 65 signatures, too many lines: refused before work", () => {
  const huge = `example.org/log\n1\n${ROOT}\n` + "x".repeat(10 * 1024 * 1024) + "\n\n— k AAAA\n";
  const hugeBytes = new TextEncoder().encode(huge);
  const t0 = performance.now();
  assert.equal(codeOf(() => parseNote(huge)), "note-too-large");
  assert.equal(codeOf(() => parseNote(hugeBytes)), "note-too-large");
  assert.ok(performance.now() - t0 < 200, "refused by length, not by reading");
  const sig = `— example.org/log ${toBase64(new Uint8Array(68))}\n`;
  const text = `example.org/log\n1\n${ROOT}\n\n`;
  assert.doesNotThrow(() => parseNote(text + sig.repeat(NOTE_LIMITS.maxSignatures)));
  assert.equal(
    codeOf(() => parseNote(text + sig.repeat(NOTE_LIMITS.maxSignatures + 1))),
    "note-too-many-signatures",
  );
  const ext = (n: number) => `example.org/log\n1\n${ROOT}\n` + "ext\n".repeat(n);
  assert.equal(parseCheckpoint(ext(MAX_CHECKPOINT_EXTENSIONS)).extensions?.length, 16);
  assert.equal(
    codeOf(() => parseCheckpoint(ext(MAX_CHECKPOINT_EXTENSIONS + 1))),
    "checkpoint-too-many-lines",
  );
  assert.equal(codeOf(() => parseCheckpoint(ext(20_000))), "checkpoint-too-many-lines");
});

Deno.test("parser limits: a tile of the wrong size and an oversize bundle are refused", async () => {
  for (const len of [0, 8191, 8193, 10 * 1024 * 1024]) {
    let fetched = 0;
    const r = new TileHashReader(
      blake3Hasher,
      { size: 2 * TILE_WIDTH, root: new Uint8Array(HASH_SIZE) },
      () => (fetched++, Promise.resolve(new Uint8Array(len))),
    );
    await assert.rejects(
      r.inclusionProof(3),
      (e) => e instanceof C2spError && e.code === "tile-bad-length",
    );
    assert.ok(fetched >= 1);
  }
  assert.equal(codeOf(() => parseBundle(new Uint8Array(MAX_BUNDLE_BYTES + 1))), "bundle-too-large");
});

Deno.test("parser limits: a tlog-proof of 100,000 hashes is refused by size; 64 hashes by count", () => {
  const checkpoint = `example.org/log\n5\n${ROOT}\n\n— example.org/log ${
    toBase64(new Uint8Array(68))
  }\n`;
  const proof = (n: number) =>
    `c2sp.org/tlog-proof@v1\nindex 1\n${`${ROOT}\n`.repeat(n)}\n${checkpoint}`;
  const t0 = performance.now();
  assert.equal(codeOf(() => parseTlogProof(proof(100_000))), "tlog-proof-too-large");
  assert.ok(performance.now() - t0 < 200);
  assert.equal(codeOf(() => parseTlogProof(proof(64))), "tlog-proof-bad-hash");
});
