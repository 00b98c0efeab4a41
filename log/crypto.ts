// The cryptographic primitives log/ uses, in one place (JouleClaw SPEC §22.1 BLAKE3, §22.2 Ed25519).
// All of them come from verify/mod.ts, the project's one implementation of bytes, hashing,
// Ed25519 (strict, ARCHITECTURE Decision 3) and did:key (Decision 4); log/ never reimplements them.
export {
  blake3,
  bytesEqual,
  didKeyFromPublicKey,
  ed25519GenerateSecret,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
  entryLeafHash,
  envelopeContentId,
  fromHex,
  HEX64,
  publicKeyFromDidKey,
  sha256,
  toHex,
} from "../verify/mod.ts";
