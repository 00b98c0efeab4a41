// The verifier's options from the service configuration (JCR-1 §4 kid resolution, §5 gateway
// HMAC keys, §6 step 6 reference vectors). Pure: the platform entry has already read any file.
import { fromHex, KeyDirectory } from "../verify/mod.ts";
import type { VerifierOptions } from "../verify/mod.ts";
import type { ServiceConfig } from "./config.ts";
import { ConfigError } from "./config.ts";

/**
 * Builds VerifierOptions from `config`. Throws ConfigError for a malformed key directory or
 * gateway key, so a bad configuration stops the service at start rather than at first use.
 */
export function verifierOptions(config: ServiceConfig): VerifierOptions {
  let keys: KeyDirectory;
  try {
    keys = new KeyDirectory(config.keyDirectory);
  } catch (e) {
    throw new ConfigError(`Cannot load config: key_directory: ${(e as Error).message}`);
  }
  const gatewayKeys: Record<string, Uint8Array> = {};
  for (const [id, hex] of Object.entries(config.gatewayKeys)) {
    try {
      gatewayKeys[id] = fromHex(hex);
    } catch (e) {
      throw new ConfigError(`Cannot load config: gateway_keys.${id}: ${(e as Error).message}`);
    }
    if (gatewayKeys[id].length === 0) {
      throw new ConfigError(`Cannot load config: gateway_keys.${id}: the key is empty`);
    }
  }
  return { keys, gatewayKeys, referenceVectors: { ...config.referenceVectors } };
}
