// Negative vectors: one (at least) for every reason code that verifyEnvelope can answer as a
// refusal (verify/codes.ts minus NOT_VERIFICATION_OUTCOMES and INFORMATIONAL_CODES). Each starts
// from a positive core and breaks exactly one thing; unless the vector says otherwise the envelope
// is correctly signed, so the failure it covers is the only one.

// The envelope's negatives are in negatives_envelope.ts, the profiles' in negatives_profile.ts.
import { seal } from "./build.ts";
import { OTHER, STEWARD, UNKNOWN_KID } from "./config.ts";
import { jcr1Cores } from "./jcr1.ts";
import type { Vector } from "./vector.ts";
import { type Core, neg } from "./negative.ts";
import { envelopeNegatives } from "./negatives_envelope.ts";
import { profileNegatives } from "./negatives_profile.ts";

/** Signature-step negatives. */
function signatureNegatives(base: Core): Vector[] {
  const broken = "did:key:z6MkBROKENbase58checksumXXXXXXXXXXXXXXXXXXXXXXXX";
  return [
    neg(
      "bad-did-key",
      "bad-did-key",
      "kid (= steward) is a malformed did:key",
      "1",
      broken,
      seal({ ...base, steward: broken }, STEWARD, broken),
    ),
    neg(
      "unknown-kid",
      "unknown-kid",
      "kid (= steward) is a KERI AID the key directory does not hold",
      "1",
      UNKNOWN_KID,
      seal({ ...base, steward: UNKNOWN_KID }, STEWARD, UNKNOWN_KID),
    ),
    neg(
      "kid-steward-mismatch",
      "kid-steward-mismatch",
      "signed by steward A (kid A) but the core names steward B",
      "1",
      STEWARD.kid,
      seal({ ...base, steward: OTHER.kid }, STEWARD),
    ),
    neg(
      "bad-signature",
      "bad-signature",
      "signed by key B under kid A",
      "1",
      STEWARD.kid,
      seal(base, { ...OTHER, kid: STEWARD.kid }),
    ),
  ];
}

/** Every negative vector. */
export async function negativeVectors(): Promise<Vector[]> {
  const base = (await jcr1Cores())["jcr1-02-l1-deterministic"];
  return [...envelopeNegatives(base), ...signatureNegatives(base), ...(await profileNegatives())];
}
