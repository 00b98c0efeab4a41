// The vocabulary's enumerations (SPEC §13): wire tag -> individual, for every enumerated field of
// the classes (vocab/schema/mod.ts).
import type { EnumDef } from "./build.ts";

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
