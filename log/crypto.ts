// The cryptographic primitives log/ uses, in one place (JouleClaw SPEC §22.1 BLAKE3, §22.2 Ed25519).
// TEMPORARY: verify/mod.ts (docs/CONTRACTS.md) has not landed yet; these thin wrappers over
// @noble are replaced by re-exports from verify/mod.ts as soon as it does.
import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";
import { sha512 } from "@noble/hashes/sha2.js";
import * as ed from "@noble/ed25519";

ed.hashes.sha512 = sha512;

/** BLAKE3-256 of `b`. */
export function blake3(b: Uint8Array): Uint8Array {
  return nobleBlake3(b);
}

/** BLAKE3(0x00 || entry), SPEC §22.1. */
export function entryLeafHash(entry: Uint8Array): Uint8Array {
  return nobleBlake3.create().update(new Uint8Array([0])).update(entry).digest();
}

/** Lowercase hex. */
export function toHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** Hex to bytes; throws on bad hex. */
export function fromHex(s: string): Uint8Array {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) {
    throw new Error("Cannot decode hex: bad-hex");
  }
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Ed25519 signature. */
export function ed25519Sign(msg: Uint8Array, secret32: Uint8Array): Uint8Array {
  return ed.sign(msg, secret32);
}

/** Ed25519 public key. */
export function ed25519PublicKey(secret32: Uint8Array): Uint8Array {
  return ed.getPublicKey(secret32);
}

/** Ed25519 verification (strict). */
export function ed25519Verify(sig: Uint8Array, msg: Uint8Array, pub: Uint8Array): Promise<boolean> {
  try {
    return Promise.resolve(ed.verify(sig, msg, pub, { zip215: false }));
  } catch {
    return Promise.resolve(false);
  }
}

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function b58(b: Uint8Array): string {
  let n = 0n;
  for (const x of b) n = n * 256n + BigInt(x);
  let s = "";
  while (n > 0n) {
    s = B58[Number(n % 58n)] + s;
    n /= 58n;
  }
  for (const x of b) {
    if (x !== 0) break;
    s = "1" + s;
  }
  return s;
}

/** did:key of an Ed25519 public key. */
export function didKeyFromPublicKey(pub: Uint8Array): string {
  return "did:key:z" + b58(new Uint8Array([0xed, 0x01, ...pub]));
}

/** Ed25519 public key of a did:key. */
export function publicKeyFromDidKey(did: string): Uint8Array {
  if (!did.startsWith("did:key:z")) throw new Error("Cannot read did:key: bad-did-key");
  let n = 0n;
  for (const c of did.slice(9)) {
    const v = B58.indexOf(c);
    if (v < 0) throw new Error("Cannot read did:key: bad-did-key");
    n = n * 58n + BigInt(v);
  }
  const out = new Uint8Array(34);
  for (let i = 33; i >= 0; i--) {
    out[i] = Number(n & 255n);
    n >>= 8n;
  }
  if (n !== 0n || out[0] !== 0xed || out[1] !== 0x01) {
    throw new Error("Cannot read did:key: bad-did-key");
  }
  const pub = out.slice(2);
  if (didKeyFromPublicKey(pub) !== did) throw new Error("Cannot read did:key: bad-did-key");
  return pub;
}

/** 32 random bytes: a new Ed25519 secret. */
export function ed25519GenerateSecret(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}
