// The one-chunk BLAKE3 against the official vectors and against verify/'s general BLAKE3.
import assert from "node:assert/strict";
import fc from "fast-check";
import { blake3, toHex } from "../verify/mod.ts";
import { blake3Chunk, CHUNK_LEN } from "./blake3_chunk.ts";
import { blake3Hasher } from "./hasher.ts";

Deno.test("blake3Chunk matches the official BLAKE3 vectors up to 1024 bytes", async () => {
  const v = JSON.parse(
    await Deno.readTextFile(new URL("../conformance/upstream/blake3/blake3.json", import.meta.url)),
  );
  let n = 0;
  for (const c of v.cases) {
    if (c.input_len > CHUNK_LEN) continue;
    const input = Uint8Array.from({ length: c.input_len }, (_, i) => i % 251);
    assert.equal(toHex(blake3Chunk(input)), c.hash.slice(0, 64), `input_len ${c.input_len}`);
    n++;
  }
  assert.ok(n >= 15, `only ${n} vectors`);
  assert.throws(() => blake3Chunk(new Uint8Array(1025)), RangeError);
});

Deno.test("blake3Chunk equals verify's blake3 on random inputs; hasher equals the definition", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: CHUNK_LEN }),
      (b) => toHex(blake3Chunk(b)) === toHex(blake3(b)),
    ),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 3000 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      (e, r) => {
        const leafOk = toHex(blake3Hasher.leaf(e)) === toHex(blake3(Uint8Array.of(0, ...e)));
        const nodeOk =
          toHex(blake3Hasher.node(r, e.subarray(0, 32).length === 32 ? e.subarray(0, 32) : r)) ===
            toHex(blake3(Uint8Array.of(1, ...r, ...(e.length >= 32 ? e.subarray(0, 32) : r))));
        return leafOk && nodeOk;
      },
    ),
    { numRuns: 300 },
  );
});
