// The validation contract and its verdict (SPEC §16), the verdict receipt (§16.7) and the worker
// handoff (§17.1).
import { DID, dt, en, HEX64, node, opt, req, RFC3339_UTC_NOTE, s, u64 } from "./build.ts";
import type { ClassDef } from "./build.ts";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const CONTRACT_CLASSES: ClassDef[] = [
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
];
