// Test fixtures: valid JCR-1 envelopes made with verify's own signer, an app over a memory log,
// and a fetch that routes to the app in-process (so the checking client runs unchanged).
import {
  blake3,
  coseSign1,
  coseSign1Es256,
  didKeyFromP256PublicKey,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  p256PublicKey,
  toHex,
} from "../../verify/mod.ts";
import { openMemoryLog } from "../../log/mod.ts";
import type { Log } from "../../log/mod.ts";
import { createApp, Metrics, resolveConfig, verifierOptions } from "../../api/mod.ts";
import type { AppDeps, ServiceConfig } from "../../api/mod.ts";

/** A steward with a fixed key. */
export function steward(seed = 7) {
  const secret = new Uint8Array(32).fill(seed);
  const did = didKeyFromPublicKey(ed25519PublicKey(secret));
  return { secret, did };
}

/** The canonical core of a valid JCR-1 receipt number `n`. */
export function receiptCore(did: string, n: number): Record<string, unknown> {
  return {
    jc_receipt: "1",
    id: `rcpt-${n}`,
    closed_at: "2026-05-31T18:04:22Z",
    input_hash: toHex(blake3(new TextEncoder().encode(`input ${n}`))),
    tier: "L1",
    joules_uj: 4200 + n,
    energy_provenance: "HwShunt",
    steward: did,
    tools_touched: [{
      tool_id: "iac:aws.ec2.describe",
      joules_uj: 4200,
      energy_provenance: "HwShunt",
    }],
  };
}

/** A valid envelope (receipt `n`, signed by `s`). */
export function validEnvelope(n: number, s = steward()): Uint8Array<ArrayBuffer> {
  return coseSign1(encodeCbor(receiptCore(s.did, n)), s.secret, s.did).slice();
}

/** A steward with a fixed P-256 key (ES256, a did:key p256-pub kid). */
export function es256Steward(seed = 7) {
  const secret = new Uint8Array(32).fill(seed);
  const did = didKeyFromP256PublicKey(p256PublicKey(secret));
  return { secret, did };
}

/** A valid ES256 envelope (receipt `n`, signed by the P-256 steward `s`). */
export function validEs256Envelope(n: number, s = es256Steward()): Uint8Array<ArrayBuffer> {
  return coseSign1Es256(encodeCbor(receiptCore(s.did, n)), s.secret, s.did).slice();
}

/** An envelope whose signature does not verify (one signature byte flipped). */
export function badSignatureEnvelope(n: number, s = steward()): Uint8Array<ArrayBuffer> {
  const e = validEnvelope(n, s);
  e[e.length - 1] ^= 1;
  return e;
}

/** An app over a fresh memory log; `env` overrides the configuration (rate limits off). */
export async function testApp(
  env: Record<string, string> = {},
  wrap: (log: Log) => Log = (l) => l,
  secretKey?: Uint8Array,
) {
  // app.request answers below http://localhost: the public URL the app publishes (issue 27)
  const config: ServiceConfig = resolveConfig({
    JC_PUBLIC_URL: "http://localhost",
    JC_RATE_READ: "0",
    JC_RATE_WRITE: "0",
    ...env,
  });
  const log = wrap(await openMemoryLog({ batchAgeMs: 1, secretKey }));
  const deps: AppDeps = { log, config, verifier: verifierOptions(config), metrics: new Metrics() };
  const app = createApp(deps);
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    const res = await app.request(url, init);
    // As fetch does, name the URL the answer came from (clients resolve links against it).
    Object.defineProperty(res, "url", { value: url });
    return res;
  }) as typeof fetch;
  return { app, log, deps, fetchFn, base: "http://localhost" };
}
