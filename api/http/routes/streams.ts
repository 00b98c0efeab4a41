// The log's answers across entries (issue 24; docs/STREAMS.md): a steward's hash-chained streams
// and their findings (JCP §8.1), an entry's findings and the head that integrated it (JCP §11),
// a fork's evidence bundle, the lookup by content id (JCP §3) and the search by steward, receipt
// id (JCR-1 §2) and input hash. Every answer is a bounded number of index seeks (O(log n)).
// Findings change as entries arrive (a gap clears, a fork appears later), so these answers are
// never cached as immutable; the two findings answers are also RDF (api/http/findings_formats.ts).
import type { Context } from "hono";
import type { StreamReads } from "../../../log/mod.ts";
import { fromHex, toHex } from "../../../verify/mod.ts";
import { ApiError } from "../errors.ts";
import { findingsAnswer, NOT_ACCEPTABLE } from "../findings_formats.ts";
import { hashParam, intParam, optIntParam } from "../params.ts";
import type { AppEnv, RouteGroup } from "../route.ts";

const OK_404 = [
  { status: 200, description: "Found." },
  { status: 400, description: "A malformed or unknown parameter." },
  { status: 404, description: "No such item." },
];

/** The log's stream reads, or 404 `streams-unavailable` where its store keeps none. */
export function reads(c: Context<AppEnv>): StreamReads {
  const r = c.get("deps").log.streamReads;
  if (!r) {
    throw new ApiError("streams-unavailable", "Cannot answer for streams: this log keeps none", {
      status: 404,
    });
  }
  return r;
}

/** A steward's id as a query parameter: a DID (SPEC §8), at most 512 characters. */
export function stewardParam(raw: string | undefined): string {
  if (raw === undefined) {
    throw new ApiError("bad-parameter", 'Cannot read steward: missing query parameter "steward"', {
      extra: { parameter: "steward" },
    });
  }
  if (raw.length > 512 || !/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/.test(raw)) {
    throw new ApiError(
      "bad-parameter",
      `Cannot read steward: ${JSON.stringify(raw)} is not a DID`,
      {
        extra: { parameter: "steward" },
      },
    );
  }
  return raw;
}

/** A page size: 1 .. pageMax (default pageMax). */
export function limitOf(c: Context<AppEnv>): number {
  const max = c.get("deps").config.pageMax;
  return Math.min(optIntParam("limit", c.req.query("limit"), { min: 1 }) ?? max, max);
}

/** The stream route group. */
export const streamRoutes: RouteGroup = {
  name: "streams",
  routes: [
    {
      method: "GET",
      path: "/v1/streams",
      query: ["steward", "after", "limit"],
      cors: true,
      class: {
        id: "jc:StreamList",
        title: "Streams",
        description: "A steward's hash-chained streams (JCP §8.1) and the findings about them.",
      },
      operation: {
        title: "List a steward's streams and findings",
        description: "{steward, streams: [{key, length, last_seq, first_index, last_index, " +
          "findings}], findings (not about a chain), next}: findings after the finding number " +
          "`after`, at most `limit`; `next` is the `after` of the next page. Accept: " +
          "application/ld+json, application/n-quads or text/turtle gives the page's findings " +
          "as jc:StreamFinding nodes.",
        expects: "owl:Nothing",
        returns: "jc:StreamList",
        possibleStatus: [...OK_404, NOT_ACCEPTABLE],
        toolId: "jouleclaw:streams.list",
        mutating: false,
      },
      handler: async (c) => {
        const steward = stewardParam(c.req.query("steward"));
        const after = optIntParam("after", c.req.query("after")) ?? 0;
        const limit = limitOf(c);
        const r = reads(c);
        const [streams, findings] = await Promise.all([
          r.streams(steward),
          r.findings(steward, after, limit),
        ]);
        // JSON, or this page's findings as RDF (api/http/findings_formats.ts)
        return await findingsAnswer(c, {
          steward,
          streams: streams.map((s) => ({
            ...s,
            findings: findings.filter((f) => f.stream === s.key),
          })),
          findings: findings.filter((f) => f.stream === undefined),
          checked_from: await r.reach(),
          next: findings.length === limit ? findings[findings.length - 1].id : null,
        }, findings);
      },
    },
    {
      method: "GET",
      path: "/v1/log/entries/:index/findings",
      cors: true,
      class: {
        id: "jc:EntryFindings",
        title: "Entry findings",
        description: "The findings about one entry and the head that integrated it.",
      },
      operation: {
        title: "Get an entry's findings",
        description: "{index, integrated_in: {size, timestamp}, findings}: the findings the " +
          "entry caused, is the other side of or cleared, and the first signed head that " +
          "covers it. Accept: application/ld+json, application/n-quads or text/turtle gives " +
          "the findings as jc:StreamFinding nodes.",
        expects: "owl:Nothing",
        returns: "jc:EntryFindings",
        possibleStatus: [...OK_404, NOT_ACCEPTABLE],
        toolId: "jouleclaw:log.entry_findings",
        mutating: false,
      },
      handler: async (c) => {
        const index = intParam("index", c.req.param("index"));
        const r = reads(c);
        const head = await r.integratedIn(index);
        if (!head) {
          throw new ApiError("not-found", `Cannot find entry ${index}: the log is shorter`);
        }
        const findings = await r.entryFindings(index);
        return await findingsAnswer(c, { index, integrated_in: head, findings }, findings);
      },
    },
    {
      method: "GET",
      path: "/v1/log/entries/:index/evidence",
      cors: true,
      class: {
        id: "jc:ForkEvidence",
        title: "Fork evidence",
        description: "A portable bundle proving a stream fork: both envelopes, each with its " +
          "inclusion proof, under one signed head and its checkpoint.",
      },
      operation: {
        title: "Download the evidence of a fork",
        description: "For an entry that forked its stream (`stream-fork`): {finding, tree_head, " +
          "checkpoint, entries: [{index, envelope, leaf_hash, inclusion_proof}] (the first " +
          "entry at that seq, then this one)}; 404 when the entry caused no fork.",
        expects: "owl:Nothing",
        returns: "jc:ForkEvidence",
        possibleStatus: OK_404,
        toolId: "jouleclaw:log.fork_evidence",
        mutating: false,
      },
      handler: async (c) => {
        const index = intParam("index", c.req.param("index"));
        const log = c.get("deps").log;
        const fork = (await reads(c).entryFindings(index)).find((f) =>
          f.code === "stream-fork" && f.index === index
        );
        if (!fork) {
          throw new ApiError("not-found", `Cannot find a fork at entry ${index}: it caused none`);
        }
        const head = await log.latestHead();
        const entries = [];
        for (const i of [fork.other!, index]) {
          const bytes = (await log.entry(i))!;
          entries.push({
            index: i,
            envelope: toHex(bytes),
            leaf_hash: toHex((await log.leafHashAt(i))!),
            inclusion_proof: (await log.inclusionProof(i, head.size)).map(toHex),
          });
        }
        c.header("cache-control", "no-cache");
        c.header("content-disposition", `attachment; filename="fork-${index}.json"`);
        return c.json({
          finding: fork,
          tree_head: head,
          checkpoint: await log.checkpoint("blake3"),
          entries,
        });
      },
    },
    {
      method: "GET",
      path: "/v1/log/content/:content_id",
      cors: true,
      class: {
        id: "jc:LogContent",
        title: "Entry by content id",
        description: "An entry found by its content id (JCP §3).",
      },
      operation: {
        title: "Find an entry by content id",
        description: "{index, leaf_hash, content_id}: the entry whose envelope's content id " +
          "(BLAKE3 of its bytes, what `prev` and `settles` name) or whose signed content's " +
          "identity is `content_id` (64 lowercase hex).",
        expects: "owl:Nothing",
        returns: "jc:LogContent",
        possibleStatus: OK_404,
        toolId: "jouleclaw:log.content",
        mutating: false,
      },
      handler: async (c) => {
        const cid = hashParam("content_id", c.req.param("content_id"));
        const index = await reads(c).byContentId(fromHex(cid));
        if (index === undefined) {
          throw new ApiError("not-found", `Cannot find content ${cid}: no entry has that id`);
        }
        const leaf = await c.get("deps").log.leafHashAt(index);
        return c.json({ index, leaf_hash: toHex(leaf!), content_id: cid });
      },
    },
    {
      method: "GET",
      path: "/v1/log/search",
      query: ["steward", "receipt_id", "input_hash", "after", "limit"],
      cors: true,
      class: {
        id: "jc:LogSearch",
        title: "Log search",
        description: "Entries by steward, receipt id (JCR-1 §2) and input hash.",
      },
      operation: {
        title: "Search entries",
        description: "{indices, next}: the indices (ascending, after `after`) of the entries " +
          "matching every given member (at least one of steward, receipt_id, input_hash); " +
          "`next` is the `after` of the next page, null on the last.",
        expects: "owl:Nothing",
        returns: "jc:LogSearch",
        possibleStatus: OK_404.slice(0, 2),
        toolId: "jouleclaw:log.search",
        mutating: false,
      },
      handler: async (c) => {
        const q = c.req.query();
        const steward = q.steward === undefined ? undefined : stewardParam(q.steward);
        const inputHash = q.input_hash === undefined
          ? undefined
          : hashParam("input_hash", q.input_hash);
        const receiptId = q.receipt_id;
        if (receiptId !== undefined && (receiptId.length === 0 || receiptId.length > 512)) {
          throw new ApiError("bad-parameter", "Cannot read receipt_id: 1 to 512 characters", {
            extra: { parameter: "receipt_id" },
          });
        }
        if (steward === undefined && inputHash === undefined && receiptId === undefined) {
          throw new ApiError(
            "bad-parameter",
            "Cannot search: give at least one of steward, receipt_id, input_hash",
            { extra: { parameter: "steward" } },
          );
        }
        const after = optIntParam("after", q.after);
        const limit = limitOf(c);
        const indices = await reads(c).search(
          { steward, receiptId, inputHash },
          after ?? -1,
          limit,
        );
        c.header("cache-control", "no-cache");
        return c.json({
          indices,
          next: indices.length === limit ? indices[indices.length - 1] : null,
        });
      },
    },
  ],
};
