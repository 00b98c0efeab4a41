// The witness role's routes (C2SP tlog-witness v1, docs/WITNESS.md): `POST /add-checkpoint` with
// the spec's status codes (200 cosignature lines; 400 malformed; 403 signature; 404 unknown
// origin; 409 text/x.tlog.size; 422 proof or root mismatch), and the monitoring retrieval
// `GET /witness/<sha256(origin) hex>/checkpoint`. The witness itself is log/c2sp/witness_role.ts,
// built by the platform entry and passed as `deps.services.witness`.
import type { Context } from "hono";
import type { Witness } from "../../../log/c2sp/mod.ts";
import { MAX_ADD_CHECKPOINT_BYTES, WitnessRefusal } from "../../../log/c2sp/mod.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "../../../verify/mod.ts";
import { ApiError } from "../errors.ts";
import { readBodyLimited } from "../limits.ts";
import type { AppEnv, RouteGroup } from "../route.ts";

/** The witness of `c`'s app, if the role is configured. */
export function witnessOf(c: Context<AppEnv>): Witness | undefined {
  return c.get("deps").services?.witness;
}

// tlog-witness "Monitor Retrieval Mechanism": "The origin hash is the SHA-256 hash of the log's
// origin, hex encoded, in lowercase."
const originHash = (origin: string) => toHex(sha256(new TextEncoder().encode(origin)));

/** The witness route group. */
export const witnessRoutes: RouteGroup = {
  name: "witness",
  routes: [
    {
      method: "POST",
      path: "/add-checkpoint",
      class: {
        id: "jc:WitnessAddCheckpoint",
        title: "Witness: add checkpoint",
        description: "C2SP tlog-witness v1 submission endpoint of this service's witness role.",
      },
      operation: {
        title: "Cosign a checkpoint",
        description: "C2SP tlog-witness add-checkpoint: an `old <size>` line, up to 63 base64 " +
          "consistency proof lines, an empty line, then the signed checkpoint. Answers the " +
          "cosignature/v1 line(s) of this witness when the checkpoint is consistent with the " +
          "latest one it cosigned for that origin.",
        expects: "jc:AddCheckpointRequest",
        returns: "jc:CosignatureLines",
        possibleStatus: [
          { status: 200, description: "Cosigned: the cosignature/v1 note signature line(s)." },
          { status: 400, description: "Malformed body, or old size above the checkpoint size." },
          { status: 403, description: "No valid signature by the origin's configured log key." },
          { status: 404, description: "This witness does not witness that origin." },
          {
            status: 409,
            description: "Old size is not the latest cosigned size (text/x.tlog.size gives it).",
          },
          { status: 413, description: "Body over the add-checkpoint limit." },
          { status: 422, description: "Consistency proof or root mismatch." },
          {
            status: 503,
            description: "Edge: the witness state's Durable Object was lost or rolled back " +
              "(witness-state-behind); nothing is cosigned.",
          },
        ],
        toolId: "jouleclaw:witness.add_checkpoint",
        mutating: true,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        const w = witnessOf(c);
        const body = await readBodyLimited(
          c.req.raw,
          Math.min(deps.config.bodyLimit, MAX_ADD_CHECKPOINT_BYTES),
        );
        if (!w) {
          throw new ApiError(
            "witness-unknown-origin",
            "Cannot cosign: this service witnesses no log",
            { status: 404 },
          );
        }
        try {
          const lines = await w.addCheckpoint(body);
          deps.metrics.inc("jc_witness_requests_total", { status: "200" });
          c.header("content-type", "text/plain; charset=utf-8");
          c.header("cache-control", "no-store");
          return c.body(lines);
        } catch (e) {
          if (!(e instanceof WitnessRefusal)) throw e;
          deps.metrics.inc("jc_witness_requests_total", { status: String(e.status) });
          if (e.status === 409) {
            // tlog-witness: "The response body MUST consist of the tree size of the latest
            // cosigned checkpoint in decimal, followed by a newline ... text/x.tlog.size".
            return new Response(`${e.size}\n`, {
              status: 409,
              headers: { "content-type": "text/x.tlog.size", "cache-control": "no-store" },
            });
          }
          throw new ApiError(e.code, e.message, { status: e.status });
        }
      },
    },
    {
      method: "GET",
      path: "/witness/:origin_hash/checkpoint",
      cors: true,
      class: {
        id: "jc:WitnessCheckpoint",
        title: "Witness: latest cosigned checkpoint",
        description: "tlog-witness monitoring retrieval: the latest checkpoint this witness " +
          "cosigned for the origin whose SHA-256 is origin_hash (lowercase hex).",
      },
      operation: {
        title: "Get the latest cosigned checkpoint of a witnessed log",
        description: "The checkpoint with the log's signature(s) and this witness's cosignature.",
        expects: "owl:Nothing",
        returns: "jc:Checkpoint",
        possibleStatus: [
          { status: 200, description: "The cosigned checkpoint." },
          { status: 404, description: "Never cosigned a checkpoint of that origin." },
          {
            status: 503,
            description: "Edge: the witness state's Durable Object was lost or rolled back " +
              "(witness-state-behind).",
          },
        ],
        toolId: "jouleclaw:witness.checkpoint",
        mutating: false,
      },
      handler: async (c) => {
        const w = witnessOf(c);
        const want = c.req.param("origin_hash");
        const origin = w?.origins.find((o) => originHash(o) === want);
        const note = origin ? await w!.latest(origin) : undefined;
        if (!note) {
          throw new ApiError("not-found", `Cannot find a cosigned checkpoint for ${want}`);
        }
        c.header("content-type", "text/plain; charset=utf-8");
        c.header("cache-control", "no-cache");
        return c.body(new TextDecoder().decode(note));
      },
    },
  ],
};
