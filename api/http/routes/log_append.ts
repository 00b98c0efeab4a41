// POST /v1/log/entries (API.md "Log"; ARCHITECTURE Decision 7; JouleClaw SPEC §22.3): verify,
// then append. The answer comes only after the entry is durable and covered by a signed head
// (Log.append's contract), and carries the index, the head and the inclusion proof; identical
// bytes, or another envelope of the same signed content, resubmitted get the existing entry (200,
// exactly once: docs/DECISIONS.md "One entry per signed content"). An invalid envelope never
// reaches the log (422 with the report).
import { PushbackError } from "../../../log/mod.ts";
import { failureCodes } from "../../../verify/mod.ts";
import { readEnvelope } from "../envelope_input.ts";
import { ApiError } from "../errors.ts";
import type { RouteGroup } from "../route.ts";
import { refuseConfigEnvelope, verifierConfigRef, verifyWith } from "../verifier_options.ts";
import { outcomeCode } from "./verify.ts";

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
        "Verifies the envelope (as POST /v1/verify) and appends it. Answered after the entry is " +
        "durable and covered by a signed tree head, with {index, leaf_hash, tree_head, " +
        "inclusion_proof, verifier_config: {digest, index}}.",
      expects: "jc:Envelope",
      returns: "jc:AppendResult",
      possibleStatus: [
        { status: 201, description: "Appended; Location names the entry." },
        {
          status: 200,
          description:
            "The same signed content was already in the log (identical bytes, or a twin envelope: " +
            "tag 18 added or removed, or another valid signature): that entry, with its leaf hash.",
        },
        { status: 400, description: "No body, bad JSON or bad hex." },
        { status: 403, description: "The steward is not on this log's list of stewards." },
        {
          status: 409,
          description:
            "This shard is frozen (shard-frozen): `active` names the shard to append to.",
        },
        { status: 415, description: "Neither application/cose nor application/json." },
        {
          status: 422,
          description:
            "The envelope does not verify (the report says why), or it is a meter reading, which " +
            "only POST /v1/readings appends (readings-route-only), or a verifier-config/1 " +
            "document, which only the service logs (verifier-config-not-appendable).",
        },
        { status: 503, description: "The sequencer is full; Retry-After says when to retry." },
      ],
      toolId: "jouleclaw:log.append",
      mutating: true,
    },
    handler: async (c) => {
      const deps = c.get("deps");
      const started = c.get("startedAt");
      const envelope = await readEnvelope(c.req.raw, deps.config.bodyLimit);
      refuseConfigEnvelope(envelope);
      // issue 23: the configuration it is judged under, logged before it (waits for the start's)
      const cfg = await verifierConfigRef(deps);
      const report = await verifyWith(deps, envelope);
      const outcome = outcomeCode(report);
      deps.metrics.verification(outcome);
      if (!report.valid) {
        // JCR-1 §6: failure at steps 1-4 makes the receipt invalid; it is never logged.
        throw new ApiError(outcome, `Cannot append the envelope: it does not verify (${outcome})`, {
          status: 422,
          extra: { codes: failureCodes(report), report },
        });
      }
      if (report.schema === "meter-reading/1") {
        // A reading is only ever logged through POST /v1/readings, which checks the agent's
        // registration and its chain (strictly increasing seq, prev = BLAKE3 of the previous
        // envelope) before appending; a reading appended here would skip both, and a replayed
        // out-of-order reading would corrupt the chain state /v1/readings derives from the log.
        throw new ApiError(
          "readings-route-only",
          "Cannot append the envelope: a meter-reading/1 is appended through POST /v1/readings",
        );
      }
      if (
        deps.config.appends === "listed" && !deps.config.stewards.includes(report.steward ?? "")
      ) {
        throw new ApiError(
          "steward-not-allowed",
          `Cannot append the envelope: steward ${report.steward} is not listed on this log`,
        );
      }
      let res;
      try {
        res = await deps.log.append(envelope);
      } catch (e) {
        if (e instanceof PushbackError) {
          deps.metrics.inc("jc_pushback_total");
        }
        throw e;
      }
      const now = performance.now();
      deps.metrics.append(res.created, now - started, res.tree_head.size);
      deps.metrics.set("jc_tree_size", res.tree_head.size);
      const body = {
        index: res.index,
        leaf_hash: res.leaf_hash,
        tree_head: res.tree_head,
        inclusion_proof: res.inclusion_proof,
        // issue 23: the configuration this envelope was judged under
        ...(cfg ? { verifier_config: cfg } : {}),
      };
      if (!res.created) return c.json(body, 200);
      c.header("location", `/v1/log/entries/${res.index}`);
      return c.json(body, 201);
    },
  }],
};
