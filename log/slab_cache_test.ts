// SlabCache (log/slab_cache.ts) against a reference LRU (a Map of copies, re-inserted on use),
// over random operation sequences; and what it hands out is the caller's own array.
import assert from "node:assert/strict";
import fc from "fast-check";
import { SlabCache } from "./slab_cache.ts";

Deno.test("SlabCache answers as a reference LRU over random puts and gets", () => {
  const op = fc.oneof(
    fc.record({ put: fc.integer({ min: 0, max: 9 }), fill: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ get: fc.integer({ min: 0, max: 9 }) }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 4 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
      const c = new SlabCache(8, max);
      const ref = new Map<string, Uint8Array>();
      for (const o of ops) {
        if ("put" in o) {
          const key = String(o.put), bytes = new Uint8Array(8).fill(o.fill);
          c.put(key, bytes);
          if (max > 0 && !ref.has(key)) {
            if (ref.size >= max) ref.delete(ref.keys().next().value!);
            ref.set(key, bytes.slice());
          }
          bytes.fill(0xee); // the cache holds a copy
        } else {
          const key = String(o.get);
          const want = ref.get(key);
          if (want) {
            ref.delete(key);
            ref.set(key, want);
          }
          assert.deepEqual(c.get(key), want);
        }
        assert.equal(c.size, ref.size);
      }
    }),
  );
});

Deno.test("SlabCache hands out copies and refuses a wrong size", () => {
  const c = new SlabCache(4, 2);
  c.put("a", new Uint8Array([1, 2, 3, 4]));
  const got = c.get("a")!;
  got.fill(9);
  assert.deepEqual(c.get("a"), new Uint8Array([1, 2, 3, 4]));
  assert.throws(() => c.put("b", new Uint8Array(3)), RangeError);
  assert.throws(() => new SlabCache(0, 1), RangeError);
  assert.throws(() => new SlabCache(4, -1), RangeError);
});
