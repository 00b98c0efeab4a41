// The fixed identities, times and operator configuration every conformance vector is generated
// and verified under (published as conformance/vectors/operator-config.json).

import { blake3, didKeyFromPublicKey, optionsFromConfig, toHex } from "../../verify/mod.ts";
import type { Policy, VerifierOptions } from "../../verify/mod.ts";
import { didSigner, namedSigner, secretOf } from "./build.ts";

const utf8 = new TextEncoder();

/** BLAKE3 hex of a UTF-8 string (normalised inputs, claim bytes, contracts). */
export function b3(s: string): string {
  return toHex(blake3(utf8.encode(s)));
}

/** Cascade-receipt steward (did:key). */
export const STEWARD = didSigner("steward-a");
/** A second did:key, for kid/steward mismatches and wrong-key signatures. */
export const OTHER = didSigner("steward-b");
/** A steward identified by a KERI AID (JCR-1 §4): resolved through the operator's key directory. */
export const KERI = namedSigner(
  "steward-keri",
  "did:keri:EJ9xConformanceStewardAID00000000000000000",
);
/** The policy engine's steward (SPEC §10). */
export const POLICY_STEWARD = didSigner("policy-steward");
/** The agent a policy decision is about. */
export const AGENT = didSigner("policy-agent");
/** The contract verifier's steward (SPEC §16.7). */
export const VERDICT_STEWARD = didSigner("verdict-steward");
/** JCP enforcement point (the receipt's steward), grant issuer and subject (JCP §2). */
export const JCP_STEWARD = didSigner("jcp-enforcement-point");
export const JCP_ISSUER = didSigner("jcp-issuer");
export const JCP_SUBJECT = didSigner("jcp-subject");
/** The steward of the legacy jcp/1 receipt (JCP §8: verified, never minted). */
export const JCP1_STEWARD = didSigner("jcp1-legacy-enforcement-point");

/** JCR-1 §5 gateway HMAC keys (test secrets, published). */
export const GATEWAY_KEYS: Record<string, Uint8Array> = {
  "gw-edge-7": secretOf("gateway/gw-edge-7"),
  "gw-core-2": secretOf("gateway/gw-core-2"),
};
/** A gateway the operator holds no key for. */
export const UNKNOWN_GATEWAY = "gw-rogue-9";
/** A KERI-style kid nobody configured. */
export const UNKNOWN_KID = "did:keri:EUnconfiguredStewardAID000000000000000000000";

/** Fixed times (RFC 3339 UTC, JCR-1 §2). */
export const T = {
  closed: "2026-05-31T18:04:22Z",
  minted: "2026-05-31T18:04:21Z",
  fetched: "2026-05-30T09:12:00Z",
};

/** Normalised inputs and their input_hash (JCR-1 §2.1). */
export const INPUT = {
  cache: b3("what is 2+2?"),
  lawful: b3("extract the invoice number from: INV-2026-0042"),
  iac: b3("list the running ec2 instances in eu-west-1"),
  retrieval: b3("when was the Gemma model family first released?"),
  local: b3("summarise this paragraph in one sentence"),
  cited: b3("quote the licence terms of the Apache-2.0 licence"),
  wire: b3("prove that there are infinitely many primes, formally"),
  mixed: b3("transcribe this audio clip and translate it"),
  gateway: b3("describe ec2 instance i-0abc"),
  skill: b3("summarise invoice INV-2026-0042"),
  huge: b3("a figure above 2^53-1"),
  drift: b3("draft a reply to this email"),
};

/** JCR-1 §6 step 6 reference vectors the operator loaded (joules of a re-executed cascade). */
export const REFERENCE_VECTORS: Record<string, { joules_uj: number }> = {
  [INPUT.local]: { joules_uj: 3_200_000 }, // ModelBased ±35%: 3.5 J is within
  [INPUT.wire]: { joules_uj: 30_000_000 }, // Estimator ±100%: 42 J is within
  [INPUT.skill]: { joules_uj: 1_000 }, // HwShunt ±10%: 950 µJ is within
  [INPUT.drift]: { joules_uj: 1_500_000 }, // HwShunt ±10%: 2.1 J is out of band (negative vector)
};

/** The ruleset in force for the policy receipts (SPEC §9, §10.1). */
export const POLICY: Policy = {
  version: 2,
  rules: [
    {
      name: "no-shell",
      effect: "deny",
      agents: "any",
      action: { kind: "process", binary_glob: "/bin/*sh" },
    },
    {
      name: "read-workspace",
      effect: "allow",
      agents: { one_of: [AGENT.kid, didKeyFromPublicKey(OTHER.publicKey)] },
      action: { kind: "filesystem", path_glob: "/workspace/**", modes: ["read"] },
    },
    {
      name: "api-egress",
      effect: "allow",
      agents: "any",
      action: {
        kind: "network",
        host_glob: "*.example.com",
        ports: { from: 443, to: 443 },
        methods: ["GET"],
      },
    },
  ],
};

/** A policy the operator did not supply (its digest must not vouch for a receipt). */
export const FOREIGN_POLICY: Policy = {
  version: 2,
  rules: [{
    name: "read-workspace",
    effect: "allow",
    agents: "any",
    action: { kind: "filesystem", path_glob: "/**", modes: ["read", "write"] },
  }],
};

/** The operator configuration as published JSON (the CLI's --config shape). */
export function operatorConfigJson(): Record<string, unknown> {
  return {
    description:
      "Operator configuration under which every vector in this folder is verified (test keys only).",
    gateway_keys: Object.fromEntries(Object.entries(GATEWAY_KEYS).map(([k, v]) => [k, toHex(v)])),
    keys: { [KERI.kid]: toHex(KERI.publicKey) },
    reference_vectors: REFERENCE_VECTORS,
    policies: [POLICY],
  };
}

/** The same configuration as VerifierOptions, through the CLI's loader. */
export function operatorOptions(): VerifierOptions {
  return optionsFromConfig(JSON.parse(JSON.stringify(operatorConfigJson())));
}
