// The verifier's options from the service configuration (JCR-1 §4 kid resolution, §5 gateway
// HMAC keys, §6 step 6 reference vectors, SPEC §10.1 policies), built by verify/'s own
// operator-config reader: the operator-config file first, the inline keys layered over it.
// Pure: the platform entry has already read any file.
import {
  mergeOptions,
  optionsFromConfig,
  verifierConfigCoreOf,
  verifyEnvelope,
} from "../../verify/mod.ts";
import type { VerificationReport, VerifierOptions } from "../../verify/mod.ts";
import type { ServiceConfig } from "../services/config.ts";
import { VerifierConfigError } from "../services/verifier_config_log.ts";
import { activeLog, type AppDeps } from "./route.ts";
import type { EntryFacts } from "../../log/mod.ts";
import { ApiError } from "./errors.ts";

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
    // issue 23: a stable code, and the message names the key (gateway_keys.<id>, keys.<kid>, …)
    throw new VerifierConfigError(
      "verifier-config-malformed",
      `Cannot load config: verifier options: ${(e as Error).message}`,
    );
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

/**
 * Issue 25 (JCP §2.1; docs/KEYS.md): verifyWith, then, for a did:key steward with a logged
 * key-event chain, verifyEnvelope again with the chain's current key as the steward's (the
 * verifier's `identities`): a rotated identity's receipt (kid = its current key, not the
 * steward) verifies, and one by another key is `key-rotated-out`. Read only when the first report
 * failed the kid = steward binding, or (`always`: POST /v1/verify) for every did:key steward; the
 * append's sequencer judges it once more, atomically with the append. `kid` is the current key
 * when the receipt verified under it.
 */
export async function verifyUnderIdentities(
  deps: Pick<AppDeps, "verify" | "verifier" | "log" | "services" | "verifyForAppend">,
  envelope: Uint8Array,
  always = false,
  out?: { facts?: EntryFacts },
): Promise<{ report: VerificationReport; kid?: string }> {
  let report: VerificationReport;
  if (out && deps.verifyForAppend) {
    // issue 29: an append's stream facts read where it is verified (entryFacts: the same bytes)
    ({ report, facts: out.facts } = await deps.verifyForAppend(envelope));
  } else report = await verifyWith(deps, envelope);
  const steward = report.steward;
  const first = report.steps.find((s) => s.status === "fail")?.code;
  const rotated = first === "kid-steward-mismatch" || (always && report.valid);
  if (!rotated || !steward?.startsWith("did:key:")) return { report };
  // the active shard's chains (every chain, carried at each rotation: docs/SHARDS.md)
  const rec = await activeLog(deps).streamReads?.identity(steward);
  if (!rec || (first !== "kid-steward-mismatch" && rec.head.current === steward)) {
    return { report };
  }
  const current = rec.head.current;
  const again = await verifyEnvelope(envelope, {
    ...deps.verifier,
    identities: { [steward]: current },
  });
  return again.valid ? { report: again, kid: current } : { report: again };
}

/**
 * `{digest, index}` of the configuration in force (issue 23), with `shard` when it was logged in
 * a shard other than s0; both null while none is logged (the embedded defaults); undefined on a
 * deployment that keeps no configuration.
 */
export async function verifierConfigRef(
  deps: Pick<AppDeps, "services">,
): Promise<{ digest: string | null; index: number | null; shard?: string } | undefined> {
  const now = await deps.services?.verifierConfig?.inForce();
  if (!now) return undefined;
  if (!now.ref) return { digest: null, index: null };
  const { digest, index, shard } = now.ref;
  return shard ? { digest, index, shard } : { digest, index };
}

/**
 * Issue 23: a verifier-config/1 envelope is appended by the service alone (at start, under the
 * operator key); through a public route it is refused, before anything is verified or stored.
 */
export function refuseConfigEnvelope(envelope: Uint8Array): void {
  if (verifierConfigCoreOf(envelope)) {
    throw new ApiError(
      "verifier-config-not-appendable",
      "Cannot append the envelope: a verifier-config/1 document is logged only by the service " +
        "itself, at start (GET /v1/verifier-config)",
    );
  }
}
