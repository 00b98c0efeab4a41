// COSE_Sign1 in the Decision 2 profile: every refusal with its distinct code, tag-18 handling,
// Sig_structure and signature cross-checked with cbor2 + libsodium (Python), and 10^5 random
// mutations of valid envelopes through parseCoseSign1 + decodeCbor(payload) with only typed errors.
import assert from "node:assert/strict";
import {
  CborError,
  coseProtectedHeader,
  coseSign1,
  coseSigStructure,
  decodeCbor,
  didKeyFromPublicKey,
  ed25519PublicKey,
  ed25519Verify,
  encodeCbor,
  fromHex,
  parseCoseSign1,
  toHex,
  VerifyInputError,
} from "../../verify/mod.ts";
import { codeOf } from "./_arb.ts";
import type { CborValue } from "../../verify/mod.ts";
import { runPython } from "./_python.ts";

const secret = new Uint8Array(32).map((_, i) => i + 1);
const kid = didKeyFromPublicKey(ed25519PublicKey(secret));
const core = encodeCbor({
  jc_receipt: "1",
  id: "rcpt-1",
  joules_uj: 4200n,
  tier: "L1",
  tools_touched: [],
});

/** Build an envelope from parts (canonically encoded outer array). */
const env = (...parts: unknown[]) => encodeCbor(parts as CborValue[]);
const prot = (m: Map<number, CborValue>) => encodeCbor(m);
const goodProt = coseProtectedHeader(kid);
const sig64 = new Uint8Array(64);

Deno.test("cose: a signed envelope parses, and its signature verifies over Sig_structure", async () => {
  const e = coseSign1(core, secret, kid);
  const p = parseCoseSign1(e);
  assert.equal(p.kid, kid);
  assert.equal(p.tagged, false);
  assert.deepEqual(p.payload, core);
  assert.deepEqual(p.protectedBytes, goodProt);
  assert.equal(toHex(goodProt).slice(0, 10), "a201270478"); // {1: -8, 4: tstr(56)}
  assert.ok(
    await ed25519Verify(
      p.signature,
      coseSigStructure(p.protectedBytes, p.payload),
      ed25519PublicKey(secret),
    ),
  );
  const t = parseCoseSign1(new Uint8Array([0xd2, ...e]));
  assert.equal(t.tagged, true);
  assert.deepEqual(t.signature, p.signature);
});

Deno.test("cose: Sig_structure and signature agree with cbor2 + libsodium", async () => {
  const e = coseSign1(core, secret, kid);
  const [ok] = (await runPython(
    `
import json, sys, cbor2
from nacl.signing import VerifyKey
out = []
for c in json.load(sys.stdin):
    prot, unprot, payload, sig = cbor2.loads(bytes.fromhex(c["env"]))
    tbs = cbor2.dumps(["Signature1", prot, b"", payload], canonical=True)
    assert cbor2.loads(prot) == {1: -8, 4: c["kid"]} and unprot == {}
    VerifyKey(bytes.fromhex(c["pub"])).verify(tbs, sig)
    out.append(tbs.hex() == c["tbs"])
print(json.dumps(out))
`,
    [{
      env: toHex(e),
      kid,
      pub: toHex(ed25519PublicKey(secret)),
      tbs: toHex(coseSigStructure(goodProt, core)),
    }],
  )) as boolean[];
  assert.equal(ok, true);
});

Deno.test("cose: each malformation has its own stable code", () => {
  const m = (entries: [number, CborValue][]) => new Map<number, CborValue>(entries);
  const cases: [string, Uint8Array, string][] = [
    [
      "other tag (17, COSE_Mac0)",
      new Uint8Array([0xd1, ...env(goodProt, new Map(), core, sig64)]),
      "cose-wrong-tag",
    ],
    [
      "tag 18 in a 2-byte head",
      new Uint8Array([0xd8, 0x12, ...env(goodProt, new Map(), core, sig64)]),
      "cose-wrong-tag",
    ],
    ["two tags 18", new Uint8Array([0xd2, 0xd2, ...env(goodProt, new Map(), core, sig64)]), "tag"],
    ["a map", encodeCbor({ a: 1 }), "cose-not-array"],
    ["3 items", env(goodProt, new Map(), core), "cose-not-array"],
    ["5 items", env(goodProt, new Map(), core, sig64, 0), "cose-not-array"],
    [
      "protected as a map",
      env(m([[1, -8], [4, kid]]), new Map(), core, sig64),
      "cose-protected-not-bstr",
    ],
    [
      "protected unsorted",
      env(fromHex("a2046161" + "0127"), new Map(), core, sig64),
      "cose-protected-not-canonical",
    ],
    [
      "protected non-shortest",
      env(fromHex("a2" + "1801" + "27" + "04" + "6161"), new Map(), core, sig64),
      "cose-protected-not-canonical",
    ],
    [
      "protected trailing byte",
      env(new Uint8Array([...goodProt, 0]), new Map(), core, sig64),
      "cose-protected-not-canonical",
    ],
    ["protected empty bstr", env(new Uint8Array(), new Map(), core, sig64), "cose-protected-keys"],
    ["protected only alg", env(prot(m([[1, -8]])), new Map(), core, sig64), "cose-protected-keys"],
    [
      "protected extra key",
      env(prot(m([[1, -8], [4, kid], [3, 0]])), new Map(), core, sig64),
      "cose-protected-keys",
    ],
    [
      "protected text keys",
      env(encodeCbor({ "1": -8, "4": kid }), new Map(), core, sig64),
      "cose-protected-keys",
    ],
    [
      "protected an array",
      env(encodeCbor([-8, kid]), new Map(), core, sig64),
      "cose-protected-keys",
    ],
    [
      "alg ES256, signature 63 bytes",
      env(prot(m([[1, -7], [4, kid]])), new Map(), core, new Uint8Array(63)),
      "cose-bad-signature",
    ],
    ["alg -6", env(prot(m([[1, -6], [4, kid]])), new Map(), core, sig64), "cose-bad-alg"],
    ["alg -35", env(prot(m([[1, -35], [4, kid]])), new Map(), core, sig64), "cose-bad-alg"],
    ["alg as text", env(prot(m([[1, "EdDSA"], [4, kid]])), new Map(), core, sig64), "cose-bad-alg"],
    [
      "kid as bstr",
      env(prot(m([[1, -8], [4, new TextEncoder().encode(kid)]])), new Map(), core, sig64),
      "cose-kid-not-text",
    ],
    [
      "unprotected with kid",
      env(goodProt, m([[4, kid]]), core, sig64),
      "cose-unprotected-not-empty",
    ],
    ["unprotected an array", env(goodProt, [], core, sig64), "cose-unprotected-not-empty"],
    ["payload as text", env(goodProt, new Map(), "core", sig64), "cose-payload-not-bstr"],
    ["payload as map", env(goodProt, new Map(), new Map(), sig64), "cose-payload-not-bstr"],
    [
      "payload nil (detached)",
      fromHex(
        "84" + "58" + toHex(new Uint8Array([goodProt.length])) + toHex(goodProt) + "a0f65840" +
          "00".repeat(64),
      ),
      "simple-value",
    ],
    [
      "signature 63 bytes",
      env(goodProt, new Map(), core, new Uint8Array(63)),
      "cose-bad-signature",
    ],
    [
      "signature 65 bytes",
      env(goodProt, new Map(), core, new Uint8Array(65)),
      "cose-bad-signature",
    ],
    ["signature as text", env(goodProt, new Map(), core, "x".repeat(64)), "cose-bad-signature"],
    [
      "outer non-canonical",
      fromHex("98" + "04" + toHex(env(goodProt, new Map(), core, sig64)).slice(2)),
      "non-shortest-head",
    ],
    ["empty input", new Uint8Array(), "truncated"],
  ];
  for (const [why, bytes, want] of cases) {
    assert.equal(codeOf(() => parseCoseSign1(bytes)), want, why);
  }
  // the accepted control for the same builders
  assert.equal(codeOf(() => parseCoseSign1(env(goodProt, new Map(), core, sig64))), "accepted");
});

/** xorshift32: a fast deterministic PRNG for the mutation loop. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

Deno.test("cose: 10^5 random mutations of valid envelopes raise only CborError/VerifyInputError", () => {
  const bases = [
    coseSign1(core, secret, kid),
    new Uint8Array([
      0xd2,
      ...coseSign1(
        encodeCbor({ a: [1, 2n ** 60n, "\u00e9"], b: { c: new Uint8Array(3) } }),
        secret,
        "did:keri:EJ9",
      ),
    ]),
    coseSign1(new Uint8Array(), secret, ""),
  ];
  const r = rng(0x5eed);
  const outcomes = new Map<string, number>();
  const N = 100_000;
  for (let i = 0; i < N; i++) {
    const base = bases[i % bases.length];
    let b = base.slice();
    for (let k = 1 + r(4); k > 0; k--) {
      const op = r(6);
      const at = r(b.length + 1);
      if (op === 0 && b.length) b[at % b.length] ^= 1 << r(8); // bit flip
      else if (op === 1 && b.length) b[at % b.length] = r(256); // byte set
      else if (op === 2) b = new Uint8Array([...b.subarray(0, at), r(256), ...b.subarray(at)]); // insert
      else if (op === 3 && b.length) {
        b = new Uint8Array([...b.subarray(0, at % b.length), ...b.subarray((at % b.length) + 1)]);
      } else if (op === 4) b = b.slice(0, at); // truncate
      else {
        const from = r(b.length + 1);
        const len = r(9);
        b = new Uint8Array([
          ...b.subarray(0, at),
          ...b.subarray(from, from + len),
          ...b.subarray(at),
        ]); // duplicate a slice
      }
    }
    let outcome = "accepted";
    try {
      const p = parseCoseSign1(b);
      decodeCbor(p.payload);
    } catch (e) {
      if (!(e instanceof CborError) && !(e instanceof VerifyInputError)) {
        throw new Error(`mutation ${i} (${toHex(b)}) raised an untyped ${e}`);
      }
      outcome = e.code;
    }
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  assert.ok(outcomes.size >= 15, `mutations reach many refusal classes: ${[...outcomes.keys()]}`);
});
