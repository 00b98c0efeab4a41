// Read routes of the log (API.md "Log"): entries (content-negotiated, table-driven via
// api/http/entry_formats.ts), pages of entries as a hydra:Collection, leaf lookup, signed tree heads
// (JouleClaw SPEC §22.2) and the log key. Entries and heads at a fixed size never change, so
// they are served cacheable and immutable.
import type { Context } from "hono";
import { entryLeafHash, fromHex, toHex } from "../../../verify/mod.ts";
import { ENTRY_FORMATS, entryJson, entryView } from "../entry_formats.ts";
import { ApiError } from "../errors.ts";
import { HYDRA_CONTEXT } from "../hydra.ts";
import { negotiateOr406 } from "../negotiate.ts";
import { hashParam, intParam, optIntParam } from "../params.ts";
import type { AppEnv, RouteGroup } from "../route.ts";
import { shardsOf } from "./shards.ts";
import { publicBase } from "../public_url.ts";

/** Cache-Control for content that can never change. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

async function entryAt(c: Context<AppEnv>, index: number) {
  const bytes = await c.get("deps").log.entry(index);
  if (!bytes) throw new ApiError("not-found", `Cannot find entry ${index}: the log is shorter`);
  return entryView(c, index, toHex(entryLeafHash(bytes)), bytes);
}

const OK_404 = [
  { status: 200, description: "Found." },
  { status: 400, description: "A malformed parameter." },
  { status: 404, description: "No such item." },
];

/** The log read route group. */
export const logReadRoutes: RouteGroup = {
  name: "log-read",
  routes: [
    {
      method: "GET",
      path: "/v1/log/entries/:index",
      cors: true,
      class: { id: "jc:LogEntry", title: "Log entry", description: "One entry of the log." },
      operation: {
        title: "Get an entry",
        description: "The entry as JSON {index, leaf_hash, schema, steward, envelope, receipt}; " +
          "Accept: application/cose gives the raw envelope bytes.",
        expects: "owl:Nothing",
        returns: "jc:LogEntry",
        possibleStatus: [...OK_404, { status: 406, description: "No acceptable representation." }],
        toolId: "jouleclaw:log.entry",
        mutating: false,
      },
      handler: async (c) => {
        const index = intParam("index", c.req.param("index"));
        const mt = negotiateOr406(c.req.header("accept"), ENTRY_FORMATS.map((f) => f.mediaType));
        const view = await entryAt(c, index);
        const res = await ENTRY_FORMATS.find((f) => f.mediaType === mt)!.render(view, c);
        res.headers.set("cache-control", IMMUTABLE);
        res.headers.append("vary", "Accept");
        return res;
      },
    },
    {
      method: "GET",
      path: "/v1/log/entries",
      query: ["start", "limit"],
      cors: true,
      class: {
        id: "jc:LogEntryCollection",
        title: "Log entries",
        description: "The log's entries, in log order.",
      },
      operation: {
        title: "List entries",
        description: "A page of entries from `start` (default 0), at most `limit`, as a " +
          "hydra:Collection with a hydra:PartialCollectionView.",
        expects: "owl:Nothing",
        returns: "hydra:Collection",
        possibleStatus: OK_404.slice(0, 2),
        toolId: "jouleclaw:log.entries",
        mutating: false,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        const start = optIntParam("start", c.req.query("start")) ?? 0;
        const limit = Math.min(
          optIntParam("limit", c.req.query("limit"), { min: 1 }) ?? deps.config.pageMax,
          deps.config.pageMax,
        );
        const size = (await deps.log.latestHead()).size;
        const end = Math.min(size, start + limit);
        const members = [];
        for (let i = start; i < end; i++) {
          const v = await entryAt(c, i);
          members.push({ "@id": v.url, ...(await entryJson(v)) });
        }
        const base = publicBase(deps);
        const page = (s: number) => `${base}/v1/log/entries?start=${s}&limit=${limit}`;
        const view: Record<string, unknown> = {
          "@id": page(start),
          "@type": "hydra:PartialCollectionView",
          "hydra:first": { "@id": page(0) },
        };
        if (end < size) view["hydra:next"] = { "@id": page(end) };
        if (start > 0) view["hydra:previous"] = { "@id": page(Math.max(0, start - limit)) };
        return c.json({
          "@context": HYDRA_CONTEXT,
          "@id": `${base}/v1/log/entries`,
          "@type": "hydra:Collection",
          "hydra:totalItems": size,
          "hydra:member": members,
          "hydra:view": view,
        });
      },
    },
    {
      method: "GET",
      path: "/v1/log/leaves/:leaf_hash",
      cors: true,
      class: { id: "jc:LogLeaf", title: "Leaf", description: "An entry found by its leaf hash." },
      operation: {
        title: "Find an entry by leaf hash",
        description: "{index, leaf_hash} of the entry whose leaf hash is BLAKE3(0x00 || entry).",
        expects: "owl:Nothing",
        returns: "jc:LogLeaf",
        possibleStatus: OK_404,
        toolId: "jouleclaw:log.leaf",
        mutating: false,
      },
      handler: async (c) => {
        const leaf = hashParam("leaf_hash", c.req.param("leaf_hash"));
        const index = await c.get("deps").log.indexOfLeaf(fromHex(leaf));
        if (index === undefined) {
          throw new ApiError("not-found", `Cannot find leaf ${leaf}: no entry has that leaf hash`);
        }
        c.header("cache-control", IMMUTABLE);
        return c.json({ index, leaf_hash: leaf });
      },
    },
    {
      method: "GET",
      path: "/v1/log/tree-head",
      cors: true,
      class: {
        id: "jc:LatestTreeHead",
        title: "Latest tree head",
        description: "The latest signed tree head (JouleClaw SPEC §22.2).",
      },
      operation: {
        title: "Get the latest signed tree head",
        description: "{size, root, timestamp, signature, signer}.",
        expects: "owl:Nothing",
        returns: "jc:TreeHead",
        possibleStatus: [{ status: 200, description: "The head." }],
        toolId: "jouleclaw:log.tree_head",
        mutating: false,
      },
      handler: async (c) => {
        const head = await c.get("deps").log.latestHead();
        c.get("deps").metrics.set("jc_tree_size", head.size);
        c.header("cache-control", "no-cache");
        return c.json(head);
      },
    },
    {
      method: "GET",
      path: "/v1/log/tree-heads/:size",
      cors: true,
      class: {
        id: "jc:TreeHead",
        title: "Signed tree head",
        description: "The signed tree head published at a size (JouleClaw SPEC §22.2).",
      },
      operation: {
        title: "Get the signed tree head at a size",
        description: "{size, root, timestamp, signature, signer}, or 404 if none was published.",
        expects: "owl:Nothing",
        returns: "jc:TreeHead",
        possibleStatus: OK_404,
        toolId: "jouleclaw:log.tree_head_at",
        mutating: false,
      },
      handler: async (c) => {
        const size = intParam("size", c.req.param("size"));
        const head = await c.get("deps").log.headAt(size);
        if (!head) throw new ApiError("not-found", `Cannot find a tree head at size ${size}`);
        c.header("cache-control", IMMUTABLE);
        return c.json(head);
      },
    },
    {
      method: "GET",
      path: "/v1/log/key",
      cors: true,
      class: { id: "jc:LogKey", title: "Log key", description: "The key that signs tree heads." },
      operation: {
        title: "Get the log key",
        description: "{signer (did:key), public_key (hex), log_name, vkeys: {blake3, sha256} " +
          "(C2SP vkeys of the two views' checkpoints)}.",
        expects: "owl:Nothing",
        returns: "jc:LogKey",
        possibleStatus: [{ status: 200, description: "The key." }],
        toolId: "jouleclaw:log.key",
        mutating: false,
      },
      handler: (c) => {
        const log = c.get("deps").log;
        // docs/WITNESS.md: the witness role's own cosignature/v1 vkey, when configured.
        const witness = c.get("deps").services?.witness?.vkey;
        // docs/SHARDS.md: the operator key that signs the shard directory (GET /v1/logs): the
        // embedded shard set's, or the one the Worker's shard front puts in `services`.
        const operator = shardsOf(c.get("deps"))?.operatorVkey() ??
          c.get("deps").services?.operatorVkey;
        return c.json({
          signer: log.signer(),
          public_key: toHex(log.publicKey()),
          log_name: log.logName(),
          vkeys: log.vkeys(),
          ...(witness ? { witness_vkey: witness } : {}),
          ...(operator ? { operator_vkey: operator } : {}),
        });
      },
    },
  ],
};
