// Resolving a COSE kid to an Ed25519 public key (JCR-1 §4: "The verifier resolves kid → public key
// out of band"; ARCHITECTURE Decision 4). A did:key resolves itself; every other kid (a KERI AID
// such as did:keri:..., or any opaque name) resolves only through keys the operator configured.
import { fromHex } from "./bytes.ts";
import { publicKeyFromDidKey } from "./did_key.ts";
import { VerifyInputError } from "./errors.ts";

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
  readonly #keys = new Map<string, Uint8Array>();

  /**
   * @param entries kid → 64 lowercase hex digits or a did:key. Throws
   * VerifyInputError("bad-key-directory") for a malformed value or a did:key kid (those resolve
   * themselves and cannot be overridden).
   */
  constructor(entries: Record<string, string> = {}) {
    for (const [kid, value] of Object.entries(entries)) {
      if (kid.length === 0) throw dirError(kid, "empty kid");
      if (kid.startsWith("did:key:")) throw dirError(kid, "a did:key resolves itself");
      let pub: Uint8Array;
      try {
        pub = typeof value === "string" && value.startsWith("did:key:")
          ? publicKeyFromDidKey(value)
          : fromHex(value);
      } catch (e) {
        throw dirError(kid, `value is neither hex nor a did:key (${(e as Error).message})`);
      }
      if (pub.length !== 32) throw dirError(kid, `key is ${pub.length} bytes, not 32`);
      this.#keys.set(kid, pub);
    }
  }

  /**
   * The public key for `kid` (a copy), or undefined when the kid is unknown. A did:key resolves
   * itself; a malformed did:key throws VerifyInputError("bad-did-key").
   */
  resolve(kid: string): Uint8Array | undefined {
    if (kid.startsWith("did:key:")) return publicKeyFromDidKey(kid);
    return this.#keys.get(kid)?.slice();
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
