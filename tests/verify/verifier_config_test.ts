// verify/verifier_config.ts (issue 23): a verifier-config/1 document seals and opens again, and
// every way a logged one can be wrong is refused with its code.
import assert from "node:assert/strict";
import {
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  KeyDirectory,
  openVerifierConfig,
  sameRules,
  sealVerifierConfig,
  verifierConfigCoreOf,
  type VerifierConfigDoc,
  verifierConfigRules,
} from "../../verify/mod.ts";

const secret = new Uint8Array(32).fill(7);
const operator = didKeyFromPublicKey(ed25519PublicKey(secret));
const rules = verifierConfigRules({
  keys: new KeyDirectory({ "did:keri:E1": "4f".repeat(32) }),
  gatewayKeys: { "gw-1": new Uint8Array([1, 2, 3]) },
  referenceVectors: { ["ab".repeat(32)]: { joules_uj: 2n ** 60n } },
}, { operator, appends: "open", stewards: [] });
const doc: VerifierConfigDoc = { jc_config: "verifier-config/1", seq: 1, ...rules };

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return "none";
};

Deno.test("verifier-config: seal, open, same rules; the gateway key is never in it", () => {
  const env = sealVerifierConfig(doc, secret);
  const back = openVerifierConfig(env);
  assert.deepEqual(back.gateways, ["gw-1"]);
  assert.equal(back.reference_vectors["ab".repeat(32)].joules_uj, String(2n ** 60n));
  assert.ok(sameRules(back, rules));
  assert.ok(!sameRules(back, { ...rules, gateways: [] }));
  assert.ok(verifierConfigCoreOf(env));
  assert.equal(new TextDecoder("latin1").decode(env).includes("\x01\x02\x03"), false);
});

Deno.test("verifier-config: every fault of a logged document has its code", () => {
  const env = sealVerifierConfig(doc, secret);
  const bad = env.slice();
  bad[bad.length - 1] ^= 1;
  assert.equal(code(() => openVerifierConfig(bad)), "verifier-config-bad-signature");
  const other = new Uint8Array(32).fill(9);
  assert.equal(
    code(() => openVerifierConfig(sealVerifierConfig(doc, other))),
    "verifier-config-bad-signature",
    "signed by another key than the operator it names",
  );
  assert.equal(
    code(() => openVerifierConfig(sealVerifierConfig({ ...doc, seq: 2 }, secret))),
    "bad-verifier-config",
    "seq 2 without previous",
  );
  const extra = coseSign1(encodeCbor({ ...doc, extra: "x" }), secret, operator);
  assert.equal(code(() => openVerifierConfig(extra)), "bad-verifier-config");
  const receipt = coseSign1(encodeCbor({ jc_receipt: "1" }), secret, operator);
  assert.equal(verifierConfigCoreOf(receipt), undefined);
  assert.equal(code(() => openVerifierConfig(receipt)), "not-verifier-config");
});
