// The log's stream findings (issue 24, docs/STREAMS.md): what the stream checks found across
// entries (JCP §8.1 `seq`/`prev`, JCR-1 §2 `id`, SPEC §9-§10 `audit_sequence`, JCP §11). Not a
// signed document: the log's own statement about its entries, which changes as entries arrive (a
// gap clears), so it is never part of an entry's immutable graph.
import { DID, iri, opt, req, s, u64 } from "./build.ts";
import type { ClassDef } from "./build.ts";

/** docs/STREAMS.md "Findings": the stable codes (log/streams/facts.ts FINDING_CODES). */
export const FINDING_CODE =
  "^(stream-gap|stream-fork|stream-prev-mismatch|receipt-id-reused|settles-unknown|" +
  "audit-sequence-regression|closed-after-integration|grant-revoked|revocation-unverifiable)$";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const STREAM_CLASSES: ClassDef[] = [
  {
    name: "StreamFinding",
    clause: "issue 24; JCP §8.1, JCR-1 §2, SPEC §9-§10, JCP §11",
    comment: "A finding of the log's stream checks about an entry: a gap, a fork, a wrong prev, " +
      "a reused receipt id, an unknown settle, an audit-sequence regression, a close after " +
      "integration (docs/STREAMS.md), or an allow against a revoked grant or one whose " +
      "revocation the log cannot check (docs/GRANTS.md). The log's statement, not the steward's; a gap clears.",
    fields: [
      req("code", "findingCode", s(FINDING_CODE), "The finding's stable code (docs/STREAMS.md)."),
      req("steward", "steward", s(DID), "The steward whose entries it is about."),
      opt("stream", "streamKey", s(), "The hash-chained stream's key under its steward (jcp)."),
      req("about", "aboutEntry", iri, "The log entry the finding is about (its URL)."),
      opt("seq", "seq", u64, "The stream position (chain findings) or the audit sequence."),
      opt(
        "other",
        "otherEntry",
        iri,
        "The entry on the other side: the fork's first envelope, the reused id's first receipt, " +
          "the link whose id did not match, the revocation of a revoked grant (its URL).",
      ),
      opt(
        "cleared_by",
        "clearedBy",
        iri,
        "For a gap: the entry that brought the missing link, clearing it (its URL).",
      ),
    ],
  },
];
