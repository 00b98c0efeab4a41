// P-256 keys for ES256 kids (docs/DECISIONS.md "ES256"): did:key p256-pub (0x80 0x24, compressed
// point only) cross-checked with an independent base58btc in Python, every refusal with its own
// code, the key directory holding P-256 keys, and the signature step's kid/alg binding.
import assert from "node:assert/strict";
import {
  base58btcEncode,
  coseProtectedHeader,
  coseSign1,
  coseSign1Es256,
  coseSigStructure,
  didKeyFromP256PublicKey,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  es256Sign,
  KeyDirectory,
  p256PublicKey,
  publicKeyFromDidKey,
  resolveDidKey,
  toHex,
  verifyEnvelope,
} from "../../verify/mod.ts";
import { p256 } from "@noble/curves/nist.js";
import { codeOf } from "./_arb.ts";
import { runPython } from "./_python.ts";
import { receiptCore } from "../../fixtures/app.ts";

const PY = `
import json, sys
A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
def b58(b):
    n = int.from_bytes(b, "big"); s = ""
    while n: n, r = divmod(n, 58); s = A[r] + s
    return "1" * (len(b) - len(b.lstrip(b"\\0"))) + s
print(json.dumps(["did:key:z" + b58(bytes([0x80, 0x24]) + bytes.fromhex(h)) for h in json.load(sys.stdin)]))
`;

const keys = Array.from({ length: 12 }, (_, i) => p256PublicKey(new Uint8Array(32).fill(i + 1)));
const uncompressed = (pub: Uint8Array) => p256.Point.fromBytes(pub).toBytes(false);
const didOf = (raw: Uint8Array) => "did:key:z" + base58btcEncode(raw);

Deno.test("did:key p256-pub: matches an independent base58btc (Python), round-trips, zDn…", async () => {
  const ours = keys.map(didKeyFromP256PublicKey);
  const theirs = await runPython(PY, keys.map(toHex));
  assert.deepEqual(ours, theirs);
  for (const [i, did] of ours.entries()) {
    assert.ok(did.startsWith("did:key:zDn"), did);
    assert.deepEqual(resolveDidKey(did), { alg: -7, pub: keys[i] });
  }
  const ed = didKeyFromPublicKey(ed25519PublicKey(new Uint8Array(32).fill(1)));
  assert.equal(resolveDidKey(ed).alg, -8);
});

Deno.test("did:key p256-pub: each malformed key has its own code", () => {
  const k = keys[0];
  assert.equal(
    codeOf(() => resolveDidKey(didOf(Uint8Array.of(0x80, 0x24, ...uncompressed(k))))),
    "did-key-p256-uncompressed",
  );
  assert.equal(
    codeOf(() =>
      resolveDidKey(didOf(Uint8Array.of(0x80, 0x24, 0x02, ...new Uint8Array(32).fill(0xff))))
    ),
    "p256-key-encoding",
  );
  assert.equal(
    codeOf(() => resolveDidKey(didOf(Uint8Array.of(0x80, 0x24, 0x04, ...k.subarray(1))))),
    "p256-key-encoding",
  );
  assert.equal(
    codeOf(() => resolveDidKey(didOf(Uint8Array.of(0x80, 0x24, 0x00)))),
    "p256-key-encoding",
  );
  // an x with no point: flip x until the curve equation has no root
  let off: Uint8Array | undefined;
  for (let b = 0; b < 256 && !off; b++) {
    const c = Uint8Array.of(2, ...k.subarray(1));
    c[32] = b;
    try {
      p256.Point.fromBytes(c);
    } catch {
      off = c;
    }
  }
  assert.equal(
    codeOf(() => resolveDidKey(didOf(Uint8Array.of(0x80, 0x24, ...off!)))),
    "p256-key-not-on-curve",
  );
  assert.equal(
    codeOf(() => resolveDidKey(didOf(Uint8Array.of(0x80, 0x24, ...k, 0)))),
    "p256-key-encoding",
  );
  assert.equal(
    codeOf(() => resolveDidKey("did:key:z1" + didKeyFromP256PublicKey(k).slice(9))),
    "bad-did-key",
  );
  // the Ed25519-only reader refuses a P-256 did:key
  assert.equal(codeOf(() => publicKeyFromDidKey(didKeyFromP256PublicKey(k))), "bad-did-key");
});

Deno.test("key directory: P-256 keys as 66 or 130 hex or a did:key, held compressed", () => {
  const [a, b, c] = keys;
  const dir = new KeyDirectory({
    "did:keri:P256a": toHex(a),
    "did:keri:P256b": toHex(uncompressed(b)),
    "p256-named": didKeyFromP256PublicKey(c),
    "ed": toHex(ed25519PublicKey(new Uint8Array(32).fill(3))),
  });
  assert.deepEqual(dir.resolveTyped("did:keri:P256a"), { alg: -7, pub: a });
  assert.deepEqual(dir.resolveTyped("did:keri:P256b"), { alg: -7, pub: b });
  assert.deepEqual(dir.resolveTyped("p256-named"), { alg: -7, pub: c });
  assert.equal(dir.resolveTyped("ed")!.alg, -8);
  assert.deepEqual(dir.resolveTyped(didKeyFromP256PublicKey(a)), { alg: -7, pub: a });
  const notOnCurve = Uint8Array.of(4, ...uncompressed(a).subarray(1));
  notOnCurve[64] ^= 1;
  for (
    const v of [toHex(notOnCurve), "05" + toHex(a).slice(2), "02" + "ff".repeat(32), "00"]
  ) {
    assert.equal(codeOf(() => new KeyDirectory({ k: v })), "bad-key-directory", v);
  }
});

const stepOf = async (env: Uint8Array, keys?: KeyDirectory) =>
  (await verifyEnvelope(env, { keys })).steps.find((s) => s.step === "signature")!;

Deno.test("signature step: the kid's key type must match the alg (kid-alg-mismatch), both ways", async () => {
  const sk = new Uint8Array(32).fill(4);
  const p256Did = didKeyFromP256PublicKey(p256PublicKey(sk));
  const edDid = didKeyFromPublicKey(ed25519PublicKey(sk));
  // ES256 envelope, valid
  assert.equal(
    (await stepOf(coseSign1Es256(encodeCbor(receiptCore(p256Did, 1)), sk, p256Did))).status,
    "pass",
  );
  // alg -8 with a P-256 kid
  const core1 = encodeCbor(receiptCore(p256Did, 1));
  const h8 = coseProtectedHeader(p256Did, -8);
  const e1 = encodeCbor([h8, new Map(), core1, es256Sign(coseSigStructure(h8, core1), sk)]);
  assert.equal((await stepOf(e1)).code, "kid-alg-mismatch");
  // alg -7 with an Ed25519 kid
  const core2 = encodeCbor(receiptCore(edDid, 1));
  const ed = coseSign1(core2, sk, edDid);
  const h7 = coseProtectedHeader(edDid, -7);
  const e2 = encodeCbor([h7, new Map(), core2, ed.subarray(ed.length - 64)]);
  assert.equal((await stepOf(e2)).code, "kid-alg-mismatch");
  // a directory kid holding a P-256 key (given uncompressed) verifies ES256, refuses EdDSA
  const dir = new KeyDirectory({ "did:keri:Ep256": toHex(uncompressed(p256PublicKey(sk))) });
  const core3 = encodeCbor(receiptCore("did:keri:Ep256", 1));
  assert.equal((await stepOf(coseSign1Es256(core3, sk, "did:keri:Ep256"), dir)).status, "pass");
  assert.equal(
    (await stepOf(coseSign1(core3, sk, "did:keri:Ep256"), dir)).code,
    "kid-alg-mismatch",
  );
});
