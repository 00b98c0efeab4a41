// did:key (ARCHITECTURE Decision 4) cross-checked with an independent base58btc in Python, every
// refusal, and the operator key directory (JCR-1 §4: kid → key out of band).
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  base58btcDecode,
  base58btcEncode,
  didKeyFromPublicKey,
  ed25519PublicKey,
  KeyDirectory,
  publicKeyFromDidKey,
  toHex,
} from "../../verify/mod.ts";
import { codeOf } from "./_arb.ts";
import { runPython } from "./_python.ts";

const PY_DIDKEY = `
import json, sys
A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
def b58(b):
    n = int.from_bytes(b, "big"); s = ""
    while n: n, r = divmod(n, 58); s = A[r] + s
    return "1" * (len(b) - len(b.lstrip(b"\\0"))) + s
print(json.dumps(["did:key:z" + b58(bytes([0xed, 0x01]) + bytes.fromhex(h)) for h in json.load(sys.stdin)]))
`;

Deno.test("did:key: matches an independent base58btc (Python) and round-trips", async () => {
  const keys: Uint8Array[] = fc.sample(fc.uint8Array({ minLength: 32, maxLength: 32 }), 200);
  keys.push(new Uint8Array(32), new Uint8Array(32).fill(255), ed25519PublicKey(new Uint8Array(32)));
  const theirs = (await runPython(PY_DIDKEY, keys.map(toHex))) as string[];
  for (const [i, k] of keys.entries()) {
    const did = didKeyFromPublicKey(k);
    assert.equal(did, theirs[i], toHex(k));
    assert.ok(did.startsWith("did:key:z6Mk"), did); // 0xed01 prefix → "6Mk"
    assert.deepEqual(publicKeyFromDidKey(did), k);
  }
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 40 }),
      (b) => assert.deepEqual(base58btcDecode(base58btcEncode(b)), b),
    ),
  );
});

Deno.test("did:key: other multibase/codec/length and anything that does not round-trip is bad-did-key", () => {
  const good = didKeyFromPublicKey(new Uint8Array(32).fill(7));
  const body = good.slice("did:key:z".length);
  const b58 = (bytes: number[]) => base58btcEncode(new Uint8Array(bytes));
  const k32 = Array(32).fill(7);
  const bad = [
    "",
    "did:key:",
    "did:key:z",
    "did:web:example.com",
    "DID:KEY:z" + body,
    "did:key:Z" + body, // wrong multibase
    "did:key:f" + "ed01" + "07".repeat(32), // base16 multibase
    "did:key:m" + body,
    "did:key:z" + b58([0xe7, 0x01, ...k32, 1]), // secp256k1-pub codec
    "did:key:z" + b58([0xec, 0x01, ...k32]), // x25519-pub codec
    "did:key:z" + b58([0xed, 0x01, ...k32.slice(1)]), // 31-byte key
    "did:key:z" + b58([0xed, 0x01, ...k32, 0]), // 33-byte key
    "did:key:z" + b58([0xed, 0x81, 0x00, ...k32]), // non-minimal varint of 0xed
    "did:key:z1" + body, // leading "1": a zero byte before the codec
    good + "#" + body, // fragment
    good + "?x=1",
    good + " ",
    " " + good,
    good.slice(0, -1) + "0", // '0' is not in the alphabet
    good.slice(0, -1) + "l",
    good.slice(0, -1) + "\u00e9",
  ];
  for (const s of bad) {
    assert.equal(codeOf(() => publicKeyFromDidKey(s)), "bad-did-key", JSON.stringify(s));
  }
  assert.equal(codeOf(() => publicKeyFromDidKey(42 as unknown as string)), "bad-did-key");
  assert.equal(codeOf(() => didKeyFromPublicKey(new Uint8Array(31))), "bad-public-key");
});

Deno.test("key directory: did:key resolves itself; other kids only through operator keys", () => {
  const pubA = ed25519PublicKey(new Uint8Array(32).fill(1));
  const pubB = ed25519PublicKey(new Uint8Array(32).fill(2));
  const dir = new KeyDirectory({
    "did:keri:EJ9abc": toHex(pubA),
    "gw-steward": didKeyFromPublicKey(pubB),
  });
  assert.deepEqual(dir.resolve("did:keri:EJ9abc"), pubA);
  assert.deepEqual(dir.resolve("gw-steward"), pubB);
  assert.deepEqual(dir.resolve(didKeyFromPublicKey(pubA)), pubA);
  assert.equal(dir.resolve("did:keri:unknown"), undefined);
  assert.equal(dir.resolve("__proto__"), undefined);
  assert.equal(new KeyDirectory().resolve("did:keri:EJ9abc"), undefined);
  assert.equal(codeOf(() => dir.resolve("did:key:zNotAKey")), "bad-did-key");
  const copy = dir.resolve("did:keri:EJ9abc")!;
  copy[0] ^= 1;
  assert.deepEqual(dir.resolve("did:keri:EJ9abc"), pubA, "resolve hands out copies");
  assert.deepEqual(dir.kids(), ["did:keri:EJ9abc", "gw-steward"]);
  for (
    const entries of <Record<string, string>[]> [
      { [didKeyFromPublicKey(pubA)]: toHex(pubB) }, // a did:key kid cannot be overridden
      { k: toHex(pubA).toUpperCase() },
      { k: toHex(pubA).slice(2) },
      { k: "did:key:zBad" },
      { "": toHex(pubA) },
      { k: 5 as unknown as string },
    ]
  ) {
    assert.equal(
      codeOf(() => new KeyDirectory(entries)),
      "bad-key-directory",
      JSON.stringify(entries),
    );
  }
});
