// Bulk appends (issue 29; API.md "Log"): POST /v1/log/entries with `application/cbor-seq`
// (RFC 8742), the envelopes one after another. Each envelope is judged exactly as a single
// append judges it (api/http/append_admission.ts: verified off the event loop when the entry
// has a verifier pool, the envelopes of the body travelling to it together) and the admitted
// ones are appended in one go (`Log.appendMany`, else one `append` each in one turn: the
// sequencer batches them), deduplicated exactly as single appends are. The answer is
// `{tree_head, results}`: one result per item, in order, either what a single append answers
// (`status` 201 or 200, `index`, `leaf_hash`, `verdict`, an alert's `drift_alert`,
// `inclusion_proof`, `created`) or its refusal
// (`status`, `code`, `detail`, and the single answer's extra fields but the report). Every
// logged result is proved against the one `tree_head`, the largest head any of them was
// covered by, so the answer comes only once every logged envelope is durable and covered by a
// signed head (Log.append's contract); `tree_head` is null when nothing was logged. A refused
// envelope never holds back the others (docs/DECISIONS.md "Bulk appends").
import type { AppendResult, EntryFacts, TreeHead } from "../../../log/mod.ts";
import { PushbackError } from "../../../log/mod.ts";
import { toHex, type VerificationReport } from "../../../verify/mod.ts";
import { admitEnvelope, reportFacts } from "../append_admission.ts";
import { readBulk } from "../bulk_input.ts";
import { type Problem, problemOf } from "../errors.ts";
import type { AppDeps, AppEnv } from "../route.ts";
import type { Context } from "hono";

/** One item's answer in a bulk append. */
export type BulkResult =
  | {
    status: 200 | 201;
    index: number;
    leaf_hash: string;
    /** JCR-1 §6, SPEC §6: valid, joule-unverified or alert */
    verdict: string;
    drift_alert?: unknown;
    inclusion_proof: string[];
    created: boolean;
  }
  | { status: number; code: string; detail: string; [extra: string]: unknown };

/** A refusal as a bulk result: the problem's status, code, detail and extras but the report. */
function refusal(p: Problem): BulkResult {
  const { report: _report, ...extra } = p.extra;
  return { ...extra, status: p.status, code: p.code, detail: p.detail };
}

/**
 * Appends `entries`: one settled outcome each, in order; each with its stream facts when the
 * verifier worker read them (else the sequencer reads them from the bytes).
 */
function appendAll(deps: AppDeps, entries: { envelope: Uint8Array; facts?: EntryFacts }[]) {
  if (entries.length === 0) return Promise.resolve([]);
  if (deps.log.appendMany) return deps.log.appendMany(entries.map((e) => e.envelope));
  return Promise.allSettled(entries.map((e) => deps.log.append(e.envelope, undefined, e.facts)));
}

/** The bulk append handler (log_append.ts hands it every `application/cbor-seq` request). */
export async function appendBulk(c: Context<AppEnv>): Promise<Response> {
  const deps = c.get("deps");
  const started = c.get("startedAt");
  const items = await readBulk(c.req.raw, deps.config);
  const results: (BulkResult | undefined)[] = new Array(items.length);
  const fail = (k: number, err: unknown, path: string) => {
    const p = problemOf(err);
    if (p.status === 500) console.error(`Cannot append item ${k} of ${path}:`, err);
    results[k] = refusal(p);
  };
  // Judge every item at once: the verifier pool takes the envelopes of one turn in one message.
  const admitted: number[] = [];
  const reports = new Map<number, VerificationReport>();
  const facts = new Map<number, EntryFacts>();
  await Promise.all(items.map(async (it, k) => {
    if ("refused" in it) return fail(k, it.refused, c.req.path);
    try {
      const read: { facts?: EntryFacts } = {};
      const signer: { kid?: string } = {};
      const report = await admitEnvelope(deps, it.envelope, signer, read);
      const f = reportFacts(deps, it.envelope, report, signer.kid, read.facts);
      reports.set(k, report);
      if (f) facts.set(k, f);
      admitted.push(k);
    } catch (e) {
      fail(k, e, c.req.path);
    }
  }));
  admitted.sort((a, b) => a - b); // log order follows the body's order
  const settled = await appendAll(
    deps,
    admitted.map((k) => ({
      envelope: (items[k] as { envelope: Uint8Array }).envelope,
      facts: facts.get(k),
    })),
  );
  const logged: [number, AppendResult][] = [];
  let head: TreeHead | undefined;
  settled.forEach((s, j) => {
    const k = admitted[j];
    if (s.status === "rejected") {
      if (s.reason instanceof PushbackError) deps.metrics.inc("jc_pushback_total");
      return fail(k, s.reason, c.req.path);
    }
    logged.push([k, s.value]);
    if (!head || s.value.tree_head.size > head.size) head = s.value.tree_head;
  });
  const now = performance.now();
  // Every logged item proved against the one head: those a smaller head covered (another batch
  // of the sequencer, or a duplicate answered at the head of its time) are proved again, one at
  // a time in index order. Not all at once: each proof's first read of a tile not yet checked
  // fetches and hashes it, so hundreds of concurrent proofs each fetched and hashed the same
  // tiles (a bulk of 1000 at the edge spent 84 s there; bulks in flight beside it were cut off;
  // docs/DECISIONS.md "Bulk appends at the edge"); in order, the first proof of a tile checks it
  // and the rest read it from the reader's cache.
  for (const [k, r] of [...logged].sort((a, b) => a[1].index - b[1].index)) {
    deps.metrics.append(r.created, now - started, r.tree_head.size);
    let proof = r.inclusion_proof;
    if (r.tree_head.size !== head!.size) {
      try {
        proof = (await deps.log.inclusionProof(r.index, head!.size)).map(toHex);
      } catch (e) {
        fail(k, e, c.req.path);
        continue;
      }
    }
    const report = reports.get(k)!;
    results[k] = {
      status: r.created ? 201 : 200,
      index: r.index,
      leaf_hash: r.leaf_hash,
      verdict: report.verdict,
      ...(report.drift_alert ? { drift_alert: report.drift_alert } : {}),
      inclusion_proof: proof,
      created: r.created,
      ...(r.key_event ? { key_event: r.key_event } : {}), // issue 25
    };
  }
  if (head) deps.metrics.set("jc_tree_size", head.size);
  return c.json({ tree_head: head ?? null, results }, 200);
}
