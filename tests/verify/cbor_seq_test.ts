// RFC 8742 sequences of COSE_Sign1 envelopes: splitCoseSequence returns each envelope's bytes
// exactly as received, and refuses a malformed item with the strict decoder's own code.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  CborError,
  concatBytes,
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  parseCoseSign1,
  splitCoseSequence,
} from "../../verify/mod.ts";

const secret = new Uint8Array(32).fill(7);
const kid = didKeyFromPublicKey(ed25519PublicKey(secret));
const envelope = (i: number, tagged = false) => {
  const e = coseSign1(encodeCbor({ n: i, pad: "x".repeat(i % 40) }), secret, kid);
  return tagged ? concatBytes(new Uint8Array([0xd2]), e) : e;
};
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof CborError, String(e));
    return e.code;
  }
  assert.fail("no error");
};

Deno.test("cbor-seq: any mix of tagged and untagged envelopes splits back exactly", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(200), fc.boolean()), { minLength: 1, maxLength: 12 }),
      (xs) => {
        const envs = xs.map(([i, t]) => envelope(i, t));
        const parts = splitCoseSequence(concatBytes(...envs));
        assert.equal(parts.length, envs.length);
        parts.forEach((p, k) => {
          assert.deepEqual(p, envs[k]);
          assert.equal(parseCoseSign1(p).tagged, xs[k][1]);
        });
      },
    ),
    { numRuns: 100 },
  );
});

Deno.test("cbor-seq: refusals carry stable codes", () => {
  const a = envelope(1);
  assert.equal(code(() => splitCoseSequence(new Uint8Array())), "empty-sequence");
  assert.equal(
    code(() => splitCoseSequence(concatBytes(a, a.subarray(0, a.length - 1)))),
    "truncated",
  );
  assert.equal(code(() => splitCoseSequence(concatBytes(a, new Uint8Array([0xd2])))), "truncated");
  assert.equal(
    code(() => splitCoseSequence(concatBytes(a, new Uint8Array([0x9f, 0xff])))),
    "indefinite-length",
  );
  assert.equal(
    code(() => splitCoseSequence(concatBytes(a, new Uint8Array([0xd8, 0x40, 0x01])))),
    "tag",
  );
  assert.equal(code(() => splitCoseSequence(concatBytes(a, a, a), 2)), "sequence-too-long");
  assert.equal(splitCoseSequence(concatBytes(a, a), 2).length, 2);
});
