// ES256 (docs/DECISIONS.md "ES256"): every case of Wycheproof's
// ecdsa_secp256r1_sha256_p1363_test.json (conformance/upstream/wycheproof/, with its provenance)
// goes through the WebCrypto path AND the pure path. Both must give the file's result: `valid`
// accepted, `invalid` refused; the file has no `acceptable` case (a new one would fail here until
// it is decided and documented). And the two paths must agree on every case.
import assert from "node:assert/strict";
import {
  es256Verify,
  es256VerifyPure,
  fromHex,
  p256Compress,
  setWebCryptoEs256,
} from "../../verify/mod.ts";

interface Case {
  id: string;
  msg: Uint8Array;
  pub: Uint8Array;
  sig: Uint8Array;
  result: "valid" | "invalid" | "acceptable";
}

const FILE = new URL(
  "../../conformance/upstream/wycheproof/ecdsa_secp256r1_sha256_p1363_test.json",
  import.meta.url,
);

async function loadCases(): Promise<Case[]> {
  const wy = JSON.parse(await Deno.readTextFile(FILE));
  const out: Case[] = [];
  for (const g of wy.testGroups) {
    for (const t of g.tests) {
      out.push({
        id: `tcId ${t.tcId} (${t.comment || t.flags.join(",")})`,
        msg: fromHex(t.msg),
        pub: fromHex(g.publicKey.uncompressed),
        sig: fromHex(t.sig),
        result: t.result,
      });
    }
  }
  assert.equal(out.length, wy.numberOfTests);
  return out;
}

Deno.test("wycheproof ecdsa_secp256r1_sha256_p1363: 262 cases, none acceptable", async () => {
  const cases = await loadCases();
  assert.equal(cases.length, 262);
  assert.deepEqual(cases.filter((c) => c.result === "acceptable").map((c) => c.id), []);
  assert.ok(cases.filter((c) => c.result === "valid").length > 100);
  assert.ok(cases.filter((c) => c.result === "invalid").length > 50);
});

Deno.test("wycheproof ecdsa_secp256r1_sha256_p1363: both paths give every stated result", async () => {
  const cases = await loadCases();
  const wrong: string[] = [];
  setWebCryptoEs256(true);
  try {
    for (const c of cases) {
      const want = c.result === "valid";
      const pure = es256VerifyPure(c.sig, c.msg, c.pub);
      const web = await es256Verify(c.sig, c.msg, c.pub);
      // the same key given compressed (the did:key form) must answer the same
      const pure33 = es256VerifyPure(c.sig, c.msg, p256Compress(c.pub));
      const web33 = await es256Verify(c.sig, c.msg, p256Compress(c.pub));
      if (pure !== want || web !== want || pure33 !== want || web33 !== want) {
        wrong.push(`${c.id}: want ${want}, pure ${pure}/${pure33}, webcrypto ${web}/${web33}`);
      }
    }
  } finally {
    setWebCryptoEs256(true);
  }
  assert.deepEqual(wrong, []);
});

Deno.test("es256Verify with WebCrypto disabled answers as the pure path", async () => {
  const cases = await loadCases();
  setWebCryptoEs256(false);
  try {
    for (const c of cases.slice(0, 40)) {
      assert.equal(await es256Verify(c.sig, c.msg, c.pub), c.result === "valid", c.id);
    }
  } finally {
    setWebCryptoEs256(true);
  }
});
