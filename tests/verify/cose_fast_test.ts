// verify/cose.ts fast paths: the by-position reader of the canonical envelope layout must give
// exactly what the general parser (strict decoder + Decision 2 checks) gives — same fields, same
// refusals — on valid envelopes, mutated ones and random bytes; it must apply to every envelope
// coseSign1 produces with an ASCII kid; and the one-allocation Sig_structure must be the
// canonical encoding of ["Signature1", protected, h'', payload] at every head-size boundary.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  coseProtectedHeader,
  coseSign1,
  coseSigStructure,
  encodeCbor,
  parseCoseSign1,
} from "../../verify/mod.ts";
import type { CborMap } from "../../verify/mod.ts";
import { parseCoseSign1Decoded, parseCoseSign1Views } from "../../verify/cose.ts";

const secret = new Uint8Array(32).map((_, i) => i + 3);

function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (e) {
    return { err: (e as { code?: string }).code ?? String(e) };
  }
}

/** The parse as plain data (views and copies compare alike). */
function plain(f: () => unknown): unknown {
  const o = outcome(f) as { ok?: Record<string, unknown>; err?: string };
  if (!o.ok) return o;
  const r = o.ok;
  return {
    ok: {
      protectedBytes: [...(r.protectedBytes as Uint8Array)],
      kid: r.kid,
      payload: [...(r.payload as Uint8Array)],
      signature: [...(r.signature as Uint8Array)],
      tagged: r.tagged,
    },
  };
}

const arbKid = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: 70,
  }),
  fc.constant("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"),
  fc.string({ maxLength: 8 }).filter((s) => s.isWellFormed()), // non-ASCII: the general path
);

/** Envelopes as coseSign1 lays them out (the signature's bytes do not matter to parsing). */
const arbEnvelope = fc.tuple(
  arbKid,
  fc.oneof(
    { weight: 9, arbitrary: fc.uint8Array({ maxLength: 300 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(23, 24, 255, 256, 65535, 65536).map((n) => new Uint8Array(n)),
    },
  ),
  fc.uint8Array({ minLength: 64, maxLength: 64 }),
  fc.boolean(),
).map(([kid, payload, sig, tagged]) => {
  const e = encodeCbor([coseProtectedHeader(kid), new Map() as CborMap, payload, sig]);
  return tagged ? Uint8Array.of(0xd2, ...e) : e;
});

Deno.test("cose fast path: every envelope coseSign1 makes with an ASCII kid is read by position, as views", () => {
  const signed = coseSign1(new Uint8Array([0xa0]), secret, "did:key:z6Mk");
  assert.equal(parseCoseSign1Views(signed).payload.buffer, signed.buffer);
  fc.assert(
    fc.property(arbEnvelope, (e) => {
      const v = parseCoseSign1Views(e);
      const ascii = [...v.kid].every((c) => c.charCodeAt(0) < 0x80);
      assert.equal(v.payload.buffer === e.buffer, ascii, "views exactly when the kid is ASCII");
      assert.deepEqual(plain(() => v), plain(() => parseCoseSign1Decoded(e)));
      const copy = parseCoseSign1(e);
      assert.notEqual(copy.payload.buffer, e.buffer, "parseCoseSign1 still returns copies");
      assert.notEqual(copy.signature.buffer, e.buffer);
      assert.notEqual(copy.protectedBytes.buffer, e.buffer);
    }),
    { numRuns: 300 },
  );
});

Deno.test("cose fast path: same answer as the general parser on mutated envelopes and random bytes (property)", () => {
  const edits = fc.array(
    fc.tuple(
      fc.nat(),
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom("set", "insert", "delete"),
    ),
    { minLength: 1, maxLength: 3 },
  );
  const mutated = fc.tuple(arbEnvelope, edits).map(([e, es]) => {
    const b = [...e];
    for (const [pos, byte, op] of es) {
      // aim most edits at the heads near the start and the signature's head near the end
      const i = pos % 2 === 0
        ? (pos >> 1) % Math.min(b.length + 1, 80)
        : Math.max(0, b.length - 1 - ((pos >> 1) % 70));
      if (op === "set" && i < b.length) b[i] = byte;
      else if (op === "insert") b.splice(i, 0, byte);
      else if (op === "delete" && b.length > 0) b.splice(i % b.length, 1);
    }
    return new Uint8Array(b);
  });
  let accepted = 0;
  fc.assert(
    fc.property(fc.oneof(mutated, mutated, fc.uint8Array({ maxLength: 120 })), (b) => {
      const general = plain(() => parseCoseSign1Decoded(b));
      assert.deepEqual(plain(() => parseCoseSign1(b)), general);
      assert.deepEqual(plain(() => parseCoseSign1Views(b)), general);
      if ("ok" in (general as object)) accepted++;
    }),
    { numRuns: 4000 },
  );
  assert.ok(accepted > 50, `only ${accepted} mutated envelopes still parsed`);
});

Deno.test("cose fast path: non-shortest heads and trailing bytes go to the general parser's codes", () => {
  const e = coseSign1(new Uint8Array([1, 2, 3]), secret, "k");
  // payload bstr(3) 43 010203 rewritten as 58 03 010203 (non-shortest): refused by the decoder
  const i = e.indexOf(0x43);
  const longHead = new Uint8Array([...e.subarray(0, i), 0x58, 0x03, ...e.subarray(i + 1)]);
  assert.deepEqual(plain(() => parseCoseSign1(longHead)), { err: "non-shortest-head" });
  assert.deepEqual(plain(() => parseCoseSign1(new Uint8Array([...e, 0]))), {
    err: "trailing-bytes",
  });
  assert.deepEqual(plain(() => parseCoseSign1(e.subarray(0, e.length - 1))), { err: "truncated" });
  assert.deepEqual(plain(() => parseCoseSign1(Uint8Array.of(0xd2, 0xd2, ...e))), { err: "tag" });
});

Deno.test("coseSigStructure: one allocation, byte-identical to the canonical encoder at every head boundary", () => {
  const sizes = [0, 1, 23, 24, 255, 256, 65535, 65536];
  for (const a of sizes) {
    for (const n of sizes) {
      const prot = new Uint8Array(a).fill(0xa2);
      const payload = new Uint8Array(n).map((_, i) => i);
      assert.deepEqual(
        coseSigStructure(prot, payload),
        encodeCbor(["Signature1", prot, new Uint8Array(0), payload]),
        `protected ${a}, payload ${n}`,
      );
    }
  }
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 100 }), fc.uint8Array({ maxLength: 400 }), (p, x) => {
      assert.deepEqual(coseSigStructure(p, x), encodeCbor(["Signature1", p, new Uint8Array(0), x]));
    }),
    { numRuns: 300 },
  );
});
