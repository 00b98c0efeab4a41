// The verifier's options from the service configuration (JCR-1 §4 kid resolution, §5 gateway
// HMAC keys, §6 step 6 reference vectors, SPEC §10.1 policies), built by verify/'s own
// operator-config reader: the operator-config file first, the inline keys layered over it.
// Pure: the platform entry has already read any file.
import { mergeOptions, optionsFromConfig, verifyEnvelope } from "../../verify/mod.ts";
import type { VerificationReport, VerifierOptions } from "../../verify/mod.ts";
import type { ServiceConfig } from "../services/config.ts";
import { ConfigError } from "../services/config.ts";
import type { AppDeps } from "./route.ts";

/**
 * Builds VerifierOptions from `config`. Throws ConfigError for a malformed key directory,
 * gateway key, reference vector or policy, so a bad configuration stops the service at start
 * rather than at first use.
 */
export function verifierOptions(config: ServiceConfig): VerifierOptions {
  try {
    const inline = optionsFromConfig({
      gateway_keys: config.gatewayKeys,
      keys: config.keyDirectory,
      reference_vectors: config.referenceVectors,
    });
    const file = config.operatorConfig === undefined
      ? {}
      : optionsFromConfig(config.operatorConfig);
    return mergeOptions(file, inline);
  } catch (e) {
    throw new ConfigError(`Cannot load config: verifier options: ${(e as Error).message}`);
  }
}

/**
 * verifyEnvelope (JCR-1 §6) for a handler: through `deps.verify` when the platform entry gave
 * one (a Worker pool), otherwise in this thread under `deps.verifier`.
 */
export function verifyWith(
  deps: Pick<AppDeps, "verify" | "verifier">,
  envelope: Uint8Array,
): Promise<VerificationReport> {
  return deps.verify ? deps.verify(envelope) : verifyEnvelope(envelope, deps.verifier);
}
