// verify/sha256.ts: SHA-256 and HMAC-SHA-256 against WebCrypto (an independent implementation) on
// every length around the 64-byte block and the 55/56-byte padding boundary, RFC 4231's test
// cases, FIPS 180-4's examples, and the keyed-state cache when a key array is refilled.
import assert from "node:assert/strict";
import fc from "fast-check";
import { hmacSha256, sha256 } from "../../verify/sha256.ts";
import { toHex } from "../../verify/mod.ts";

const enc = new TextEncoder();

async function webSha256(b: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", b.slice())));
}

async function webHmac(key: Uint8Array, msg: Uint8Array): Promise<string> {
  const k = await crypto.subtle.importKey(
    "raw",
    key.slice(),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", k, msg.slice())));
}

Deno.test("sha256: FIPS 180-4 examples and every length 0..300 equal WebCrypto", async () => {
  assert.equal(
    toHex(sha256(new Uint8Array())),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    toHex(sha256(enc.encode("abc"))),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    toHex(sha256(enc.encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  const buf = crypto.getRandomValues(new Uint8Array(300));
  for (let n = 0; n <= 300; n++) {
    assert.equal(toHex(sha256(buf.subarray(0, n))), await webSha256(buf.subarray(0, n)), `${n}`);
  }
  const big = new Uint8Array(70_000).map((_, i) => (i * 131) & 255); // many whole blocks
  assert.equal(toHex(sha256(big)), await webSha256(big));
  const view = big.subarray(13, 13 + 1000); // whole blocks read through a view at an odd offset
  assert.equal(toHex(sha256(view)), await webSha256(view));
});

Deno.test("hmacSha256: RFC 4231 test cases 1, 2 and 6", () => {
  const cases: [Uint8Array, string, string][] = [
    [
      new Uint8Array(20).fill(0x0b),
      "Hi There",
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    ],
    [
      enc.encode("Jefe"),
      "what do ya want for nothing?",
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ],
    [
      new Uint8Array(131).fill(0xaa), // longer than the block: hashed first
      "Test Using Larger Than Block-Size Key - Hash Key First",
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ],
  ];
  for (const [key, msg, want] of cases) assert.equal(toHex(hmacSha256(key, enc.encode(msg))), want);
});

Deno.test("hmacSha256: equals WebCrypto HMAC for keys and messages of every size class (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 80 }),
        fc.constantFrom(63, 64, 65, 128, 200).map((n) => crypto.getRandomValues(new Uint8Array(n))),
      ),
      fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom(0, 55, 56, 63, 64, 119, 120).map((n) => new Uint8Array(n).fill(n)),
      ),
      async (key, msg) => {
        assert.equal(toHex(hmacSha256(key, msg)), await webHmac(key, msg));
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("hmacSha256: a key array refilled in place is re-keyed, never served from the cache", async () => {
  const key = new Uint8Array(32).fill(1);
  const msg = enc.encode("payload");
  const first = toHex(hmacSha256(key, msg));
  key.fill(2);
  assert.equal(toHex(hmacSha256(key, msg)), await webHmac(key, msg));
  assert.notEqual(toHex(hmacSha256(key, msg)), first);
  assert.throws(() => hmacSha256([1] as unknown as Uint8Array, msg), TypeError);
  assert.throws(() => sha256("abc" as unknown as Uint8Array), TypeError);
});

Deno.test("checkToolReceiptHmac: the synchronous check answers and refuses exactly as verifyToolReceiptHmac", async () => {
  const { checkToolReceiptHmac, computeToolReceiptHmac, verifyToolReceiptHmac } = await import(
    "../../verify/mod.ts"
  );
  const key = new Uint8Array(32).fill(9);
  const f = {
    tool_id: "iac:aws.ec2.describe",
    joules_uj: 4200n,
    energy_provenance: "HwShunt",
    minted_at: "2026-05-31T18:04:22Z",
    gateway_id: "gw-edge-7",
  };
  const tag = await computeToolReceiptHmac(key, f);
  const other = tag.slice(0, 63) + (tag[63] === "0" ? "1" : "0");
  const cases: [Uint8Array, typeof f, string][] = [
    [key, f, tag],
    [key, f, other],
    [key, f, tag.toUpperCase()],
    [key, { ...f, tool_id: "a\0b" }, tag],
    [key, { ...f, energy_provenance: "Guess" }, tag],
    [key, { ...f, joules_uj: -1n }, tag],
    [new Uint8Array(), f, tag],
    [new Uint8Array(), { ...f, tool_id: "a\0b" }, tag], // the payload's code comes first
  ];
  const code = (e: unknown) => (e as { code: string }).code;
  for (const [k, fields, t] of cases) {
    let sync: unknown, async: unknown;
    try {
      sync = checkToolReceiptHmac(k, fields, t);
    } catch (e) {
      sync = code(e);
    }
    try {
      async = await verifyToolReceiptHmac(k, fields, t);
    } catch (e) {
      async = code(e);
    }
    assert.equal(sync, async);
  }
  assert.equal(checkToolReceiptHmac(key, f, tag), true);
  assert.equal(checkToolReceiptHmac(key, f, other), false);
});
