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
// meter reading (`meter-reading/1`, docs/METER-READING.md), the log's signed tree head (§22.2) and
// the `intercept/1` step and `efficiency/1` outcome receipts (JCP §5.2, §5.3).
//
// The table is written across this folder (build.ts: namespace, shapes and builders; enums.ts;
// receipts.ts, policy.ts, contracts.ts, records.ts, outcomes.ts, streams.ts: the classes, in this order); this file is its
// receipts.ts, policy.ts, contracts.ts, records.ts, streams.ts, keys.ts: the classes, in this order); this file is its
// face. It imports nothing outside the folder, so the page bundle (web/app/fields.ts) takes the
// table without jsonld, n3 or the SHACL validator.
import type { ClassDef, EnumDef } from "./build.ts";
import { ENUMS } from "./enums.ts";
import { RECEIPT_CLASSES } from "./receipts.ts";
import { POLICY_CLASSES } from "./policy.ts";
import { CONTRACT_CLASSES } from "./contracts.ts";
import { RECORD_CLASSES } from "./records.ts";
import { STREAM_CLASSES } from "./streams.ts";
import { OUTCOME_CLASSES } from "./outcomes.ts";
import { GRANT_CLASSES } from "./grants.ts";
import { KEY_CLASSES } from "./keys.ts";

export {
  type ClassDef,
  CONTEXT_URL,
  type EnumDef,
  type Field,
  JC,
  ONTOLOGY_URL,
  type Range,
  SHAPES_URL,
  U64_MAX,
  UNKNOWN_BASE,
  WORKSPACE_PATH,
} from "./build.ts";
export { ENUMS };

/** The classes, in the order the ontology and the index list them. */
export const CLASSES: ClassDef[] = [
  ...RECEIPT_CLASSES,
  ...POLICY_CLASSES,
  ...CONTRACT_CLASSES,
  ...RECORD_CLASSES,
  ...OUTCOME_CLASSES,
  ...STREAM_CLASSES,
  ...GRANT_CLASSES,
  ...KEY_CLASSES,
];
export { JCP_OBJECT_CLASS } from "./grants.ts";

/** Properties the log adds to every entry's node (API.md, `GET /v1/log/export`). */
export const LOG_PROPS = {
  logIndex: "Position of the entry in the transparency log (0-based).",
  leafHash: "BLAKE3(0x00 || entry): the leaf hash an inclusion proof starts from (SPEC §22.1).",
  verificationVerdict:
    "The entry's verdict class (JCR-1 §6, SPEC §6): valid, joule-unverified or alert (joules outside the drift band, a DriftAlert); invalid receipts are never logged.",
  verifierConfig:
    "The log entry of the verifier-config/1 document the entry was judged under (issue 23).",
  contentId:
    "JCP §3: the content id of the entry's envelope, BLAKE3 of its bytes (lowercase hex): what a receipt's settles and prev name (issue 30).",
  integratedAt:
    "JCP §11: the entry's integration time, the timestamp of the first signed tree head that covers it, in milliseconds since the Unix epoch: the time accounts windows read (docs/ACCOUNTING.md).",
} as const;

/** Classes by name. */
export const CLASS_BY_NAME: ReadonlyMap<string, ClassDef> = new Map(
  CLASSES.map((c) => [c.name, c]),
);
/** Enumerations by name. */
export const ENUM_BY_NAME: ReadonlyMap<string, EnumDef> = new Map(ENUMS.map((e) => [e.name, e]));
