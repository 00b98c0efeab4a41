// Issue 25 (docs/KEYS.md): a key event entry is a typed resource of the entry graphs (the export,
// the SPARQL store and the sync all build them with entryQuads): jc:KeyEvent with its identity,
// current key, next-key hash and parent, its class read from its fields (it carries no tag).
import assert from "node:assert/strict";
import { entryInputFromEnvelope, entryQuads, JC } from "../../vocab/mod.ts";
import {
  blake3,
  type CborMap,
  didKeyFromPublicKey,
  ed25519PublicKey,
  sealJcpObject,
} from "../../verify/mod.ts";

const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

Deno.test("vocab: a key event entry is a jc:KeyEvent node with its chain's fields", async () => {
  const k0 = new Uint8Array(32).fill(1), k1 = new Uint8Array(32).fill(2);
  const did = didKeyFromPublicKey(ed25519PublicKey(k0));
  const next = didKeyFromPublicKey(ed25519PublicKey(k1));
  const rotation = sealJcpObject(
    new Map<string, unknown>([
      ["identity", did],
      ["seq", 1],
      ["current", next],
      ["next_hash", blake3(new Uint8Array(32))],
      ["parent", blake3(new Uint8Array([1]))],
      ["nonce", new Uint8Array(16)],
    ]) as CborMap,
    k1,
  );
  const url = "https://log.example/v1/log/entries/7";
  const quads = await entryQuads(entryInputFromEnvelope(7, rotation, url));
  const about = (p: string) =>
    quads.filter((q) => q.subject.value === url && q.predicate.value === p).map((q) =>
      q.object.value
    );
  assert.deepEqual(about(RDF_TYPE), [JC + "KeyEvent"]);
  assert.deepEqual(about(JC + "identity"), [did]);
  assert.deepEqual(about(JC + "currentKey"), [next]);
  assert.equal(about(JC + "parent").length, 1);
  assert.deepEqual(about(JC + "logIndex"), ["7"]);
});
