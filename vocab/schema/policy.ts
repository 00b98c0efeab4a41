// The agent identity (SPEC §8), the policy receipt with its actions and decisions (§9, §10) and
// the workspace manifest (§11).
import {
  DID,
  DID_KEY,
  dt,
  HEX64,
  node,
  opt,
  req,
  RFC3339_UTC_NOTE,
  s,
  u64,
  uMax,
  WORKSPACE_PATH,
} from "./build.ts";
import type { ClassDef } from "./build.ts";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const POLICY_CLASSES: ClassDef[] = [
  // ---- SPEC §8: identity
  {
    name: "AgentIdentity",
    clause: "SPEC §8",
    sub: ["prov:Agent"],
    comment:
      "A long-running agent's identity: a did:key handle bound to an Ed25519 key (a prov:Agent).",
    fields: [
      req("handle", "handle", s(DID_KEY), "did:key handle (SPEC §8 derivation)."),
      req("public_key", "publicKey", s(HEX64), "Raw Ed25519 public key, 32 bytes hex."),
      opt("attestation", "attestation", s(), "Optional EAT attestation envelope (RFC 9711)."),
      opt(
        "created_at",
        "createdAt",
        dt,
        "When the identity was created; " + RFC3339_UTC_NOTE + ".",
      ),
    ],
  },
  // ---- SPEC §9, §10: policy
  {
    name: "PolicyReceipt",
    clause: "SPEC §10",
    comment: 'The signed audit record of one policy decision (jc_receipt "policy/1").',
    discriminator: { key: "jc_receipt", value: "policy/1" },
    fields: [
      req("jc_receipt", "jcReceipt", s(), "Schema version of a receipt (SPEC §7).", {
        fixed: "policy/1",
      }),
      req("id", "identifier", s(), "Stable receipt id."),
      req("closed_at", "closedAt", dt, "When the decision was made; " + RFC3339_UTC_NOTE + "."),
      req("steward", "steward", s(DID), "Signing identity."),
      req("engine_id", "engineId", s(), "The policy engine instance."),
      req("audit_sequence", "auditSequence", u64, "The engine's monotonic audit sequence number."),
      req("policy_version", "policyVersion", u64, "The policy installation counter (SPEC §10.1)."),
      opt(
        "policy_digest",
        "policyDigest",
        s(HEX64),
        "BLAKE3 digest of the rules in force (SPEC §10.1).",
      ),
      req("agent", "agent", s(DID_KEY), "The agent whose action was decided."),
      req("action", "action", node("Action"), "The action decided."),
      req("decision", "decision", node("Decision"), "The decision."),
    ],
  },
  {
    name: "Action",
    clause: "SPEC §9",
    comment: "An action a policy engine decides on: one of three kinds, chosen by `kind`.",
    kinds: { filesystem: "FilesystemAction", network: "NetworkAction", process: "ProcessAction" },
    fields: [],
  },
  {
    name: "FilesystemAction",
    clause: "SPEC §9",
    sub: ["jc:Action"],
    comment: "Filesystem { path, mode }.",
    fields: [
      req("path", "path", s(), "The path acted on."),
      req("mode", "mode", s(), "The access mode (e.g. read, write)."),
    ],
  },
  {
    name: "NetworkAction",
    clause: "SPEC §9",
    sub: ["jc:Action"],
    comment: "Network { host, port, method }.",
    fields: [
      req("host", "host", s(), "The host."),
      req("port", "port", uMax(65535), "The port (u16)."),
      req("method", "httpMethod", s(), "The method."),
    ],
  },
  {
    name: "ProcessAction",
    clause: "SPEC §9",
    sub: ["jc:Action"],
    comment: "Process { binary, argv }.",
    fields: [
      req("binary", "binary", s(), "The binary run."),
      opt("argv", "argv", s(), "Its arguments, in order.", { list: true }),
    ],
  },
  {
    name: "Decision",
    clause: "SPEC §9",
    comment: "Allow { rule } | Deny { reason, rule? }, chosen by `kind`.",
    kinds: { allow: "Allow", deny: "Deny" },
    fields: [],
  },
  {
    name: "Allow",
    clause: "SPEC §9",
    sub: ["jc:Decision"],
    comment: "The first matching Allow rule decided.",
    fields: [req("rule", "rule", s(), "The name of the rule that decided.")],
  },
  {
    name: "Deny",
    clause: "SPEC §9",
    sub: ["jc:Decision"],
    comment:
      "Denied: deny-by-default (NoMatchingAllow) or an explicit Deny rule (ExplicitDeny { rule }).",
    fields: [
      req("reason", "denyReason", s(), "Why: NoMatchingAllow or ExplicitDeny."),
      opt("rule", "rule", s(), "The explicit Deny rule, when one decided."),
    ],
  },
  {
    name: "AuditEvent",
    clause: "SPEC §9",
    sub: ["prov:Activity"],
    comment:
      "One evaluation by a policy engine: (sequence, policy_version, agent, action, decision) (a prov:Activity).",
    noShape: true,
    fields: [
      req("sequence", "auditSequence", u64, "The engine's monotonic sequence number."),
      req("policy_version", "policyVersion", u64, "The policy installation counter."),
      req("agent", "agent", s(DID_KEY), "The agent."),
      req("action", "action", node("Action"), "The action."),
      req("decision", "decision", node("Decision"), "The decision."),
    ],
  },
  // ---- SPEC §11: workspace
  {
    name: "WorkspaceManifest",
    clause: "SPEC §11",
    comment: 'A content-addressed agent workspace (jc_workspace "workspace/1").',
    discriminator: { key: "jc_workspace", value: "workspace/1" },
    fields: [
      req("jc_workspace", "jcWorkspace", s(), "Schema version of a workspace manifest (SPEC §7).", {
        fixed: "workspace/1",
      }),
      req("owner", "owner", node("AgentIdentity"), "The owner, with the public key embedded."),
      req("entries", "entries", node("WorkspaceEntry"), "The entries, sorted lexically by path.", {
        list: true,
      }),
    ],
  },
  {
    name: "WorkspaceEntry",
    clause: "SPEC §11",
    comment: "One file of a workspace.",
    fields: [
      req("path", "path", s(WORKSPACE_PATH), "Relative, '/'-joined, normalised path (SPEC §11)."),
      req("content_hash", "contentHash", s(HEX64), "BLAKE3 (hex) of the bytes."),
      req("size", "byteSize", u64, "Size in bytes."),
      req("kind", "entryKind", s(), "Kind of content (e.g. text)."),
    ],
  },
];
