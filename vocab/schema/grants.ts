// JCP §4 grants and §4.3 revocations as the log holds them (issue 25; docs/GRANTS.md): signed
// objects logged beside receipts, with no schema tag (their content ids are BLAKE3 of exactly
// their canonical bytes, JCP §3), so their class is named by the log (vocab/rdf.ts), never
// discriminated by a key. Bytes (a nonce) are lowercase hex in the JSON projection.
import { DID_KEY, HEX64, node, opt, req, s, u64 } from "./build.ts";
import type { ClassDef } from "./build.ts";

const NONCE = "^[0-9a-f]{32}$";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const GRANT_CLASSES: ClassDef[] = [
  {
    name: "Grant",
    clause: "JCP §4, §4.1, §4.4",
    comment: "A metered capability: its issuer grants its subject the actions on a resource, up " +
      "to a joule ceiling, until an expiry; a delegated grant names the grant it narrows " +
      "(`parent`). Its id is BLAKE3 of its canonical bytes (JCP §3).",
    fields: [
      req("issuer", "issuer", s(DID_KEY), "The grant's issuer."),
      req("subject", "subject", s(DID_KEY), "The grant's subject."),
      req("capability", "capability", node("GrantCapability"), "The resource and its actions."),
      req("budget_uj", "budgetUj", u64, "The grant's ceiling."),
      opt("budget_funds", "budgetFunds", { t: "json" }, "A money ceiling (JCP §4.8)."),
      opt("caveats", "caveats", { t: "json" }, "Embedded conditions (JCP §4.9)."),
      req("expiry", "expiry", u64, "Unix seconds; 0: no expiry."),
      opt(
        "parent",
        "parent",
        s(HEX64),
        "The content id of what this follows: the grant it narrows (JCP §4.1), or the previous key event (JCP §2.1; absent at inception).",
      ),
      opt("delegate_depth", "delegateDepth", u64, "Further hops permitted; 0: leaf-only (§4.4)."),
      req("nonce", "nonce", s(NONCE), "16 random bytes, lowercase hex."),
    ],
  },
  {
    name: "GrantCapability",
    clause: "JCP §4",
    comment: "What a grant permits: a resource addressed by content and the actions on it.",
    fields: [
      req("resource", "resource", s(HEX64), "Content id of the resource."),
      req("actions", "actions", s(), "The permitted actions.", { list: true }),
    ],
  },
  {
    name: "Revocation",
    clause: "JCP §4.3",
    comment: "The revocation of a grant, signed by the grant's issuer: the grant and every chain " +
      "containing it are dead. Its log index is the grant's revocation marker.",
    fields: [
      req("grant_id", "grantId", s(HEX64), "Content id of the revoked grant."),
      req("revoked_by", "revokedBy", s(DID_KEY), "The revoker: the grant's issuer."),
      req("nonce", "nonce", s(NONCE), "16 random bytes, lowercase hex."),
    ],
  },
];

/** The class of each JCP object kind the vocabulary describes (a key event has none here). */
export const JCP_OBJECT_CLASS: Readonly<Record<string, string>> = {
  grant: "Grant",
  revocation: "Revocation",
  "key-event": "KeyEvent", // issue 25: JCP §2.1
};
