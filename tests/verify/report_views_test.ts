// verifyEnvelope reads the caller's envelope only before its first await (the parser hands it
// views, verify/cose.ts parseCoseSign1Views): a caller that reuses its buffer as soon as the call
// returns a promise must get the report of the bytes it passed — on the cached-key path and on the
// first-use path that awaits a WebCrypto key import.
import assert from "node:assert/strict";
import {
  type CborMap,
  coseSign1,
  decodeCbor,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  entryLeafHash,
  fromHex,
  optionsFromConfig,
  parseCoseSign1,
  toHex,
  verifyEnvelope,
} from "../../verify/mod.ts";

const dir = new URL("../../conformance/vectors/", import.meta.url);
const opts = optionsFromConfig(
  JSON.parse(await Deno.readTextFile(new URL("operator-config.json", dir))),
);
const positives: Uint8Array[] = JSON.parse(await Deno.readTextFile(new URL("jcr1.json", dir)))
  .vectors.filter((v: { expected: { valid: boolean } }) => v.expected.valid)
  .map((v: { cose_sign1_hex: string }) => fromHex(v.cose_sign1_hex));

async function reportAfterOverwrite(envelope: Uint8Array) {
  const mine = envelope.slice();
  const pending = verifyEnvelope(mine, opts);
  mine.fill(0); // the caller reuses its buffer at once
  return await pending;
}

Deno.test("report: overwriting the envelope after the call changes nothing (cached key)", async () => {
  for (const e of positives) {
    const before = await verifyEnvelope(e, opts); // warms the key cache
    const after = await reportAfterOverwrite(e);
    assert.equal(after.valid, true);
    assert.deepEqual(after, before);
    assert.equal(after.leaf_hash, toHex(entryLeafHash(e)));
  }
});

Deno.test("report: overwriting the envelope after the call changes nothing (first use of a key)", async () => {
  // a positive JCR-1 core re-sealed by a steward this process has never seen
  const core = decodeCbor(parseCoseSign1(positives[0]).payload) as CborMap;
  for (let i = 0; i < 3; i++) {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const kid = didKeyFromPublicKey(ed25519PublicKey(secret));
    core.set("steward", kid);
    const e = coseSign1(encodeCbor(core), secret, kid);
    const r = await reportAfterOverwrite(e);
    assert.equal(r.valid, true, JSON.stringify(r.steps));
    assert.equal(r.steward, kid);
    assert.equal(r.leaf_hash, toHex(entryLeafHash(e)));
    assert.deepEqual(r, await verifyEnvelope(e, opts));
  }
});
