// verify/jcp_object.ts: JCP objects (key events, grants, revocations) read from their envelopes,
// their kind from their field names, their signer and signature checked.
import assert from "node:assert/strict";
import {
  blake3,
  type CborMap,
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  jcpObjectKind,
  jcpObjectSignatureProblem,
  readJcpObject,
  sealJcpObject,
  VerifyInputError,
} from "../../verify/mod.ts";

const secret = new Uint8Array(32).fill(7);
const other = new Uint8Array(32).fill(9);
const did = didKeyFromPublicKey(ed25519PublicKey(secret));
const nonce = new Uint8Array(16).fill(1);

function grant(issuer = did): CborMap {
  return new Map<string, unknown>([
    ["issuer", issuer],
    ["subject", didKeyFromPublicKey(ed25519PublicKey(other))],
    [
      "capability",
      new Map<string, unknown>([["resource", new Uint8Array(32)], ["actions", ["x"]]]),
    ],
    ["budget_uj", 1000],
    ["expiry", 0],
    ["nonce", nonce],
  ]) as CborMap;
}

Deno.test("jcp object: a grant, a revocation and a key event are read and verify", async () => {
  const g = sealJcpObject(grant(), secret);
  const go = readJcpObject(g)!;
  assert.equal(go.kind, "grant");
  assert.deepEqual(go.contentId, blake3(encodeCbor(grant())));
  assert.equal(await jcpObjectSignatureProblem(go), undefined);
  const r = readJcpObject(sealJcpObject(
    new Map<string, unknown>([["grant_id", go.contentId], ["revoked_by", did], [
      "nonce",
      nonce,
    ]]) as CborMap,
    secret,
  ))!;
  assert.equal(r.kind, "revocation");
  assert.equal(await jcpObjectSignatureProblem(r), undefined);
  const k = readJcpObject(sealJcpObject(
    new Map<string, unknown>([
      ["identity", did],
      ["seq", 0],
      ["current", did],
      ["next_hash", blake3(ed25519PublicKey(other))],
      ["nonce", nonce],
    ]) as CborMap,
    secret,
  ))!;
  assert.equal(k.kind, "key-event");
  assert.equal(await jcpObjectSignatureProblem(k), undefined);
});

Deno.test("jcp object: a wrong signer, a bad signature, wrong fields are refused", async () => {
  // issuer is not the kid
  const g = readJcpObject(
    sealJcpObject(grant(didKeyFromPublicKey(ed25519PublicKey(other))), secret),
  )!;
  assert.equal(await jcpObjectSignatureProblem(g), "jcp-object-signer");
  // a flipped signature bit
  const bytes = sealJcpObject(grant(), secret);
  bytes[bytes.length - 1] ^= 1;
  assert.equal(await jcpObjectSignatureProblem(readJcpObject(bytes)!), "jcp-object-bad-signature");
  // a revocation with an extra field; a grant without its budget; two kinds at once
  const extra = new Map<string, unknown>([["grant_id", new Uint8Array(32)], ["revoked_by", did], [
    "nonce",
    nonce,
  ], ["why", "x"]]) as CborMap;
  assert.throws(
    () => jcpObjectKind(extra),
    (e) => (e as VerifyInputError).code === "jcp-object-fields",
  );
  const noBudget = grant();
  noBudget.delete("budget_uj");
  assert.throws(() => readJcpObject(sealJcpObject(noBudget, secret)), /lacks `budget_uj`/);
  const both = grant();
  both.set("revoked_by", did);
  assert.throws(() => jcpObjectKind(both), /fields of a grant and a revocation/);
  // a receipt is not a JCP object
  assert.equal(
    jcpObjectKind(
      new Map<string, unknown>([["jcp_receipt", "jcp/2"], ["capability", 1]]) as CborMap,
    ),
    undefined,
  );
  // a payload that is not canonical (a float) is refused with its own code
  const f = coseSign1(new Uint8Array([0xa1, 0x61, 0x61, 0xf9, 0x3c, 0x00]), secret, did);
  assert.throws(
    () => readJcpObject(f),
    (e) => (e as VerifyInputError).code === "jcp-object-not-canonical",
  );
});
