// Twins of a logged envelope: other valid envelopes of the same signed content (docs/DECISIONS.md
// "One entry per signed content"), made the way a third party or the key holder could.
import {
  coseSigStructure,
  decodeCbor,
  encodeCbor,
  es256Malleate,
  P256_N,
  parseCoseSign1,
  toHex,
} from "../verify/mod.ts";
import { p256 } from "@noble/curves/nist.js";

/** The envelope with (r, n − s): ECDSA malleability, no key needed. */
export function malleated(envelope: Uint8Array): Uint8Array<ArrayBuffer> {
  const [prot, unprot, payload, sig] = decodeCbor(untag(envelope)) as [
    Uint8Array,
    Map<number, unknown>,
    Uint8Array,
    Uint8Array,
  ];
  return encodeCbor([prot, unprot as Map<number, never>, payload, es256Malleate(sig)]).slice();
}

/** The envelope with a leading tag 18 added (or removed, when it has one). */
export function retagged(envelope: Uint8Array): Uint8Array<ArrayBuffer> {
  if (envelope[0] === 0xd2) return envelope.slice(1);
  return Uint8Array.of(0xd2, ...envelope);
}

/** The same signed content re-signed by the key holder with a fresh random ECDSA nonce. */
export function resigned(envelope: Uint8Array, secret: Uint8Array): Uint8Array<ArrayBuffer> {
  const env = parseCoseSign1(envelope);
  const sig = p256.sign(coseSigStructure(env.protectedBytes, env.payload), secret, {
    lowS: false,
    extraEntropy: true,
    format: "compact",
  });
  const out = encodeCbor([env.protectedBytes, new Map(), env.payload, sig]).slice();
  return env.tagged ? retagged(out) : out;
}

/** Whether the envelope's s is above n/2 (its twin then has low s). */
export function highS(envelope: Uint8Array): boolean {
  const sig = parseCoseSign1(envelope).signature;
  return BigInt("0x" + toHex(sig.subarray(32))) > P256_N / 2n;
}

function untag(b: Uint8Array): Uint8Array {
  return b[0] === 0xd2 ? b.subarray(1) : b;
}
