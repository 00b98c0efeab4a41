// POST /v1/log/entries (API.md "Log"; ARCHITECTURE Decision 7; JouleClaw SPEC §22.3): verify,
// then append. The answer comes only after the entry is durable and covered by a signed head
// (Log.append's contract), and carries the index, the head and the inclusion proof; identical
// bytes, or another envelope of the same signed content, resubmitted get the existing entry (200,
// exactly once: docs/DECISIONS.md "One entry per signed content"). An invalid envelope never
// reaches the log (422 with the report). Every other verdict class is appended and named in the
// answer (JCR-1 §6, SPEC §6; verify/verdict_class.ts): valid, joule-unverified, and alert — drift
// beyond the band is "a non-conformance signal, not a hard failure", so the log holds the evidence
// and the answer carries the DriftAlert (`drift_alert`: the band, the reference and the figure).
import { PushbackError } from "../../../log/mod.ts";
import { admitEnvelope, reportFacts } from "../append_admission.ts";
import { mediaTypeOf, readEnvelope } from "../envelope_input.ts";
import type { RouteGroup } from "../route.ts";
import { appendBulk } from "./log_append_bulk.ts";
import { verifierConfigRef } from "../verifier_options.ts";
import { revocationOf } from "../revocation_status.ts";

/** The log-append route group. */
export const logAppendRoutes: RouteGroup = {
  name: "log-append",
  routes: [{
    method: "POST",
    path: "/v1/log/entries",
    class: {
      id: "jc:LogEntryCollection",
      title: "Log entries",
      description: "The log's entries, in log order.",
    },
    operation: {
      title: "Append a receipt envelope",
      description:
        "Verifies the envelope (as POST /v1/verify) and appends it unless its verdict is invalid: " +
        "valid, joule-unverified and alert (joules outside the drift band, SPEC §6 DriftAlert) " +
        "receipts are appended. Answered after the entry is durable and covered by a signed tree " +
        "head, with {index, leaf_hash, verdict, drift_alert (alert only), tree_head, " +
        "inclusion_proof, verifier_config: {digest, index}} and the stream findings it caused (findings; docs/STREAMS.md); a jcp allow its revocation status (revocation: {status: checked|revoked|unverifiable, ...}; docs/GRANTS.md); a receipt whose steward has a key-event chain also key_event: {identity, seq, index}, the event whose current key it was judged under (docs/KEYS.md). Bulk (issue 29): an application/cbor-seq body (RFC 8742, the " +
        "envelopes one after another, at most bulk_max_envelopes and bulk_body_limit bytes) is " +
        "answered 200 with {tree_head, results}: one result per envelope, in order, either a " +
        "single append's answer (status 201 or 200, index, leaf_hash, verdict, drift_alert, " +
        "inclusion_proof against that one tree_head, created) or its refusal (status, code, " +
        "detail); tree_head is null when none was logged.",
      expects: "jc:EnvelopeSubmission",
      returns: "jc:AppendResult",
      possibleStatus: [
        {
          status: 201,
          description:
            "Appended; Location names the entry; `verdict` is valid, joule-unverified or alert.",
        },
        {
          status: 200,
          description:
            "The same signed content was already in the log (identical bytes, or a twin envelope: " +
            "tag 18 added or removed, or another valid signature): that entry, with its leaf " +
            "hash. Bulk (application/cbor-seq): always, {tree_head, results}.",
        },
        {
          status: 400,
          description: "No body, bad JSON or bad hex; a stream seq past 2^53 - 1 " +
            "(stream-seq-range); a malformed JCP §8.1 link: seq not an unsigned integer, prev " +
            "not 64 lowercase hex, or one without the other (stream-link-malformed). Nothing " +
            "is written; bulk: that envelope's refusal.",
        },
        { status: 403, description: "The steward is not on this log's list of stewards." },
        {
          status: 409,
          description:
            "This shard is frozen (shard-frozen): `active` names the shard to append to.",
        },
        {
          status: 413,
          description: "Over body_limit, an envelope over 65,535 bytes; bulk: over " +
            "bulk_body_limit (body-too-large) or bulk_max_envelopes (too-many-envelopes), before " +
            "any envelope is verified.",
        },
        {
          status: 415,
          description: "Neither application/cose, application/json nor application/cbor-seq.",
        },
        {
          status: 422,
          description:
            "The envelope's verdict is invalid: one of JCR-1 §6 steps 1-5 fails (the report says " +
            "why; never an out-of-band figure, which is an alert), or it is a meter reading, which " +
            "only POST /v1/readings appends (readings-route-only), or a verifier-config/1 " +
            "document, which only the service logs (verifier-config-not-appendable); its steward " +
            "has a key-event chain whose current key is not its kid (key-rotated-out); or an " +
            "efficiency/1 outcome that does not trace (JCP §5.3: activity-unresolved, " +
            "activity-not-activity, activities-sum-mismatch, provenance-above-floor, " +
            "coverage-above-floor, activity-bound-twice; outcomes-unchecked on a log without " +
            "stream checks).",
        },
        { status: 503, description: "The sequencer is full; Retry-After says when to retry." },
      ],
      toolId: "jouleclaw:log.append",
      mutating: true,
    },
    handler: async (c) => {
      const deps = c.get("deps");
      const started = c.get("startedAt");
      if (mediaTypeOf(c.req.header("content-type") ?? null) === "application/cbor-seq") {
        return await appendBulk(c);
      }
      const envelope = await readEnvelope(c.req.raw, deps.config.bodyLimit);
      // issue 23: the configuration it is judged under, logged before it (waits for the start's)
      const cfg = await verifierConfigRef(deps);
      const signer: { kid?: string } = {};
      const report = await admitEnvelope(deps, envelope, signer);
      // issue 24: the stream facts from the report's core (read once, here), for the log's checks
      const facts = reportFacts(deps, envelope, report, signer.kid);
      let res;
      try {
        res = await deps.log.append(envelope, undefined, facts);
      } catch (e) {
        if (e instanceof PushbackError) {
          deps.metrics.inc("jc_pushback_total");
        }
        throw e;
      }
      // issue 25: every jcp allow states its revocation status (docs/GRANTS.md)
      const core = report.receipt as Record<string, unknown>;
      const revocation = await revocationOf(deps, res.index, core, facts?.allow, res.revocation);
      const now = performance.now();
      deps.metrics.append(res.created, now - started, res.tree_head.size);
      deps.metrics.set("jc_tree_size", res.tree_head.size);
      const body = {
        index: res.index,
        leaf_hash: res.leaf_hash,
        verdict: report.verdict,
        ...(report.drift_alert ? { drift_alert: report.drift_alert } : {}),
        tree_head: res.tree_head,
        inclusion_proof: res.inclusion_proof,
        // issue 24: the stream findings this append caused (never a refusal: the entry is logged)
        ...(res.findings ? { findings: res.findings } : {}),
        ...(revocation ? { revocation } : {}),
        // issue 25: the key event a receipt under an identity was judged under (docs/KEYS.md)
        ...(res.key_event ? { key_event: res.key_event } : {}),
        // issue 23: the configuration this envelope was judged under
        ...(cfg ? { verifier_config: cfg } : {}),
      };
      if (!res.created) return c.json(body, 200);
      c.header("location", `/v1/log/entries/${res.index}`);
      return c.json(body, 201);
    },
  }],
};
