// Resolving a COSE kid to a public key (JCR-1 §4: "The verifier resolves kid → public key out of
// band"; ARCHITECTURE Decision 4). A did:key resolves itself; every other kid (a KERI AID such as
// did:keri:..., or any opaque name) resolves only through keys the operator configured. Keys are
// Ed25519 (32 bytes, alg -8) or P-256 (SEC 1, 33 bytes compressed or 65 uncompressed, alg -7;
// held compressed): the length of the configured value says which.
import { fromHex } from "./bytes.ts";
import { resolveDidKey, type TypedPublicKey } from "./did_key.ts";
import { VerifyInputError } from "./errors.ts";
import { p256Compress, p256KeyProblem } from "./p256.ts";

/**
 * Operator-configured kid → public key directory, with did:key self-resolution.
 *
 * @example
 * ```ts
 * const keys = new KeyDirectory({ "did:keri:EJ9...": "d75a98...511a" });
 * keys.resolve("did:keri:EJ9...");   // 32 bytes
 * keys.resolve("did:key:z6Mk...");   // 32 bytes, from the identifier itself
 * keys.resolve("did:keri:unknown");  // undefined
 * ```
 */
export class KeyDirectory {
  readonly #keys = new Map<string, TypedPublicKey>();

  /**
   * @param entries kid → a did:key, or lowercase hex: 64 digits (Ed25519), 66 or 130 digits
   * (P-256, SEC 1 compressed or uncompressed, a valid point). Throws
   * VerifyInputError("bad-key-directory") for a malformed value or a did:key kid (those resolve
   * themselves and cannot be overridden).
   */
  constructor(entries: Record<string, string> = {}) {
    for (const [kid, value] of Object.entries(entries)) {
      if (kid.length === 0) throw dirError(kid, "empty kid");
      if (kid.startsWith("did:key:")) throw dirError(kid, "a did:key resolves itself");
      let key: TypedPublicKey;
      try {
        if (typeof value === "string" && value.startsWith("did:key:")) key = resolveDidKey(value);
        else {
          const pub = fromHex(value);
          key = pub.length === 32 ? { alg: -8, pub } : { alg: -7, pub };
        }
      } catch (e) {
        throw dirError(kid, `value is neither hex nor a did:key (${(e as Error).message})`);
      }
      if (key.alg === -7) {
        const problem = key.pub.length === 33 || key.pub.length === 65
          ? p256KeyProblem(key.pub)
          : "length";
        if (problem) {
          throw dirError(
            kid,
            `key is ${key.pub.length} bytes: neither 32 (Ed25519) nor a valid P-256 point (${problem})`,
          );
        }
        key = { alg: -7, pub: p256Compress(key.pub) };
      }
      this.#keys.set(kid, key);
    }
  }

  /**
   * The public key for `kid` (a copy), or undefined when the kid is unknown. A did:key resolves
   * itself; a malformed did:key throws VerifyInputError("bad-did-key").
   */
  resolve(kid: string): Uint8Array | undefined {
    return this.resolveTyped(kid)?.pub;
  }

  /**
   * The public key for `kid` with its algorithm (-8 Ed25519, -7 P-256 compressed), or undefined
   * when the kid is unknown. A did:key resolves itself (resolveDidKey's codes when malformed).
   */
  resolveTyped(kid: string): TypedPublicKey | undefined {
    if (kid.startsWith("did:key:")) return resolveDidKey(kid);
    const k = this.#keys.get(kid);
    return k && { alg: k.alg, pub: k.pub.slice() };
  }

  /** The operator-configured kids (did:key kids are never listed: they resolve themselves). */
  kids(): string[] {
    return [...this.#keys.keys()];
  }
}

function dirError(kid: string, why: string): VerifyInputError {
  return new VerifyInputError(
    "bad-key-directory",
    `Cannot configure key for kid ${JSON.stringify(kid)}: ${why}`,
  );
}
