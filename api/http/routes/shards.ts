// The shard directory and the rotation command (docs/SHARDS.md, API.md `GET /v1/logs`): the
// signed directory (JSON with the operator vkey, or the signed note alone as text/plain), and
// `POST /v1/logs/rotate` behind the operator's bearer token (`admin_token`; none configured: 403
// `admin-disabled`; a missing or wrong one: 401 `admin-unauthorized`, compared in constant time).
// The deployment puts its ShardService (api/services/shard_set.ts) in `deps.services.shards`.
import { ApiError } from "../errors.ts";
import { constantTimeEqual } from "../../../verify/mod.ts";
import { negotiateOr406 } from "../negotiate.ts";
import type { AppDeps, RouteGroup } from "../route.ts";
import type { ShardService } from "../../services/shard_set.ts";

/** The deployment's shards, or a 404 when it has none. */
export function shardsOf(deps: AppDeps): ShardService | undefined {
  return deps.services?.shards;
}

const must = (deps: AppDeps): ShardService => {
  const s = shardsOf(deps);
  if (!s) throw new ApiError("not-found", "Cannot list the shards: this service has none");
  return s;
};

/**
 * Whether `a` and `b` are the same token, in time that depends only on their lengths (the
 * comparison the Worker's rotate route makes too, verify/bytes.ts).
 */
export function sameToken(a: string, b: string): boolean {
  const enc = new TextEncoder();
  return constantTimeEqual(enc.encode(a), enc.encode(b));
}

/** Refuses a request without the configured admin bearer token. */
export function requireAdmin(deps: AppDeps, authorization: string | undefined): void {
  const token = deps.config.adminToken;
  if (!token) {
    throw new ApiError("admin-disabled", "Cannot run an admin command: admin_token is not set");
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!m || !sameToken(m[1], token)) {
    throw new ApiError("admin-unauthorized", "Cannot run an admin command: wrong bearer token", {
      headers: { "www-authenticate": 'Bearer realm="jouleclaw-admin"' },
    });
  }
}

/** `GET /v1/logs` and `POST /v1/logs/rotate`. */
export const shardRoutes: RouteGroup = {
  name: "shards",
  routes: [
    {
      method: "GET",
      path: "/v1/logs",
      cors: true,
      class: {
        id: "jc:LogDirectory",
        title: "Shard directory",
        description: "The log's shards, signed by the operator key (docs/SHARDS.md).",
      },
      operation: {
        title: "Get the signed shard directory",
        description: "{operator_vkey, note (a C2SP signed note by the operator key), directory " +
          "(the note's JSON: every shard's id, log_name, prefix, state, signer, vkeys, first and " +
          "last time, size, and a frozen shard's final roots)}; the note alone as text/plain.",
        expects: "owl:Nothing",
        returns: "jc:LogDirectory",
        possibleStatus: [{ status: 200, description: "The directory." }],
        toolId: "jouleclaw:log.directory",
        mutating: false,
      },
      handler: async (c) => {
        const shards = must(c.get("deps"));
        const mt = negotiateOr406(c.req.header("accept"), ["application/json", "text/plain"]);
        const { note, directory } = await shards.directory();
        c.header("cache-control", "no-cache");
        if (mt === "text/plain") {
          return c.body(note, 200, { "content-type": "text/plain; charset=utf-8" });
        }
        return c.json({ operator_vkey: shards.operatorVkey(), note, directory });
      },
    },
    {
      method: "POST",
      path: "/v1/logs/rotate",
      class: {
        id: "jc:LogRotation",
        title: "Shard rotation",
        description: "Freezes the active shard and starts the next one.",
      },
      operation: {
        title: "Rotate the active shard",
        description: "Admin (Authorization: Bearer <admin_token>). Creates the next shard, " +
          "freezes the active one (its appends drained, its checkpoints final) and publishes the " +
          "directory naming both; answers {operator_vkey, note, directory}.",
        expects: "owl:Nothing",
        returns: "jc:LogDirectory",
        possibleStatus: [
          { status: 200, description: "Rotated: the new directory." },
          { status: 401, description: "No or a wrong bearer token (admin-unauthorized)." },
          { status: 403, description: "No admin_token configured (admin-disabled)." },
        ],
        toolId: "jouleclaw:log.rotate",
        mutating: true,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        requireAdmin(deps, c.req.header("authorization"));
        const shards = must(deps);
        await shards.rotate("command");
        const { note, directory } = await shards.directory();
        return c.json({ operator_vkey: shards.operatorVkey(), note, directory });
      },
    },
  ],
};
