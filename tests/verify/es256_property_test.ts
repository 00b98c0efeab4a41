// ES256 envelopes under random mutation (docs/DECISIONS.md "ES256"): verifyEnvelope never throws,
// every failing step carries a code of verify/codes.ts, the WebCrypto and pure paths give the same
// report, and a mutation that still verifies is a twin — the same signed content (tag 18 added or
// removed) — never new content. Random r, s and random p256-pub kids are refused with their codes.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  base58btcEncode,
  coseProtectedHeader,
  encodeCbor,
  envelopeContentId,
  fromHex,
  isReasonCode,
  P256_N,
  toHex,
  verifyEnvelope,
} from "../../verify/mod.ts";
import type { VerificationReport } from "../../verify/mod.ts";
import { es256Steward, receiptCore, validEs256Envelope } from "../../fixtures/app.ts";
import { applyEdits, arbEdits } from "./_arb.ts";

const BASES = [
  validEs256Envelope(1),
  validEs256Envelope(2, es256Steward(9)),
  Uint8Array.of(0xd2, ...validEs256Envelope(3)),
];

async function both(env: Uint8Array): Promise<VerificationReport> {
  const fast = await verifyEnvelope(env);
  const pure = await verifyEnvelope(env, { pureEs256: true, pureEd25519: true });
  assert.deepEqual(pure, fast, "the two paths disagree");
  for (const s of fast.steps) {
    if (s.status === "fail") assert.ok(isReasonCode(s.code!), `untyped code ${s.code}`);
  }
  return fast;
}

Deno.test("es256: base envelopes verify", async () => {
  for (const b of BASES) assert.equal((await both(b)).valid, true);
});

Deno.test("es256: mutated envelopes are refused with typed codes, or are twins (property)", async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...BASES), arbEdits(), async (base, edits) => {
      const mutated = applyEdits(base, edits);
      const r = await both(mutated);
      if (r.valid) {
        assert.equal(toHex(envelopeContentId(mutated)!), toHex(envelopeContentId(base)!));
      } else {
        assert.ok(r.steps.some((s) => s.status === "fail"));
      }
    }),
    { numRuns: 600 },
  );
});

const be32 = (n: bigint) => fromHex(n.toString(16).padStart(64, "0"));
const arbScalar = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
  fc.constantFrom(0n, 1n, P256_N - 1n, P256_N, P256_N + 1n, 2n ** 256n - 1n),
);

Deno.test("es256: random r, s are refused with es256-r-range, es256-s-range or bad-signature (property)", async () => {
  const s = es256Steward();
  const payload = encodeCbor(receiptCore(s.did, 1));
  const prot = coseProtectedHeader(s.did, -7);
  await fc.assert(
    fc.asyncProperty(arbScalar, arbScalar, async (r, sv) => {
      const sig = Uint8Array.from([...be32(r), ...be32(sv)]);
      const rep = await both(encodeCbor([prot, new Map(), payload, sig]));
      assert.equal(rep.valid, false);
      const code = rep.steps.find((x) => x.step === "signature")!.code;
      const want = r === 0n || r >= P256_N
        ? "es256-r-range"
        : sv === 0n || sv >= P256_N
        ? "es256-s-range"
        : "bad-signature";
      assert.equal(code, want);
    }),
    { numRuns: 300 },
  );
});

Deno.test("es256: random p256-pub kids are refused with a did:key or P-256 code (property)", async () => {
  const codes = new Set<string>();
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.uint8Array({ minLength: 32, maxLength: 32 }), // compressed x: on the curve half the time
        fc.uint8Array({ minLength: 64, maxLength: 64 }), // uncompressed x ‖ y
        fc.uint8Array({ minLength: 0, maxLength: 70 }),
      ),
      fc.constantFrom(0x02, 0x03, 0x04, 0x00, 0x05),
      async (tail, tag) => {
        const kid = "did:key:z" + base58btcEncode(Uint8Array.of(0x80, 0x24, tag, ...tail));
        const payload = encodeCbor(receiptCore(kid, 1));
        const prot = coseProtectedHeader(kid, -7);
        const env = encodeCbor([prot, new Map(), payload, new Uint8Array(64).fill(1)]);
        const rep = await both(env);
        assert.equal(rep.valid, false);
        const code = rep.steps.find((x) => x.step === "signature")!.code!;
        codes.add(code);
        assert.ok(
          [
            "bad-did-key",
            "did-key-p256-uncompressed",
            "p256-key-encoding",
            "p256-key-not-on-curve",
            "bad-signature",
          ].includes(code),
          code,
        );
      },
    ),
    { numRuns: 300 },
  );
  assert.ok(
    codes.has("p256-key-encoding") && codes.has("p256-key-not-on-curve"),
    [...codes].join(),
  );
});
