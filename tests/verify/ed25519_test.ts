// Strict cofactorless Ed25519 (ARCHITECTURE Decision 3): the identity-key forgery, the small-order
// table derived independently from curve arithmetic, S >= L, and sign/verify/bit-flip properties on
// both paths.
import assert from "node:assert/strict";
import fc from "fast-check";
import { getPublicKey as noblePublicKey, Point, sign as nobleSign } from "@noble/ed25519";
import {
  ed25519Backend,
  ed25519PublicKey,
  ed25519Sign,
  ed25519StrictPrecheck,
  ed25519Verify,
  ed25519VerifyPure,
  fromHex,
  setWebCryptoEd25519,
  SMALL_ORDER_ENCODINGS,
  SMALL_ORDER_NONCANONICAL,
  toHex,
} from "../../verify/mod.ts";

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const enc = new TextEncoder();

Deno.test("ed25519: the identity key with R = identity, S = 0 (a universal forgery) is refused on both paths", async () => {
  const identity = fromHex("0100000000000000000000000000000000000000000000000000000000000000");
  const sig = new Uint8Array(64);
  sig.set(identity, 0); // R = identity, S = 0: [0]B = I + [k]I holds for EVERY message
  for (const m of ["", "pay 1000000 to mallory", "\u0000"]) {
    const msg = enc.encode(m);
    assert.equal(
      await ed25519Verify(sig, msg, identity),
      false,
      `fast path accepted forgery on ${JSON.stringify(m)}`,
    );
    assert.equal(
      ed25519VerifyPure(sig, msg, identity),
      false,
      `pure path accepted forgery on ${JSON.stringify(m)}`,
    );
  }
  // the same forgery with an all-zero R (order-4 point) and with non-canonical identity encodings
  for (const r of [...SMALL_ORDER_ENCODINGS, ...SMALL_ORDER_NONCANONICAL].map(fromHex)) {
    const s = new Uint8Array(64);
    s.set(r, 0);
    assert.equal(await ed25519Verify(s, enc.encode("x"), identity), false, `R=${toHex(r)}`);
    assert.equal(ed25519VerifyPure(s, enc.encode("x"), identity), false, `R=${toHex(r)}`);
  }
});

Deno.test("ed25519: the small-order table equals E[8] computed from curve arithmetic", () => {
  // an order-8 point; its multiples 0..7 are the whole torsion subgroup
  const t8 = Point.fromBytes(
    fromHex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
  );
  assert.ok(!t8.multiply(4n, false).is0() && t8.multiply(8n, false).is0(), "point has order 8");
  const derived = new Set<string>();
  for (let i = 0n; i < 8n; i++) derived.add(t8.multiply(i, false).toHex());
  assert.equal(derived.size, 8);
  assert.deepEqual(new Set(SMALL_ORDER_ENCODINGS), derived);
  // the non-canonical list: each decodes leniently (ZIP-215 rules) to a small-order point, is not
  // the canonical encoding of it, and is refused by the strict pre-check as A and as R
  const good = ed25519Sign(enc.encode("m"), new Uint8Array(32).fill(1));
  const goodPub = ed25519PublicKey(new Uint8Array(32).fill(1));
  for (const e of SMALL_ORDER_NONCANONICAL.map(fromHex)) {
    const p = Point.fromBytes(e, true);
    assert.ok(p.isSmallOrder(), `${toHex(e)} is small order`);
    assert.notEqual(p.toHex(), toHex(e), `${toHex(e)} is non-canonical`);
    assert.throws(
      () => Point.fromBytes(e, false),
      Error,
      `${toHex(e)} strict decoding refuses`,
    );
    const asR = good.slice();
    asR.set(e, 0);
    assert.equal(ed25519StrictPrecheck(asR, goodPub), false);
    assert.equal(ed25519StrictPrecheck(good, e), false);
  }
  // and every 32-byte string with y >= p is refused even when it is not a small-order encoding
  for (let low = 0xed; low <= 0xff; low++) {
    const e = new Uint8Array(32).fill(0xff);
    e[0] = low;
    e[31] = 0x7f;
    assert.equal(ed25519StrictPrecheck(good, e), false, `y = ${low - 0xed} + p`);
  }
});

Deno.test("ed25519: S >= L is refused (malleability), S < L accepted", async () => {
  const sk = new Uint8Array(32).fill(9);
  const pub = ed25519PublicKey(sk);
  const msg = enc.encode("receipt");
  const sig = ed25519Sign(msg, sk);
  let s = 0n;
  for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]);
  const bumped = sig.slice();
  let t = s + L; // the same scalar mod L: a cofactorless check without S < L would accept it
  for (let i = 0; i < 32; i++, t >>= 8n) bumped[32 + i] = Number(t & 0xffn);
  assert.equal(await ed25519Verify(sig, msg, pub), true);
  assert.equal(await ed25519Verify(bumped, msg, pub), false);
  assert.equal(ed25519VerifyPure(bumped, msg, pub), false);
});

Deno.test("ed25519: wrong lengths give false, wrong types throw TypeError", async () => {
  const pub = ed25519PublicKey(new Uint8Array(32));
  const sig = ed25519Sign(new Uint8Array(), new Uint8Array(32));
  assert.equal(await ed25519Verify(sig.subarray(0, 63), new Uint8Array(), pub), false);
  assert.equal(ed25519VerifyPure(sig, new Uint8Array(), pub.subarray(0, 31)), false);
  await assert.rejects(
    () => ed25519Verify("x" as unknown as Uint8Array, new Uint8Array(), pub),
    TypeError,
  );
  assert.throws(() => ed25519Sign(new Uint8Array(), new Uint8Array(31)), TypeError);
});

Deno.test("ed25519: signatures and public keys are @noble/ed25519's and WebCrypto's, a reused seed array refilled included (property)", async () => {
  const seed = new Uint8Array(32); // one array refilled each run: the expanded-key cache must notice
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ maxLength: 300 }),
      async (sk, msg) => {
        seed.set(sk);
        assert.equal(toHex(ed25519PublicKey(seed)), toHex(noblePublicKey(sk)));
        assert.equal(toHex(ed25519Sign(msg, seed)), toHex(nobleSign(msg, sk)));
        // RFC 8032 signatures are deterministic: WebCrypto's from the same seed is the same bytes
        const pkcs8 = new Uint8Array([...fromHex("302e020100300506032b657004220420"), ...sk]);
        const key = await crypto.subtle.importKey("pkcs8", pkcs8, "Ed25519", false, ["sign"]);
        const web = new Uint8Array(await crypto.subtle.sign("Ed25519", key, msg));
        assert.equal(toHex(ed25519Sign(msg, sk)), toHex(web));
      },
    ),
    { numRuns: 80 },
  );
});

Deno.test("ed25519: sign/verify and single-bit flips agree on both paths (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ maxLength: 200 }),
      fc.nat(64 * 8 - 1),
      async (sk, msg, bit) => {
        const pub = ed25519PublicKey(sk);
        const sig = ed25519Sign(msg, sk);
        assert.equal(await ed25519Verify(sig, msg, pub), true);
        assert.equal(ed25519VerifyPure(sig, msg, pub), true);
        const bad = sig.slice();
        bad[bit >> 3] ^= 1 << (bit & 7);
        assert.equal(await ed25519Verify(bad, msg, pub), false);
        assert.equal(ed25519VerifyPure(bad, msg, pub), false);
        const badPub = pub.slice();
        badPub[bit % 32] ^= 1 << (bit & 7);
        assert.equal(await ed25519Verify(sig, msg, badPub), ed25519VerifyPure(sig, msg, badPub));
        assert.equal(ed25519VerifyPure(sig, msg, badPub), false);
      },
    ),
    { numRuns: 60 },
  );
  assert.equal(ed25519Backend(), "webcrypto", "the fast path really ran WebCrypto in Deno");
});

Deno.test("ed25519: forcing the pure path in ed25519Verify gives the same answers", async () => {
  const sk = new Uint8Array(32).fill(3);
  const pub = ed25519PublicKey(sk);
  const msg = enc.encode("m");
  const sig = ed25519Sign(msg, sk);
  try {
    setWebCryptoEd25519(false);
    assert.equal(ed25519Backend(), "pure");
    assert.equal(await ed25519Verify(sig, msg, pub), true);
    assert.equal(await ed25519Verify(sig, enc.encode("n"), pub), false);
  } finally {
    setWebCryptoEd25519(true);
  }
  assert.equal(await ed25519Verify(sig, msg, pub), true);
  assert.equal(ed25519Backend(), "webcrypto");
});
