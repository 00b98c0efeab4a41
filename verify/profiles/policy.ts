// JouleClaw SPEC §10 — the policy receipt (jc_receipt "policy/1") and §10.1 binding to the rules.

import type { CborMap } from "../cbor.ts";
import { parsePolicy, type Policy, policyDigest } from "../policy_digest.ts";
import { checkFields, F, type FieldTable, type Finding, opt, req, text } from "./fields.ts";
import {
  failWith,
  NOT_APPLICABLE,
  type Profile,
  type ProfileOptions,
  type StepOutcome,
} from "./types.ts";

/** SPEC §10 signed core of a policy receipt. */
export const POLICY_FIELDS: FieldTable = {
  jc_receipt: req(F.text),
  id: req(F.text),
  closed_at: req(F.rfc3339),
  steward: req(F.text),
  engine_id: req(F.text),
  audit_sequence: req(F.uint),
  policy_version: req(F.uint),
  // SPEC §10.1: when absent the field is omitted entirely (never null or "").
  policy_digest: opt(F.hex64),
  agent: req(F.didKey),
  action: req(F.anyMap),
  decision: req(F.anyMap),
};

/** SPEC §9 `Action` variants as carried in the receipt (`kind` + the variant's fields). */
const ACTIONS: Record<string, FieldTable> = {
  filesystem: { path: req(F.text), mode: req(F.text) },
  network: { host: req(F.text), port: req(F.u16), method: req(F.text) },
  process: { binary: req(F.text), argv: opt(F.arrayOf(F.text)) },
};

/** SPEC §9 `Decision`: Allow { rule } | Deny { reason, rule? (ExplicitDeny) }. */
const DECISIONS: Record<string, FieldTable> = {
  allow: { rule: req(F.text) },
  deny: { reason: req(F.text), rule: opt(F.text) },
};

/** The `kind` member naming a variant (tables built once, not per receipt). */
const KINDS = new Map<Record<string, FieldTable>, FieldTable>(
  [ACTIONS, DECISIONS].map((v) => [v, { kind: req(F.oneOf(...Object.keys(v))) }]),
);

function variant(
  m: CborMap,
  path: string,
  variants: Record<string, FieldTable>,
): Finding | undefined {
  const f = checkFields(m, KINDS.get(variants)!, path);
  if (f) return f;
  return checkFields(m, variants[text(m, "kind")!], path);
}

function structure(core: CborMap): Finding | undefined {
  return checkFields(core, POLICY_FIELDS) ??
    variant(core.get("action") as CborMap, "action", ACTIONS) ??
    variant(core.get("decision") as CborMap, "decision", DECISIONS);
}

const indexCache = new WeakMap<object, Map<string, Policy>>();

/**
 * The operator's policies indexed by their recomputed §10.1 digest. The record's keys are not
 * trusted: each policy is hashed here, so a mislabelled entry can never vouch for a receipt.
 * Entries that are not policies are left out (the CLI refuses them when loading).
 */
export function policyIndex(policies: Record<string, unknown>): Map<string, Policy> {
  let idx = indexCache.get(policies);
  if (idx) return idx;
  idx = new Map();
  for (const doc of Object.values(policies)) {
    try {
      const p = parsePolicy(doc);
      idx.set(policyDigest(p), p);
    } catch { /* not a policy: cannot vouch for anything */ }
  }
  indexCache.set(policies, idx);
  return idx;
}

/** SPEC §10.1: when the caller supplies the policy, the receipt's digest must be that policy's. */
function honesty(core: CborMap, opts: ProfileOptions): StepOutcome {
  const digest = text(core, "policy_digest");
  // SPEC §10.1: a consumer checks for the field's presence rather than defaulting it.
  if (digest === undefined) {
    return {
      status: "skipped",
      code: "policy-unbound",
      detail: "the receipt carries no policy_digest (SPEC §10.1)",
    };
  }
  if (!opts.policies || Object.keys(opts.policies).length === 0) {
    return {
      status: "skipped",
      code: "policy-unchecked",
      detail: "no policy supplied to check policy_digest against",
    };
  }
  const policy = policyIndex(opts.policies).get(digest);
  if (!policy) {
    return failWith({
      code: "policy-digest-mismatch",
      detail: `policy_digest ${digest} is the digest of none of the supplied policies (SPEC §10.1)`,
    });
  }
  const decision = core.get("decision") as CborMap;
  const kind = text(decision, "kind")!;
  const rule = text(decision, "rule");
  if (rule !== undefined) {
    // The named rule must exist in the bound policy with the effect the decision reports (SPEC §9).
    const r = policy.rules.find((x) => x.name === rule);
    if (!r || r.effect !== kind) {
      return failWith({
        code: "policy-rule-mismatch",
        detail: r
          ? `decision ${kind} names rule "${rule}", whose effect in the bound policy is ${r.effect}`
          : `decision names rule "${rule}", which the bound policy does not contain`,
      });
    }
  }
  return {
    status: "pass",
    code: "policy-bound",
    detail: `policy_digest matches a supplied policy`,
  };
}

/** The policy receipt profile, schema tag `jc_receipt: "policy/1"`. */
export const policyProfile: Profile = {
  schema: "policy/1",
  tagField: "jc_receipt",
  produced: true,
  // SPEC §10: the envelope is `protected = {1: -8, 4: steward}`, EdDSA only (docs/DECISIONS.md).
  algs: [-8],
  fields: POLICY_FIELDS,
  structure,
  toolReceipts: () => NOT_APPLICABLE,
  honesty,
  joules: () => NOT_APPLICABLE,
};
