// The append figure under a rotating identity (issue 25; docs/KEYS.md), for the http suite: an
// identity is incepted and rotated once, then receipts whose steward is the identity and whose
// kid is its current key (not the identity's own) are appended in a closed loop. Each is judged
// twice: the verifier's kid = steward binding fails in the pool, the route reads the identity's
// chain and verifies it again under its current key, and the sequencer checks the chain's head
// once more in the batch's step. Compared in the same run with the plain closed loop, whose
// receipts' stewards have no chain (the sequencer's head read finds none).
import { receiptCore } from "../../fixtures/app.ts";
import {
  blake3,
  type CborMap,
  coseProtectedHeader,
  coseSigStructure,
  didKeyFromPublicKey,
  encodeCbor,
  fromJson,
} from "../../verify/mod.ts";
import type { Conn } from "./_conn.ts";

interface WebKey {
  pair: CryptoKeyPair;
  pub: Uint8Array;
  did: string;
}

async function webKey(): Promise<WebKey> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const pub = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { pair, pub, did: didKeyFromPublicKey(pub) };
}

async function seal(k: WebKey, payload: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const prot = coseProtectedHeader(k.did);
  const sig = new Uint8Array(
    await crypto.subtle.sign("Ed25519", k.pair.privateKey, coseSigStructure(prot, payload).slice()),
  );
  return encodeCbor([prot, new Map(), payload, sig]).slice();
}

async function postEvent(url: string, env: Uint8Array<ArrayBuffer>): Promise<void> {
  const r = await fetch(`${url}/v1/keys/events`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: env,
  });
  const body = await r.text();
  if (r.status !== 201) throw new Error(`Cannot bench keys: key event ${r.status} ${body}`);
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
}

/** A closed loop of receipts under a rotated identity for `ms` (or until `n` are spent). */
export async function rotatedIdentityLoop(
  o: {
    url: string;
    conns: Conn[];
    ms: number;
    n: number;
    /** The bytes of a POST of an envelope (http.ts appendRequest). */
    request: (envelope: Uint8Array) => Uint8Array;
  },
): Promise<Record<string, unknown>> {
  const [k0, k1, k2] = [await webKey(), await webKey(), await webKey()];
  const nonce = new Uint8Array(16);
  const inception = new Map<string, unknown>([
    ["identity", k0.did],
    ["seq", 0],
    ["current", k0.did],
    ["next_hash", blake3(k1.pub)],
    ["nonce", nonce],
  ]);
  const incPayload = encodeCbor(inception as CborMap);
  await postEvent(o.url, await seal(k0, incPayload));
  const rotation = new Map<string, unknown>([
    ["identity", k0.did],
    ["seq", 1],
    ["current", k1.did],
    ["next_hash", blake3(k2.pub)],
    ["parent", blake3(incPayload)],
    ["nonce", nonce],
  ]);
  await postEvent(o.url, await seal(k1, encodeCbor(rotation as CborMap)));
  const reqs: Uint8Array[] = [];
  for (let i = 0; i < o.n; i += 256) {
    reqs.push(
      ...await Promise.all(Array.from({ length: Math.min(256, o.n - i) }, async (_, j) => {
        const core = fromJson(receiptCore(k0.did, 1_000_000 + i + j)) as CborMap;
        return o.request(await seal(k1, encodeCbor(core)));
      })),
    );
  }
  let next = 0, done = 0;
  const lat: number[] = [];
  const t0 = performance.now();
  const end = t0 + o.ms;
  await Promise.all(o.conns.map(async (conn) => {
    while (performance.now() < end && next < reqs.length) {
      const req = reqs[next++];
      const t = performance.now();
      const { status, body } = await conn.send(req);
      if (status !== 201) {
        throw new Error(`Cannot bench keys: ${status} ${new TextDecoder().decode(body)}`);
      }
      lat.push(performance.now() - t);
      done++;
    }
  }));
  const s = (performance.now() - t0) / 1000;
  return {
    appends_per_s: Math.round(done / s),
    appends: done,
    seconds: Math.round(s * 100) / 100,
    ack_latency_ms: { p50: pct(lat, 50), p99: pct(lat, 99) },
    ran_out_of_envelopes: next >= reqs.length,
  };
}
