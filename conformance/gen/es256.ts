// ES256 vectors (JCR-1 §4 alg -7; docs/DECISIONS.md "ES256"): a positive for the cascade receipt
// "1", the one profile whose envelope may be ES256, and a refusal for each sibling whose spec makes
// it EdDSA only (policy/1, verdict-receipt/1, jcp/2, legacy jcp/1: alg-not-for-profile), the tagged
// form, a high-s signature and its low-s twin (both valid: the verifier accepts what real signers
// produce; the log keeps one entry per signed content), and a negative per ES256 reason code.
// meter-reading/1 has none: its agent is the kid, and an agent is an Ed25519 did:key (JCP §1).
// Deterministic: P-256 secrets are BLAKE3 of fixed labels, signatures RFC 6979.

import {
  concatBytes,
  coseProtectedHeader,
  coseSigStructure,
  didKeyFromP256PublicKey,
  encodeCbor,
  es256Malleate,
  es256Sign,
  fromHex,
  P256_N,
  p256PublicKey,
  toHex,
} from "../../verify/mod.ts";
import { base58btcEncode } from "../../verify/mod.ts";
import { coreBytes, secretOf } from "./build.ts";
import { jcr1Cores } from "./jcr1.ts";
import { jcp1Core, jcpCores, policyCores, verdictCore } from "./siblings.ts";
import { refused, valid, type Vector, vector } from "./vector.ts";

type Core = Record<string, unknown>;

/** A P-256 signing identity: kid = did:key (p256-pub, compressed). */
interface P256Signer {
  secret: Uint8Array;
  publicKey: Uint8Array;
  kid: string;
}

function p256Signer(label: string): P256Signer {
  const secret = secretOf(`p256/${label}`); // < n: BLAKE3 output below n (checked by p256PublicKey)
  const publicKey = p256PublicKey(secret);
  return { secret, publicKey, kid: didKeyFromP256PublicKey(publicKey) };
}

/** The P-256 stewards of the ES256 vectors. */
export const ES256_STEWARD = p256Signer("steward-a");
const ES256_OTHER = p256Signer("steward-b");

/** An ES256 COSE_Sign1 over `payload` with kid `kid`, the signature as given or computed. */
function es256Envelope(
  payload: Uint8Array,
  signer: P256Signer,
  kid = signer.kid,
  sig?: (s: Uint8Array) => Uint8Array,
  alg: -7 | -8 = -7,
): Uint8Array {
  const prot = coseProtectedHeader(kid, alg);
  let s = es256Sign(coseSigStructure(prot, payload), signer.secret);
  if (sig) s = sig(s);
  return encodeCbor([prot, new Map(), payload, s]);
}

const withSteward = (core: Core, kid: string): Core => ({ ...core, steward: kid });
const sHigh = (sig: Uint8Array) => BigInt("0x" + toHex(sig.subarray(32))) > P256_N / 2n;
const be32 = (n: bigint) => fromHex(n.toString(16).padStart(64, "0"));

/** A did:key of raw multicodec bytes (for malformed p256-pub kids). */
const didOf = (raw: Uint8Array) => "did:key:z" + base58btcEncode(raw);

/** Every ES256 vector. */
export async function es256Vectors(): Promise<Vector[]> {
  const S = ES256_STEWARD;
  const out: Vector[] = [];
  const pos = (
    name: string,
    description: string,
    schema: string,
    env: Uint8Array,
    steps?: Record<string, string>,
  ) => out.push(vector({ name, description, schema, signer: S.kid, expected: valid(steps) }, env));

  // --- positives, one per profile
  const jcr1 = withSteward((await jcr1Cores())["jcr1-02-l1-deterministic"], S.kid);
  const P = coreBytes(jcr1);
  pos(
    "es256-jcr1-l1-deterministic",
    'JCR-1 §4: ES256 (-7) envelope of a cascade receipt "1", kid a did:key p256-pub (compressed)',
    "1",
    es256Envelope(P, S),
    { tool_receipts: "no-tool-receipts", joules: "joule-unverified" },
  );
  // SPEC §10, §16.7, JCP §8 define the sibling envelopes as EdDSA (-8): ES256 on them is refused
  // (docs/DECISIONS.md "Divergences"); JCR-1 §4's ES256 is the cascade receipt's alone.
  const eddsaOnly = (name: string, description: string, schema: string, core: Core) =>
    out.push(vector({
      name: `neg-${name}`,
      description,
      covers: "alg-not-for-profile",
      schema,
      signer: S.kid,
      expected: refused("alg-not-for-profile"),
    }, es256Envelope(coreBytes(withSteward(core, S.kid)), S)));
  eddsaOnly(
    "es256-policy-1",
    "SPEC §10 policy/1 sealed with ES256: its envelope is {1: -8, 4: steward}, EdDSA only",
    "policy/1",
    policyCores()["policy-2-deny-no-matching-allow"],
  );
  eddsaOnly(
    "es256-verdict-receipt-1",
    "SPEC §16.7 verdict-receipt/1 sealed with ES256: its envelope is {1: -8, 4: steward}",
    "verdict-receipt/1",
    verdictCore(),
  );
  eddsaOnly(
    "es256-jcp2-allow",
    "JCP §8 jcp/2 sealed with ES256: JCP §8 seals with EdDSA/Ed25519, alg = -8",
    "jcp/2",
    jcpCores()["jcp2-1-allow"],
  );
  eddsaOnly(
    "es256-jcp1-legacy",
    "JCP §8 legacy jcp/1 sealed with ES256: the same envelope as jcp/2, EdDSA only",
    "jcp/1",
    jcp1Core(),
  );
  pos(
    "es256-tagged",
    "the cascade receipt's ES256 envelope behind tag 18 (Decision 2: tag optional)",
    "1",
    concatBytes(Uint8Array.of(0xd2), es256Envelope(P, S)),
    { tool_receipts: "no-tool-receipts", joules: "joule-unverified" },
  );
  // high s and its low-s twin: both valid (most signers do not normalise s)
  const sig = es256Sign(coseSigStructure(coseProtectedHeader(S.kid, -7), P), S.secret);
  const high = sHigh(sig) ? sig : es256Malleate(sig);
  pos(
    "es256-high-s",
    "s > n/2: accepted (RFC 9053 and SEC 1 do not require low s; most signers do not normalise)",
    "1",
    es256Envelope(P, S, S.kid, () => high),
    { tool_receipts: "no-tool-receipts", joules: "joule-unverified" },
  );
  pos(
    "es256-low-s-twin",
    "the same content with (r, n − s) of es256-high-s: also valid; the log logs one of the two",
    "1",
    es256Envelope(P, S, S.kid, () => es256Malleate(high)),
    { tool_receipts: "no-tool-receipts", joules: "joule-unverified" },
  );

  // --- negatives, one per ES256 reason code (and the ES256 forms of the shared ones)
  const neg = (
    name: string,
    covers: string,
    description: string,
    env: Uint8Array,
    kid = S.kid,
    schema: string | null = "1",
  ) =>
    out.push(
      vector(
        {
          name: `neg-${name}`,
          description,
          covers,
          schema,
          signer: kid,
          expected: refused(covers),
        },
        env,
      ),
    );
  const rOf = (s: Uint8Array) => s.subarray(0, 32);
  const sOf = (s: Uint8Array) => s.subarray(32);
  neg(
    "es256-r-zero",
    "es256-r-range",
    "ES256 r = 0",
    es256Envelope(P, S, S.kid, (s) => concatBytes(new Uint8Array(32), sOf(s))),
  );
  neg(
    "es256-r-n",
    "es256-r-range",
    "ES256 r = n (not below the group order)",
    es256Envelope(P, S, S.kid, (s) => concatBytes(be32(P256_N), sOf(s))),
  );
  neg(
    "es256-s-zero",
    "es256-s-range",
    "ES256 s = 0",
    es256Envelope(P, S, S.kid, (s) => concatBytes(rOf(s), new Uint8Array(32))),
  );
  neg(
    "es256-s-n",
    "es256-s-range",
    "ES256 s = n (n − s of s = 0 is not a twin)",
    es256Envelope(P, S, S.kid, (s) => concatBytes(rOf(s), be32(P256_N))),
  );
  neg(
    "es256-bad-signature",
    "bad-signature",
    "ES256 signature by another P-256 key",
    es256Envelope(P, ES256_OTHER, S.kid),
  );
  neg(
    "es256-signature-63-bytes",
    "cose-bad-signature",
    "ES256 signature of 63 bytes (RFC 9053 §2.1: exactly 32 + 32)",
    es256Envelope(P, S, S.kid, (s) => s.subarray(1)),
    S.kid,
    null,
  );
  // kid forms
  const uncompressed = didOf(concatBytes(Uint8Array.of(0x80, 0x24), uncompress(S.publicKey)));
  neg(
    "did-key-p256-uncompressed",
    "did-key-p256-uncompressed",
    "kid is a p256-pub did:key of the 65-byte uncompressed point (only compressed is accepted)",
    es256Envelope(coreBytes(withSteward(jcr1, uncompressed)), S, uncompressed),
    uncompressed,
  );
  const xTooBig = didOf(concatBytes(Uint8Array.of(0x80, 0x24, 0x02), fromHex("ff".repeat(32))));
  neg(
    "p256-key-encoding",
    "p256-key-encoding",
    "kid is a p256-pub did:key whose x ≥ p",
    es256Envelope(coreBytes(withSteward(jcr1, xTooBig)), S, xTooBig),
    xTooBig,
  );
  const offCurve = didOf(concatBytes(Uint8Array.of(0x80, 0x24), offCurvePoint()));
  neg(
    "p256-key-not-on-curve",
    "p256-key-not-on-curve",
    "kid is a p256-pub did:key whose x has no point on P-256",
    es256Envelope(coreBytes(withSteward(jcr1, offCurve)), S, offCurve),
    offCurve,
  );
  // a P-256 kid with alg EdDSA (the Ed25519 kid with alg ES256 is in negative.json)
  const asEd = coreBytes(jcr1);
  const edHeader = coseProtectedHeader(S.kid, -8);
  neg(
    "kid-alg-mismatch-p256-key-eddsa",
    "kid-alg-mismatch",
    "alg EdDSA (-8) with a P-256 did:key kid (an ES256 signature inside)",
    encodeCbor([edHeader, new Map(), asEd, es256Sign(coseSigStructure(edHeader, asEd), S.secret)]),
  );
  return out;
}

/** The 65-byte uncompressed form of a compressed P-256 key. */
function uncompress(pub33: Uint8Array): Uint8Array {
  // y from the curve equation: y² = x³ − 3x + b mod p, p ≡ 3 mod 4 so y = (y²)^((p+1)/4)
  const p = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
  const b = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
  const x = BigInt("0x" + toHex(pub33.subarray(1)));
  const y2 = (((x * x % p) * x - 3n * x + b) % p + p) % p;
  let y = modPow(y2, (p + 1n) / 4n, p);
  if ((y & 1n) !== BigInt(pub33[0] & 1)) y = p - y;
  return concatBytes(Uint8Array.of(4), pub33.subarray(1), be32(y));
}

/** 0x02 ‖ x for the smallest x whose x³ − 3x + b is not a square mod p. */
function offCurvePoint(): Uint8Array {
  const p = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
  const b = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
  for (let x = 1n;; x++) {
    const y2 = (((x * x % p) * x - 3n * x + b) % p + p) % p;
    if (modPow(y2, (p - 1n) / 2n, p) === p - 1n) return concatBytes(Uint8Array.of(2), be32(x));
  }
}

function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n, b = b * b % m) if (e & 1n) r = r * b % m;
  return r;
}
