// A data directory holding a log of `n` signed JCR-1 receipts, written straight through the log
// API (openSqliteLog, as the service would after verifying them), so tests can start the real
// service over a long log in seconds. Tiers, provenances, stewards and days vary with the index;
// every 997th receipt carries a u64 joules_uj above 2^53 (some above 2^63).
import {
  coseProtectedHeader,
  coseSigStructure,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  fromJson,
} from "../../verify/mod.ts";
import { openSqliteLog } from "../../log/sqlite/mod.ts";

const TIERS = ["L0", "L1", "L2", "L3", "L4"];
const PROVS = ["HwShunt", "ModelBased", "Estimator"];
const H = (n: number) => n.toString(16).padStart(64, "0");

/** Stewards with fixed keys. */
export const STEWARDS = [11, 12, 13].map((seed) => {
  const secret = new Uint8Array(32).fill(seed);
  return { secret, did: didKeyFromPublicKey(ed25519PublicKey(secret)) };
});

/** joules_uj of receipt `n` (a bigint above 2^53 every 997th). */
export function joulesOf(n: number): bigint {
  // Whole millijoules (JCR-1 §2.3's resolution floor for estimates).
  if (n % 997 === 5) return (2n ** 63n / 1000n + 1n + BigInt(n)) * 1000n; // above i64
  if (n % 997 === 6) return (2n ** 53n / 1000n + 1n + BigInt(n)) * 1000n; // above 2^53
  return BigInt(1000 * (n + 1));
}

/** Receipt `n`'s JSON (what the log's JSON projection gives back; u64 > 2^53-1 as strings). */
export function seedReceipt(n: number, tag = ""): Record<string, unknown> {
  const j = joulesOf(n);
  const prov = PROVS[n % 3];
  const tier = TIERS[n % 5];
  const L01 = tier === "L0" || tier === "L1";
  return {
    jc_receipt: "1",
    id: `seed-${tag}${n}`,
    closed_at: `2026-05-${String(1 + (n % 28)).padStart(2, "0")}T18:04:22Z`,
    input_hash: H(n),
    tier,
    joules_uj: j,
    energy_provenance: prov,
    steward: STEWARDS[n % STEWARDS.length].did,
    tools_touched: [{ tool_id: "model:gemma4-9b-q5_k_m", joules_uj: j, energy_provenance: prov }],
    claims: L01 ? [] : [{
      source: "https://en.wikipedia.org/wiki/Gemma",
      content_hash: H(n + 1),
      fetched_at: "2026-05-31T18:04:22Z",
      trust_tier: 9,
    }],
  };
}

const PKCS8_ED25519 = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70];
const keys = new Map<number, Promise<CryptoKey>>();

function signingKey(k: number): Promise<CryptoKey> {
  let key = keys.get(k);
  if (!key) {
    const der = new Uint8Array([...PKCS8_ED25519, 0x04, 0x22, 0x04, 0x20, ...STEWARDS[k].secret]);
    key = crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, false, ["sign"]);
    keys.set(k, key);
  }
  return key;
}

/**
 * Receipt `n`'s signed envelope (bigints are CBOR unsigned integers), signed through WebCrypto
 * (a tenth of the pure-JS signer's time): the same bytes as verify's coseSign1.
 */
export async function seedEnvelope(n: number, tag = ""): Promise<Uint8Array> {
  const r = seedReceipt(n, tag);
  const k = n % STEWARDS.length;
  const prot = coseProtectedHeader(STEWARDS[k].did);
  const payload = encodeCbor(fromJson(r));
  const sig = new Uint8Array(
    await crypto.subtle.sign(
      { name: "Ed25519" },
      await signingKey(k),
      coseSigStructure(prot, payload).slice(),
    ),
  );
  return encodeCbor([prot, new Map(), payload, sig]);
}

/**
 * Appends receipts [from, to) to the SQLite log in `dir` (created when absent); `tag` makes a
 * different history (other receipt ids) under the same key.
 */
export async function seedLog(
  dir: string,
  to: number,
  opts: { from?: number; tag?: string; secretKey?: Uint8Array } = {},
): Promise<void> {
  const log = await openSqliteLog({
    dir,
    batchMax: 4096,
    batchAgeMs: 5,
    pendingMax: 1_000_000,
    secretKey: opts.secretKey,
  });
  try {
    const from = opts.from ?? 0;
    for (let i = from; i < to; i += 4096) {
      const envelopes = [];
      for (let k = i; k < Math.min(to, i + 4096); k++) envelopes.push(seedEnvelope(k, opts.tag));
      const r = await Promise.all((await Promise.all(envelopes)).map((e) => log.append(e)));
      if (r[0].index !== i) throw new Error(`Cannot seed: entry ${i} landed at ${r[0].index}`);
    }
  } finally {
    await log.close();
  }
}
