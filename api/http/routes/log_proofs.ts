// Proof routes (API.md "Log"; RFC 6962 §2.1.1 inclusion, §2.1.2 consistency, with BLAKE3 per
// JouleClaw SPEC §22.1). Sizes are checked against the latest signed head: a proof is only ever
// served for a size that has a signed head, since an unsigned root must not be used to verify
// a proof (SPEC §22.2).
import { entryLeafHash, fromHex, toHex } from "../../../verify/mod.ts";
import { ApiError } from "../errors.ts";
import { inclusionProofJson, proofCacheOf } from "../proof_cache.ts";
import { hashParam, intParam, optIntParam } from "../params.ts";
import type { AppEnv, RouteGroup } from "../route.ts";
import type { Context } from "hono";
import { IMMUTABLE } from "./log_read.ts";
import { headReader } from "../../services/tile_readers.ts";

const JSON_TYPE = { "content-type": "application/json" };

/**
 * The reader of the tree at `size`, which must have a signed head (SPEC §22.2: a proof is served
 * only against a signed root); a size between signed heads is 404 `head-not-found`, not a fault.
 */
async function signedReader(c: Context<AppEnv>, size: number, what: string) {
  const { log } = c.get("deps");
  if ((await log.latestHead()).size !== size && !(await log.headAt(size))) {
    throw new ApiError(
      "head-not-found",
      `Cannot prove ${what}: no signed head at size ${size} (GET /v1/log/tree-head is the ` +
        "latest; GET /v1/log/tree-heads/{size} answers 404 at a size that has none)",
    );
  }
  return await headReader(log, size);
}

/** A proof body; immutable when the size was explicit (the latest head's may move on). */
function proofResponse(c: Context<AppEnv>, body: string, immutable: boolean): Response {
  if (immutable) c.header("cache-control", IMMUTABLE);
  return c.body(body, 200, JSON_TYPE);
}

/** The proof route group. */
export const logProofRoutes: RouteGroup = {
  name: "log-proofs",
  routes: [
    {
      method: "GET",
      path: "/v1/log/proof/inclusion",
      query: ["index", "leaf_hash", "size"],
      cors: true,
      class: {
        id: "jc:InclusionProof",
        title: "Inclusion proof",
        description: "Proof that an entry is in the tree of a signed head (RFC 6962 §2.1.1).",
      },
      operation: {
        title: "Get an inclusion proof",
        description: "By `index` or by `leaf_hash` (exactly one), up to `size` (default: the " +
          "latest head's). {index, size, leaf_hash, path: [hex]}.",
        expects: "owl:Nothing",
        returns: "jc:InclusionProof",
        possibleStatus: [
          { status: 200, description: "The proof." },
          { status: 400, description: "Malformed or out-of-range parameters." },
          { status: 404, description: "No entry has that leaf hash, or no signed head at `size`." },
        ],
        toolId: "jouleclaw:log.prove_inclusion",
        mutating: false,
      },
      handler: async (c) => {
        const { log } = c.get("deps");
        const rawIndex = c.req.query("index");
        const rawLeaf = c.req.query("leaf_hash");
        if ((rawIndex === undefined) === (rawLeaf === undefined)) {
          throw new ApiError(
            "bad-parameter",
            "Cannot prove inclusion: give exactly one of index and leaf_hash",
          );
        }
        const explicitSize = optIntParam("size", c.req.query("size"), { min: 1 });
        const latest = (await log.latestHead()).size;
        const size = explicitSize ?? latest;
        if (size > latest) {
          throw new ApiError(
            "bad-parameter",
            `Cannot prove inclusion: size ${size} is past the latest head (${latest})`,
          );
        }
        let index: number;
        let leaf: string;
        if (rawLeaf !== undefined) {
          leaf = hashParam("leaf_hash", rawLeaf);
          const i = await log.indexOfLeaf(fromHex(leaf));
          if (i === undefined) {
            throw new ApiError(
              "not-found",
              `Cannot prove inclusion: no entry has leaf hash ${leaf}`,
            );
          }
          index = i;
        } else {
          index = intParam("index", rawIndex);
          if (index >= size) {
            throw new ApiError(
              "bad-parameter",
              `Cannot prove inclusion: index ${index} is not below size ${size}`,
            );
          }
          const cached = proofCacheOf(log).get(`${index},${size}`);
          if (cached !== undefined) return proofResponse(c, cached, explicitSize !== undefined);
          // The leaf hash from the tree (one tile, usually cached) when the log offers it; the
          // same BLAKE3(0x00 || entry) as hashing the stored entry (SPEC §22.1).
          const known = log.leafHashAt ? await log.leafHashAt(index) : undefined;
          const bytes = known ? undefined : await log.entry(index);
          if (!known && !bytes) {
            throw new ApiError("not-found", `Cannot prove inclusion: no entry ${index}`);
          }
          leaf = toHex(known ?? entryLeafHash(bytes!));
        }
        if (index >= size) {
          throw new ApiError(
            "bad-parameter",
            `Cannot prove inclusion: entry ${index} is not in the tree of size ${size}`,
          );
        }
        // The proof of (index, size) never changes once size has a signed head (append-only).
        const key = `${index},${size}`;
        const cache = proofCacheOf(log);
        let body = cache.get(key);
        if (body === undefined) {
          // From the published BLAKE3 tiles, each checked against the signed head's root
          // (log/c2sp/tile_proofs.ts: the one implementation the CLI and the Worker use too).
          const proof = await (await signedReader(c, size, "inclusion")).inclusionProof(index);
          body = inclusionProofJson(index, size, leaf, proof);
          cache.set(key, body);
        }
        return proofResponse(c, body, explicitSize !== undefined);
      },
    },
    {
      method: "GET",
      path: "/v1/log/proof/consistency",
      query: ["first", "second"],
      cors: true,
      class: {
        id: "jc:ConsistencyProof",
        title: "Consistency proof",
        description: "Proof that one signed tree extends another (RFC 6962 §2.1.2).",
      },
      operation: {
        title: "Get a consistency proof",
        description: "Between sizes 1 <= first <= second <= latest. {first, second, path: [hex]}.",
        expects: "owl:Nothing",
        returns: "jc:ConsistencyProof",
        possibleStatus: [
          { status: 200, description: "The proof." },
          { status: 400, description: "Malformed or out-of-range sizes." },
          { status: 404, description: "No signed head at `second` (head-not-found)." },
        ],
        toolId: "jouleclaw:log.prove_consistency",
        mutating: false,
      },
      handler: async (c) => {
        const { log } = c.get("deps");
        const first = intParam("first", c.req.query("first"), { min: 1 });
        const second = intParam("second", c.req.query("second"), { min: 1 });
        const latest = (await log.latestHead()).size;
        if (first > second || second > latest) {
          throw new ApiError(
            "bad-parameter",
            `Cannot prove consistency: need 1 <= first (${first}) <= second (${second}) <= latest (${latest})`,
          );
        }
        const reader = await signedReader(c, second, "consistency");
        const path = (await reader.consistencyProof(first)).map(toHex);
        c.header("cache-control", IMMUTABLE);
        return c.json({ first, second, path });
      },
    },
  ],
};
