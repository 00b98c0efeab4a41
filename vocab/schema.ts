// JouleClaw SPEC §13 (vocabulary), §15 (SHACL) — the one table the vocabulary is generated from.
//
// Every JSON object the service publishes or validates is described here once: its class, its
// JSON keys, the `jc:` property each key maps to, the property's range and the §15 constraints a
// shape puts on it. `v1.jsonld` (the JSON-LD context), `v1.ttl` (the ontology), `v1.shapes.ttl`
// (the SHACL shapes) and the HTML index are all generated from this table (vocab/gen.ts), so the
// three published files cannot disagree with each other. Objects: the cascade receipt (SPEC §2,
// JCR-1 §2.1), the policy receipt (§10, actions and decisions of §9), the workspace manifest (§11),
// the agent identity (§8), the validation contract and its verdict (§16), the verdict receipt
// (§16.7), the worker handoff (§17.1), the `jcp/2` and `jcp/1` decision receipts (JCP §8), the
// meter reading (`meter-reading/1`, docs/METER-READING.md) and the log's signed tree head (§22.2).

/** The vocabulary namespace (SPEC §13). */
export const JC = "https://jouleclaw.transaction.science/vocab/v1#";
/** Where the published context lives (SPEC §13); documents reference it by this URL. */
export const CONTEXT_URL = "https://jouleclaw.transaction.science/vocab/v1.jsonld";
/** The ontology's IRI (SPEC §13). */
export const ONTOLOGY_URL = "https://jouleclaw.transaction.science/vocab/v1";
/** The shapes graph's IRI (SPEC §15). */
export const SHAPES_URL = "https://jouleclaw.transaction.science/vocab/v1.shapes.ttl";
/**
 * Base of the IRIs an enumeration value that is not one of its tags expands to: it still becomes
 * an IRI (so `sh:in` can refuse it) but never one of the vocabulary's individuals. One namespace
 * per enumerated property: `…/v1/unknown/<property>#<value>`.
 */
export const UNKNOWN_BASE = "https://jouleclaw.transaction.science/vocab/v1/unknown/";

/** u64 upper bound (JCR-1 §2: energy is an unsigned 64-bit integer). */
export const U64_MAX = 18446744073709551615n;

/** The range of a field: what its JSON value is and what it becomes in RDF. */
export type Range =
  | { t: "string"; pattern?: string; patternNote?: string }
  | { t: "uint"; max?: bigint } // xsd:nonNegativeInteger, bounded (u64 unless said)
  | { t: "integer" } // xsd:integer (an exit status may be negative)
  | { t: "dateTime" } // RFC 3339 UTC → xsd:dateTime
  | { t: "boolean" }
  | { t: "json" } // kept verbatim as an rdf:JSON literal
  | { t: "enum"; e: string } // an enumeration of `ENUMS`: tag → IRI
  | { t: "node"; c: string }; // a nested object of class c

/** One JSON key of a class. */
export interface Field {
  key: string;
  /** local name of the `jc:` property */
  prop: string;
  range: Range;
  required?: boolean;
  /** a JSON array: kept as an rdf:List (order and duplicates survive, an empty array is rdf:nil) */
  list?: boolean;
  /** the value the key must have (the schema discriminator) */
  fixed?: string;
  comment: string;
}

/** One class of the vocabulary. */
export interface ClassDef {
  name: string;
  comment: string;
  sub?: string[]; // rdfs:subClassOf (prefixed names)
  fields: Field[];
  /** the JSON key and value that identify a top-level document of this class */
  discriminator?: { key: string; value: string };
  /** subclasses chosen by the JSON `kind` key (aliased to `@type`): tag → class name */
  kinds?: Record<string, string>;
  /** spec clause, for the ontology and the index */
  clause: string;
  /** class has no shape of its own (ontology only) */
  noShape?: boolean;
}

/** One enumeration: wire tag → individual. */
export interface EnumDef {
  name: string;
  comment: string;
  values: { tag: string; iri: string; comment: string }[];
}

const HEX64 = "^[0-9a-f]{64}$";
const DID_KEY = "^did:key:z[1-9A-HJ-NP-Za-km-z]+$";
const DID = "^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$";
// SPEC §11: relative '/'-joined segments; no absolute path, empty segment, "." or "..", or NUL.
// Plain groups and classes only, so the pattern means the same in XPath and JavaScript.
const SEGMENT = "([^/.\u0000][^/\u0000]*|\\.[^/.\u0000][^/\u0000]*|\\.\\.[^/\u0000]+)";
/** sh:pattern of a workspace entry path (SPEC §11 path normalisation). */
export const WORKSPACE_PATH = `^${SEGMENT}(/${SEGMENT})*$`;
/** docs/METER-READING.md: the metering ladder's rungs. */
const RUNG = "^(rapl|nvml|ina3221|model|estimator)$";
const RFC3339_UTC_NOTE = "RFC 3339 in UTC (JCR-1 §2)";

const s = (pattern?: string): Range => (pattern ? { t: "string", pattern } : { t: "string" });
const u64: Range = { t: "uint" };
const uMax = (max: number): Range => ({ t: "uint", max: BigInt(max) });
const dt: Range = { t: "dateTime" };
const en = (e: string): Range => ({ t: "enum", e });
const node = (c: string): Range => ({ t: "node", c });
const req = (
  key: string,
  prop: string,
  range: Range,
  comment: string,
  extra: Partial<Field> = {},
): Field => ({
  key,
  prop,
  range,
  required: true,
  comment,
  ...extra,
});
const opt = (
  key: string,
  prop: string,
  range: Range,
  comment: string,
  extra: Partial<Field> = {},
): Field => ({
  key,
  prop,
  range,
  comment,
  ...extra,
});

/** The enumerations: every value of every enumeration maps to an IRI (SPEC §13). */
export const ENUMS: EnumDef[] = [
  {
    name: "CascadeTier",
    comment:
      "The cascade tier that closed a query (JCR-1 §2.2); wire tags L0–L4 are stable (SPEC §7).",
    values: [
      { tag: "L0", iri: "Cache", comment: "L0: cache hit (picojoules)." },
      { tag: "L1", iri: "Lawful", comment: "L1: lawful / deterministic motif (nanojoules)." },
      { tag: "L2", iri: "Embed", comment: "L2: embedding retrieval (sub-millijoule)." },
      { tag: "L3", iri: "Model", comment: "L3: local model inference (joules)." },
      {
        tag: "L4",
        iri: "Wire",
        comment: "L4: wire / remote frontier model (tens of joules and more).",
      },
    ],
  },
  {
    name: "EnergyProvenance",
    comment:
      "The honesty tag of an energy figure (JCR-1 §2.3, JCP §5), ordered HwShunt > ModelBased > Estimator.",
    values: [
      {
        tag: "HwShunt",
        iri: "HwShunt",
        comment: "A hardware reading: a shunt, or a vendor energy counter while it is live.",
      },
      {
        tag: "ModelBased",
        iri: "ModelBased",
        comment: "A calibrated model estimate (vendor power model, host calibration).",
      },
      {
        tag: "Estimator",
        iri: "Estimator",
        comment: "A figure nothing calibrated: a static cost model or default power.",
      },
    ],
  },
  {
    name: "EnergyCoverage",
    comment:
      'How much of the work a figure accounts for (JCP §5.2). Only `Partial` is ever on the wire; an absent field means jc:Whole, and the tag "Whole" is refused.',
    values: [{
      tag: "Partial",
      iri: "Partial",
      comment: "The figure covers only part of the work; the remainder is unmeasured.",
    }],
  },
  {
    name: "FrameKind",
    comment: "The kind of a JCP frame (JCP §6).",
    values: [
      { tag: "tool-call", iri: "ToolCall", comment: "A call of a tool." },
      { tag: "tool-result", iri: "ToolResult", comment: "A tool's result." },
      { tag: "agent-task", iri: "AgentTask", comment: "A task handed to an agent." },
      { tag: "agent-reply", iri: "AgentReply", comment: "An agent's reply." },
    ],
  },
  {
    name: "Trust",
    comment: "Whether a frame may exercise a capability (JCP §6).",
    values: [
      { tag: "control", iri: "Control", comment: "A control frame." },
      { tag: "data", iri: "Data", comment: "Untrusted output; never exercises a capability." },
    ],
  },
  {
    name: "JcpVerdict",
    comment: "The outcome of a JCP decision (JCP §7, §8).",
    values: [
      { tag: "allow", iri: "Allowed", comment: "The decision allowed the frame." },
      { tag: "deny", iri: "Denied", comment: "The decision denied the frame." },
    ],
  },
  {
    name: "Priority",
    comment: "An assertion's priority in a validation contract (SPEC §16.2).",
    values: [
      { tag: "must_have", iri: "MustHave", comment: "Blocks ship unless verified." },
      {
        tag: "should_have",
        iri: "ShouldHave",
        comment: "Blocks ship only when acceptance.block_on_should_have is true.",
      },
      { tag: "nice_to_have", iri: "NiceToHave", comment: "Never blocks ship." },
    ],
  },
];

/** The classes, in the order the ontology and the index list them. */
export const CLASSES: ClassDef[] = [
  // ---- SPEC §2 / JCR-1 §2: the cascade receipt
  {
    name: "Receipt",
    clause: "SPEC §2, JCR-1 §2.1",
    comment:
      'A cascade-walk receipt (jc_receipt "1"): what one resolution cost, in microjoules, and how honestly it was measured.',
    discriminator: { key: "jc_receipt", value: "1" },
    fields: [
      req("jc_receipt", "jcReceipt", s(), "Schema version of a receipt (SPEC §7).", { fixed: "1" }),
      req("id", "identifier", s(), "Stable receipt id, monotonic per steward."),
      req(
        "closed_at",
        "closedAt",
        dt,
        "When the cascade walk (or decision) closed; " + RFC3339_UTC_NOTE + ".",
      ),
      req(
        "input_hash",
        "inputHash",
        s(HEX64),
        "BLAKE3 (hex) of the normalised input that started the walk.",
      ),
      req("tier", "tier", en("CascadeTier"), "The tier that closed the query."),
      req("joules_uj", "joulesUj", u64, "Energy in microjoules (u64)."),
      req(
        "energy_provenance",
        "energyProvenance",
        en("EnergyProvenance"),
        "Honesty tag of the worst counter in the span.",
      ),
      req("steward", "steward", s(DID), "Signing identity (did:key, or a KERI AID as a DID)."),
      opt("tools_touched", "toolsTouched", node("ToolTouch"), "Per-tool energy, in call order.", {
        list: true,
      }),
      opt("claims", "claims", node("ClaimProvenance"), "Sources that grounded the resolution.", {
        list: true,
      }),
      opt(
        "tool_receipts",
        "toolReceipts",
        node("ToolReceipt"),
        "Gateway-attested tool invocations.",
        { list: true },
      ),
      opt("eoc_stage", "eocStage", s(), "EOC cascade stage label."),
      opt("citations", "citations", node("Citation"), "Span → source grounding (advisory).", {
        list: true,
      }),
      opt(
        "token_attributions",
        "tokenAttributions",
        node("TokenAttribution"),
        "Per-token saliency (advisory, outside the signed core).",
        {
          list: true,
        },
      ),
    ],
  },
  {
    name: "ToolTouch",
    clause: "SPEC §5, JCR-1 §2.5",
    comment: "One metered tool call on a receipt's tools_touched ledger.",
    fields: [
      req(
        "tool_id",
        "toolId",
        s(),
        "Stable tool id (e.g. mcp:filesystem/read, model:gemma4-9b-q5_k_m).",
      ),
      req("joules_uj", "joulesUj", u64, "Energy in microjoules (u64)."),
      req(
        "energy_provenance",
        "energyProvenance",
        en("EnergyProvenance"),
        "Honesty tag of the figure.",
      ),
    ],
  },
  {
    name: "ClaimProvenance",
    clause: "SPEC §4, JCR-1 §2.4",
    sub: ["prov:Entity"],
    comment: "A retrieved claim that contributed to a resolution (a prov:Entity).",
    fields: [
      req("source", "source", s(), "Where the claim came from: URL, DOI, did."),
      req("content_hash", "contentHash", s(HEX64), "BLAKE3 (hex) of the bytes as fetched."),
      req("fetched_at", "fetchedAt", dt, "When the claim was fetched; " + RFC3339_UTC_NOTE + "."),
      req(
        "trust_tier",
        "trustTier",
        uMax(10),
        "Trust tier 0..10, higher is more trusted (SPEC §4).",
      ),
    ],
  },
  {
    name: "ToolReceipt",
    clause: "JCR-1 §2.6, §5",
    comment: "A gateway-HMAC'd attestation that a tool was invoked through the gateway.",
    fields: [
      req("tool_id", "toolId", s(), "Stable tool id."),
      req("joules_uj", "joulesUj", u64, "Energy in microjoules (u64)."),
      req(
        "energy_provenance",
        "energyProvenance",
        en("EnergyProvenance"),
        "Honesty tag of the figure.",
      ),
      req("minted_at", "mintedAt", dt, "When the gateway minted it; " + RFC3339_UTC_NOTE + "."),
      req("gateway_id", "gatewayId", s(), "The gateway whose key made the HMAC."),
      req(
        "hmac_sha256_hex",
        "hmacSha256Hex",
        s(HEX64),
        "HMAC-SHA-256 over the JCR-1 §5 payload (hex).",
      ),
    ],
  },
  {
    name: "Citation",
    clause: "JCR-1 §2.7",
    comment: "Grounds a span of the output in a source chunk (advisory).",
    fields: [
      req("text_span", "textSpan", node("TextSpan"), "The half-open byte range of the output."),
      req("source_chunk_id", "sourceChunkId", s(), "The chunk the quote comes from."),
      req("exact_quote", "exactQuote", s(), "The verbatim quote, findable in the chunk."),
    ],
  },
  {
    name: "TextSpan",
    clause: "JCR-1 §2.7",
    comment: "A half-open byte range [start, end) over the output the consumer holds.",
    fields: [
      req("start", "spanStart", uMax(0xffffffff), "First byte (u32)."),
      req("end", "spanEnd", uMax(0xffffffff), "One past the last byte (u32)."),
    ],
  },
  {
    name: "TokenAttribution",
    clause: "JCR-1 §2.7",
    comment: "Per-token saliency, provider-defined and ordinal (advisory, never signed).",
    fields: [
      req("token_idx", "tokenIdx", uMax(0xffffffff), "Token index (u32)."),
      req(
        "chunk_scores",
        "chunkScores",
        { t: "json" },
        "Map of chunk id to score, kept as rdf:JSON.",
      ),
      opt("method", "attributionMethod", s(), "How the scores were computed."),
    ],
  },
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
  // ---- SPEC §16: validation contract and verdict
  {
    name: "ValidationContract",
    clause: "SPEC §16.1",
    comment: 'The planning artifact a multi-step run is judged against (jc_contract "contract/1").',
    discriminator: { key: "jc_contract", value: "contract/1" },
    fields: [
      req("jc_contract", "jcContract", s(), "Contract schema version.", { fixed: "contract/1" }),
      req("title", "title", s(), "Mission name."),
      req(
        "authored_by",
        "authoredBy",
        s("^(did:key:z[1-9A-HJ-NP-Za-km-z]+)?$"),
        "did:key of the author; empty for unsigned drafts.",
      ),
      req("assertions", "assertions", node("Assertion"), "Ordered assertions; ids unique.", {
        list: true,
      }),
      req("features", "features", node("Feature"), "Ordered features; ids unique.", { list: true }),
      opt("acceptance", "acceptance", node("Acceptance"), "Ship-gate rules."),
    ],
  },
  {
    name: "Assertion",
    clause: "SPEC §16.2",
    comment: "One falsifiable claim of a contract.",
    fields: [
      req("id", "identifier", s(), "Stable id (e.g. A-001)."),
      req("title", "title", s(), "One-line summary."),
      opt("rationale", "rationale", s(), "Why."),
      req("priority", "priority", en("Priority"), "must_have | should_have | nice_to_have."),
      req("check", "check", node("Check"), "How the claim is checked."),
    ],
  },
  {
    name: "Check",
    clause: "SPEC §16.2",
    comment: "How an assertion is checked: one of four kinds, chosen by `kind`.",
    kinds: {
      tool: "ToolCheck",
      artifact: "ArtifactCheck",
      command: "CommandCheck",
      checker: "CheckerCheck",
    },
    fields: [],
  },
  {
    name: "ToolCheck",
    clause: "SPEC §16.2",
    sub: ["jc:Check"],
    comment: "{ kind: tool, tool_id, args_hash? }.",
    fields: [
      req("tool_id", "toolId", s(), "The tool."),
      opt("args_hash", "argsHash", s(HEX64), "BLAKE3 of its arguments."),
    ],
  },
  {
    name: "ArtifactCheck",
    clause: "SPEC §16.2",
    sub: ["jc:Check"],
    comment: "{ kind: artifact, path, expected_hash? }.",
    fields: [
      req("path", "path", s(), "The artifact's path."),
      opt("expected_hash", "expectedHash", s(HEX64), "Its expected BLAKE3."),
    ],
  },
  {
    name: "CommandCheck",
    clause: "SPEC §16.2",
    sub: ["jc:Check"],
    comment: "{ kind: command, command_hash, expected_exit }.",
    fields: [
      req("command_hash", "commandHash", s(HEX64), "BLAKE3 of argv joined by NUL (SPEC §17.1)."),
      req("expected_exit", "expectedExit", { t: "integer" }, "The expected exit status."),
    ],
  },
  {
    name: "CheckerCheck",
    clause: "SPEC §16.2",
    sub: ["jc:Check"],
    comment: "{ kind: checker, checker_id }.",
    fields: [req("checker_id", "checkerId", s(), "The checker.")],
  },
  {
    name: "Feature",
    clause: "SPEC §16.3",
    comment: "One unit of work claiming assertions.",
    fields: [
      req("id", "identifier", s(), "Stable id (e.g. F-001)."),
      req("title", "title", s(), "Title."),
      opt("description", "description", s(), "Description."),
      req("claims", "claimsAssertion", s(), "Assertion ids this feature covers.", { list: true }),
    ],
  },
  {
    name: "Acceptance",
    clause: "SPEC §16.1, §16.6",
    comment: "Ship-gate rules of a contract.",
    fields: [
      opt(
        "block_on_should_have",
        "blockOnShouldHave",
        { t: "boolean" },
        "Whether should_have gaps block ship.",
      ),
    ],
  },
  {
    name: "ContractVerdict",
    clause: "SPEC §16.5",
    comment: 'The verifier\'s verdict over (contract, evidence) (jc_verdict "verdict/1").',
    discriminator: { key: "jc_verdict", value: "verdict/1" },
    fields: [
      req("jc_verdict", "jcVerdict", s(), "Verdict schema version.", { fixed: "verdict/1" }),
      req("contract_hash", "contractHash", s(HEX64), "BLAKE3 of the contract."),
      req("passed", "passed", { t: "boolean" }, "Whether the mission passed."),
      req("summary", "summary", s(), "One-line summary."),
      opt(
        "coverage",
        "coverage",
        { t: "json" },
        "The coverage matrix and per-assertion rollup, as rdf:JSON.",
      ),
      req("blocking_gaps", "blockingGaps", s(), "must_have ids not verified.", { list: true }),
      req("should_have_gaps", "shouldHaveGaps", s(), "should_have ids not verified.", {
        list: true,
      }),
    ],
  },
  {
    name: "VerdictReceipt",
    clause: "SPEC §16.7",
    comment: 'A contract verdict sealed for the log (jc_receipt "verdict-receipt/1").',
    discriminator: { key: "jc_receipt", value: "verdict-receipt/1" },
    fields: [
      req("jc_receipt", "jcReceipt", s(), "Schema version of a receipt (SPEC §7).", {
        fixed: "verdict-receipt/1",
      }),
      req("id", "identifier", s(), "Stable receipt id."),
      req("closed_at", "closedAt", dt, "When the verdict closed; " + RFC3339_UTC_NOTE + "."),
      req("steward", "steward", s(DID), "Signing identity."),
      req("engine_id", "engineId", s(), "The verifier instance."),
      req("audit_sequence", "auditSequence", u64, "Monotonic sequence number."),
      req("contract_hash", "contractHash", s(HEX64), "BLAKE3 of the contract."),
      req("verdict_json", "verdictJson", s(), "The ContractVerdict as the signed JSON string."),
      req("verdict_hash", "verdictHash", s(HEX64), "BLAKE3 of verdict_json's bytes."),
      opt(
        "verdict",
        "verdict",
        node("ContractVerdict"),
        "The verdict as a nested object (wire-form ergonomics).",
      ),
    ],
  },
  // ---- SPEC §17: worker handoff
  {
    name: "WorkerHandoff",
    clause: "SPEC §17.1",
    comment: "What a worker reports at the end of a feature's work (RunEvent::HandoffRecorded).",
    fields: [
      req("worker", "worker", s(), "Stable worker id (typically did:key)."),
      opt("node_id", "nodeId", s(), "The graph node this handoff closes."),
      opt("feature_id", "featureId", s(), "The contract feature it claims to satisfy."),
      req(
        "closed_at",
        "closedAtEpochSeconds",
        u64,
        "Wall-clock close, in seconds since the Unix epoch.",
      ),
      req("completed", "completed", s(), "Items reported done.", { list: true }),
      req("undone", "undone", s(), "Items left undone.", { list: true }),
      req("commands", "commands", node("HandoffCommand"), "Commands observed in the work window.", {
        list: true,
      }),
      req("issues_found", "issuesFound", s(), "Issues discovered.", { list: true }),
      req("procedures_followed", "proceduresFollowed", s(), "Skills / runbooks applied.", {
        list: true,
      }),
    ],
  },
  {
    name: "HandoffCommand",
    clause: "SPEC §17.1",
    comment: "{ command_hash, argv, exit_code }; command_hash = BLAKE3(argv joined by NUL).",
    fields: [
      req("command_hash", "commandHash", s(HEX64), "BLAKE3 of argv joined by NUL."),
      req("argv", "argv", s(), "The argv, for human inspection.", { list: true }),
      req("exit_code", "exitCode", { t: "integer" }, "The exit status."),
    ],
  },
  // ---- JCP §8: decision receipts
  {
    name: "JcpReceipt",
    clause: "JCP §8, §8.1",
    comment: 'A JCP decision receipt, profile jcp/2 (jcp_receipt "jcp/2").',
    discriminator: { key: "jcp_receipt", value: "jcp/2" },
    fields: jcpFields("jcp/2"),
  },
  {
    name: "JcpV1Receipt",
    clause: "JCP §8 (legacy profile)",
    sub: ["jc:JcpReceipt"],
    comment: "A legacy jcp/1 receipt: jcp/2 without payload_hash. Verified, never produced.",
    discriminator: { key: "jcp_receipt", value: "jcp/1" },
    fields: jcpFields("jcp/1"),
  },
  // ---- meter-reading/1 (docs/METER-READING.md)
  {
    name: "MeterReading",
    clause: "meter-reading/1 (JCP §5, §5.2; SPEC §7)",
    comment: 'One signed, graded energy reading from a meter agent (jc_receipt "meter-reading/1").',
    discriminator: { key: "jc_receipt", value: "meter-reading/1" },
    fields: [
      req("jc_receipt", "jcReceipt", s(), "Schema version (SPEC §7).", {
        fixed: "meter-reading/1",
      }),
      req("agent", "agent", s(DID_KEY), "The meter agent (== the COSE kid)."),
      req("seq", "seq", u64, "Position in the agent's chain, from 0."),
      req(
        "prev",
        "prev",
        s(HEX64),
        "BLAKE3 of the previous reading's envelope (64 zeros at seq 0).",
      ),
      req("host", "host", s(), "The host measured."),
      // docs/METER-READING.md: the rung is a closed list (the verifier's too).
      req("counter", "counter", s(RUNG), "The counter read (rung)."),
      req("domain", "domain", s(), "The domain the figure claims."),
      // docs/METER-READING.md: times are integers, milliseconds since the Unix epoch (API.md's
      // convention for fields not named *_at), as the agent signs them and the verifier checks.
      req("start", "readingStart", u64, "Start of the interval, ms since the Unix epoch."),
      req("end", "readingEnd", u64, "End of the interval, ms since the Unix epoch."),
      req("energy_uj", "energyUj", u64, "Energy in microjoules (u64)."),
      req("energy_provenance", "energyProvenance", en("EnergyProvenance"), "Honesty tag."),
      opt(
        "energy_coverage",
        "energyCoverage",
        en("EnergyCoverage"),
        "Present only when Partial (JCP §5.2).",
      ),
      req("resolution_uj", "resolutionUj", u64, "The counter's resolution in microjoules."),
      opt(
        "liveness",
        "liveness",
        { t: "json" },
        "Liveness evidence (JCP §5), kept verbatim as rdf:JSON.",
      ),
      opt(
        "plausibility",
        "plausibility",
        { t: "json" },
        "Plausibility evidence (JCP §5), kept verbatim as rdf:JSON.",
      ),
      // docs/METER-READING.md: `declined` is not optional (an empty list when none was declined).
      req(
        "declined",
        "declined",
        node("DeclinedRung"),
        "Rungs above the chosen one that were declined, and why.",
        { list: true },
      ),
    ],
  },
  {
    name: "DeclinedRung",
    clause: "JCP §5.1",
    comment: "A metering-ladder rung the agent declined, with the reason.",
    fields: [
      req("rung", "rung", s(RUNG), "The rung."),
      req("reason", "declineReason", s(), "Why it was declined."),
      opt("detail", "declineDetail", s(), "What the agent saw (free text)."),
    ],
  },
  // ---- SPEC §22.2: tree head
  {
    name: "TreeHead",
    clause: "SPEC §22.2",
    comment:
      "A signed tree head of the transparency log: Ed25519 over 0x02 || size || root || timestamp.",
    fields: [
      req("size", "treeSize", u64, "Number of entries."),
      req("root", "rootHash", s(HEX64), "BLAKE3 Merkle root (hex)."),
      req("timestamp", "timestampMs", u64, "Milliseconds since the Unix epoch."),
      req("signature", "signature", s("^[0-9a-f]{128}$"), "Ed25519 signature (hex)."),
      req("signer", "signer", s(DID_KEY), "The log key's did:key."),
    ],
  },
];

function jcpFields(tag: "jcp/2" | "jcp/1"): Field[] {
  const f: Field[] = [
    req("jcp_receipt", "jcpReceipt", s(), "JCP receipt profile.", { fixed: tag }),
    req("grant_id", "grantId", s(HEX64), "Content id of the grant exercised."),
    req("issuer", "issuer", s(DID_KEY), "The grant's issuer."),
    req("subject", "subject", s(DID_KEY), "The grant's subject."),
    req("resource", "resource", s(HEX64), "Content id of the resource."),
    req("action", "jcpAction", s(), "The action exercised."),
    req("payload_hash", "payloadHash", s(HEX64), "Content id of what was acted upon (JCP §8)."),
    req("frame_kind", "frameKind", en("FrameKind"), "The frame's kind."),
    req("trust", "trust", en("Trust"), "control | data."),
    req("verdict", "jcpVerdict", en("JcpVerdict"), "allow | deny."),
    opt("deny_reason", "denyReason", s(), "Why, on deny (JCP §7)."),
    req("cost_uj", "costUj", u64, "Metered cost in microjoules."),
    req("energy_provenance", "energyProvenance", en("EnergyProvenance"), "Honesty tag."),
    opt(
      "energy_coverage",
      "energyCoverage",
      en("EnergyCoverage"),
      "Present only when Partial (JCP §5.2).",
    ),
    req("budget_remaining_uj", "budgetRemainingUj", u64, "Remaining budget."),
    req("budget_uj", "budgetUj", u64, "The grant's ceiling."),
    opt(
      "debited_uj",
      "debitedUj",
      u64,
      "What was debited, where the verdict does not say it (JCP §8.1).",
    ),
    opt("chain_ids", "chainIds", s(HEX64), "Every grant debited, root first (JCP §8.1).", {
      list: true,
    }),
    opt("chain_debited_uj", "chainDebitedUj", u64, "Per-link debits (JCP §8.1).", { list: true }),
    opt("debited_minor", "debitedMinor", u64, "Money debited (JCP §4.8)."),
    opt("chain_debited_minor", "chainDebitedMinor", u64, "Per-link money debits.", { list: true }),
    opt("tainted_uj", "taintedUj", u64, "Tainted accrual (JCP §4.10)."),
    opt("held_uj", "heldUj", u64, "A hold's reservation (JCP §8.1)."),
    opt("held_minor", "heldMinor", u64, "A hold's money reservation."),
    opt("settles", "settles", s(HEX64), "The hold this decision accounts for."),
    opt("minted_uj", "mintedUj", u64, "Budget of the child a firing minted (JCP §4.6)."),
    opt("seq", "seq", u64, "Position in a hash-chained log, from 0."),
    opt("prev", "prev", s(HEX64), "Content id of the previous entry's envelope."),
    opt("flow", "flow", { t: "json" }, "Flow block (JCP §4.10), kept verbatim as rdf:JSON."),
    req("steward", "steward", s(DID), "The signer's id (the COSE kid)."),
  ];
  return tag === "jcp/1" ? f.filter((x) => x.key !== "payload_hash") : f;
}

/** Properties the log adds to every entry's node (API.md, `GET /v1/log/export`). */
export const LOG_PROPS = {
  logIndex: "Position of the entry in the transparency log (0-based).",
  leafHash: "BLAKE3(0x00 || entry): the leaf hash an inclusion proof starts from (SPEC §22.1).",
  verifierConfig:
    "The log entry of the verifier-config/1 document the entry was judged under (issue 23).",
} as const;

/** Classes by name. */
export const CLASS_BY_NAME: ReadonlyMap<string, ClassDef> = new Map(
  CLASSES.map((c) => [c.name, c]),
);
/** Enumerations by name. */
export const ENUM_BY_NAME: ReadonlyMap<string, EnumDef> = new Map(ENUMS.map((e) => [e.name, e]));
