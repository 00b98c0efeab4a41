// API.md: log entries as RDF (content negotiation rows for `GET /v1/log/entries/{index}`) and the
// N-Quads export `GET /v1/log/export` (one named graph per entry, graph IRI = the entry's URL,
// with jc:logIndex and jc:leafHash so a store can tie each receipt to its proof). JouleClaw SPEC §13.
// Platform-neutral.
import type { Context } from "hono";
import {
  entryInputFromEnvelope,
  entryJsonLd,
  entryQuads,
  exportNQuads,
  jcpEntryClass,
  toNQuads,
  toTurtle,
} from "../../../vocab/mod.ts";
import { blake3, toHex } from "../../../verify/mod.ts";
import { integrationTimes } from "../../../log/mod.ts";
import type { EntryFormat, EntryView } from "../entry_format.ts";
import { ApiError } from "../errors.ts";
import { optIntParam } from "../params.ts";
import type { AppEnv, RouteGroup } from "../route.ts";
import { publicBase } from "../public_url.ts";
import { judgedTable } from "../judged_configs.ts";

async function input(v: EntryView) {
  const under = await v.judgedUnder();
  const { cls } = jcpEntryClass(v.envelope); // issue 25: a Grant, a Revocation
  const at = await v.integrated?.(); // issue 30: JCP §11, the integration time
  return {
    index: v.index,
    leafHash: v.leafHash,
    contentId: toHex(blake3(v.envelope)),
    ...(at ? { integratedAt: at.timestamp } : {}),
    verdict: await v.verdict(),
    receipt: (await v.report()).receipt,
    url: v.url,
    verifierConfig: under?.url,
    ...(cls ? { cls } : {}),
  };
}

/** RDF representations of an entry (rows appended to api/http/entry_formats.ts's table). */
export const RDF_ENTRY_FORMATS: EntryFormat[] = [
  {
    mediaType: "application/ld+json",
    render: async (v) =>
      new Response(JSON.stringify(entryJsonLd(await input(v))), {
        headers: { "content-type": "application/ld+json" },
      }),
  },
  {
    mediaType: "application/n-quads",
    render: async (v) =>
      new Response(toNQuads(await entryQuads(await input(v))), {
        headers: { "content-type": "application/n-quads" },
      }),
  },
  {
    mediaType: "text/turtle",
    render: async (v) =>
      new Response(await toTurtle(await entryQuads(await input(v))), {
        headers: { "content-type": "text/turtle; charset=utf-8" },
      }),
  },
];

/** Entries per export request at most (a client pages with start/end beyond it). */
export const EXPORT_MAX = 100_000;

async function exportHandler(c: Context<AppEnv>): Promise<Response> {
  const log = c.get("deps").log;
  const size = (await log.latestHead()).size;
  const start = optIntParam("start", c.req.query("start")) ?? 0;
  const end = optIntParam("end", c.req.query("end")) ?? Math.min(size, start + EXPORT_MAX);
  if (start > end || end > size) {
    throw new ApiError(
      "bad-parameter",
      `Cannot export [${start}, ${end}): the range must satisfy start <= end <= ${size} (the tree size)`,
    );
  }
  if (end - start > EXPORT_MAX) {
    throw new ApiError(
      "bad-parameter",
      `Cannot export ${end - start} entries at once: at most ${EXPORT_MAX}`,
    );
  }
  const base = publicBase(c.get("deps"));
  // issue 23: the configurations the entries were judged under, resolved once per export
  const table = await judgedTable(c.get("deps"));
  // issue 30: each entry's integration time (one point read per batch of the log)
  const integrated = integrationTimes(log.streamReads);
  const read = async (i: number) => {
    const bytes = await log.entry(i);
    if (!bytes) throw new Error(`Cannot export entry ${i}: the log no longer has it`);
    // each entry's verdict class and configuration, as its own views show them (verify/'s
    // loggedVerdict: step 6 under that configuration's reference vectors; a binary search)
    const j = table.at(i);
    const url = `${base}/v1/log/entries/${i}`;
    return entryInputFromEnvelope(i, bytes, url, j.options, j.ref?.url, await integrated(i));
  };
  const gen = exportNQuads(start, end, read);
  // The first entry before the answer: a store fault there is a 503 (storage-unavailable), not a
  // 200 cut short; a fault later ends the stream with an error (log/read_faults.ts).
  const first = await gen.next();
  let head = first.done ? "" : first.value;
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      // Batch entries per chunk so the stream is not one write per entry.
      let chunk = head;
      head = "";
      while (chunk.length < 64 * 1024) {
        const r = await gen.next();
        if (r.done) {
          if (chunk) ctrl.enqueue(enc.encode(chunk));
          ctrl.close();
          return;
        }
        chunk += r.value;
      }
      ctrl.enqueue(enc.encode(chunk));
    },
    async cancel() {
      await gen.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/n-quads",
      "jc-export-range": `${start}-${end}`,
      "jc-tree-size": String(size),
    },
  });
}

/** The export route group. */
export const rdfRoutes: RouteGroup = {
  name: "rdf",
  routes: [
    {
      method: "GET",
      path: "/v1/log/export",
      query: ["start", "end"],
      cors: true,
      class: {
        id: "jc:LogExport",
        title: "Log export",
        description: "The log's entries as N-Quads, one named graph per entry.",
      },
      operation: {
        title: "Export entries as N-Quads",
        description:
          "Entries start..end-1 (default: from 0 to the latest tree head's size, at most 100,000) streamed as N-Quads; " +
          "each entry is a named graph whose IRI is the entry's URL, with jc:logIndex, jc:leafHash, " +
          "jc:verificationVerdict (under the configuration the entry was judged under) and " +
          "jc:verifierConfig (that configuration entry's IRI).",
        expects: "owl:Nothing",
        returns: "jc:LogExport",
        possibleStatus: [{ status: 200, description: "The N-Quads stream." }, {
          status: 400,
          description: "A malformed or out-of-range start/end.",
        }],
        toolId: "jouleclaw:log.export",
        mutating: false,
      },
      handler: exportHandler,
    },
  ],
};
