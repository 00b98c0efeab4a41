// ES256 (docs/DECISIONS.md "ES256"): every case of Wycheproof's
// ecdsa_secp256r1_sha256_p1363_test.json (conformance/upstream/wycheproof/, with its provenance)
// goes through the WebCrypto path AND the pure path. Both must give the file's result: `valid`
// accepted, `invalid` refused; the file has no `acceptable` case (a new one would fail here until
// it is decided and documented). And the two paths must agree on every case, and with OpenSSL.
import assert from "node:assert/strict";
import { runPython } from "./_python.ts";
import {
  es256Backend,
  es256Verify,
  es256VerifyPure,
  fromHex,
  p256Compress,
  setWebCryptoEs256,
  toHex,
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
    assert.equal(es256Backend(), "webcrypto", "the WebCrypto path really ran");
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

// OpenSSL (Debian python3-cryptography) as an independent implementation of the same rule: with the
// r, s range checks first (SEC 1 §4.1.4 step 1), it must agree with ours on every case.
const PY_OPENSSL = `
import json, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
out = []
for c in json.load(sys.stdin):
    sig, msg, pub = (bytes.fromhex(c[k]) for k in ("sig", "msg", "pub"))
    ok = False
    if len(sig) == 64:
        r, s = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")
        if 0 < r < N and 0 < s < N:
            key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), pub)
            try:
                key.verify(encode_dss_signature(r, s), msg, ec.ECDSA(hashes.SHA256()))
                ok = True
            except InvalidSignature:
                pass
    out.append(ok)
print(json.dumps(out))
`;

Deno.test("wycheproof ecdsa_secp256r1_sha256_p1363: OpenSSL (python3-cryptography) agrees on every case", async () => {
  const cases = await loadCases();
  const theirs = await runPython(
    PY_OPENSSL,
    cases.map((c) => ({ sig: toHex(c.sig), msg: toHex(c.msg), pub: toHex(c.pub) })),
  ) as boolean[];
  const diff = cases.filter((c, i) => theirs[i] !== es256VerifyPure(c.sig, c.msg, c.pub));
  assert.deepEqual(diff.map((c) => c.id), []);
  assert.equal(theirs.filter(Boolean).length, cases.filter((c) => c.result === "valid").length);
});
