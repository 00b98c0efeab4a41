// The Worker's side of shards (docs/SHARDS.md, docs/EDGE.md "Shards"): `GET /v1/logs` (the
// directory, signed here with the operator key from `directory.json` and the active shard's
// latest head, both read from R2: no Durable Object call), `POST /v1/logs/rotate` (admin token;
// the active shard's sequencer rotates), which shard's app answers `/shards/sN/<log route>`,
// and the 409 `shard-frozen` answer. The front stages that serve them are edge/worker/stages.ts.
// The directory state is re-read at most once a second per isolate. Platform-neutral.
import { ApiError, type AppFetch } from "../../api/mod.ts";
import { type Directory, operatorVkey, shardPrefix, signDirectory } from "../../log/shards/mod.ts";
import { constantTimeEqual, ed25519PublicKey, fromHex, toHex } from "../../verify/mod.ts";
import {
  directoryOf,
  type DirectoryState,
  FIRST_TIME_KEY,
  initialState,
  prefixedBucket,
  readDirectoryState,
  shardKeyPrefix,
  shardNumber,
} from "../../log/r2/mod.ts";
import { headFromJson, LATEST_HEAD_KEY, type R2BucketLike } from "../../log/r2/mod.ts";
import { type Outcome, unwrap } from "./wire.ts";
import { EdgeConfigError } from "./errors.ts";

/** Name of the Worker secret holding the operator key (signs the directory): 64 hex digits. */
export const OPERATOR_KEY_SECRET = "JC_OPERATOR_KEY";
/** Name of the Worker secret holding the admin token (`POST /v1/logs/rotate`). */
export const ADMIN_TOKEN_SECRET = "JC_ADMIN_TOKEN";

/** Reads the operator key; undefined when unset, EdgeConfigError when malformed. */
export function operatorKeyFromEnv(
  env: Record<string, unknown>,
): Uint8Array | undefined {
  const v = env[OPERATOR_KEY_SECRET];
  if (v === undefined || v === "") return undefined;
  if (typeof v !== "string" || !/^[0-9a-f]{64}$/.test(v.trim())) {
    throw new EdgeConfigError(
      `Cannot sign the shard directory: ${OPERATOR_KEY_SECRET} must be 64 lowercase hex digits`,
    );
  }
  return fromHex(v.trim());
}

/** Options of `ShardFront`. */
export interface ShardFrontOptions {
  bucket: R2BucketLike;
  /** The first shard's log name and public key (the directory before any rotation). */
  logName: string;
  logPublicKey: Uint8Array;
  operatorSecret: Uint8Array | undefined;
  adminToken: string | undefined;
  /** Asks shard n's sequencer to rotate (it must be the active one). */
  rotate: (n: number) => Promise<Outcome<{ active: string }>>;
  /** Shard n's app (n >= 1): answers a request for a log route (its prefix removed). */
  shardApp: (n: number, publicKey: Uint8Array, logName: string) => AppFetch;
  /** How long the directory state and the signed directory are reused, ms (<= 1000). */
  cacheMs?: number;
  now?: () => number;
}

interface Signed {
  operator_vkey: string;
  note: string;
  directory: Directory;
}

/** The shards' routes of the Worker. */
export class ShardFront {
  readonly #o: ShardFrontOptions;
  readonly #now: () => number;
  #state: { s: DirectoryState; at: number } | undefined;
  #signed: { d: Signed; at: number } | undefined;

  constructor(o: ShardFrontOptions) {
    this.#o = o;
    this.#now = o.now ?? Date.now;
  }

  /** The operator vkey (`/v1/log/key`'s `operator_vkey`), when the operator key is set. */
  operatorVkey(): string | undefined {
    const k = this.#o.operatorSecret;
    return k && operatorVkey(this.#o.logName, ed25519PublicKey(k));
  }

  /** The directory state (R2's, at most `cacheMs` old unless `fresh`). */
  async state(fresh = false): Promise<DirectoryState> {
    const now = this.#now();
    if (
      fresh || !this.#state || now - this.#state.at >= (this.#o.cacheMs ?? 1000)
    ) {
      const s = await readDirectoryState(this.#o.bucket) ??
        initialState(this.#o.logName, toHex(this.#o.logPublicKey));
      // A rotation seen here (a 409 re-read the state): the signed directory follows at once.
      if (this.#state && this.#state.s.shards.length !== s.shards.length) {
        this.#signed = undefined;
      }
      this.#state = { s, at: now };
    }
    return this.#state.s;
  }

  /** The 409 a frozen shard's append route answers (docs/SHARDS.md), naming the active one. */
  async frozenError(n: number, fresh = false): Promise<ApiError | undefined> {
    const s = await this.state(fresh);
    const me = s.shards[n];
    if (!me || me.state !== "frozen") return undefined;
    const active = s.shards.length - 1;
    const id = s.shards[active].id;
    return new ApiError(
      "shard-frozen",
      `Cannot append to shard ${me.id}: it is frozen; the active shard is ${id} (${
        shardPrefix(active)
      })`,
      { status: 409, extra: { active: { id, prefix: shardPrefix(active) } } },
    );
  }

  async #signedDirectory(fresh = false): Promise<Signed> {
    const now = this.#now();
    if (
      !fresh && this.#signed &&
      now - this.#signed.at < (this.#o.cacheMs ?? 1000)
    ) {
      return this.#signed.d;
    }
    const secret = this.#o.operatorSecret;
    if (!secret) {
      throw new EdgeConfigError(
        `Cannot sign the shard directory: the ${OPERATOR_KEY_SECRET} secret is not set (wrangler secret put ${OPERATOR_KEY_SECRET})`,
      );
    }
    const s = await this.state(fresh);
    const active = prefixedBucket(
      this.#o.bucket,
      shardKeyPrefix(s.shards.length - 1),
    );
    const [head, first] = await Promise.all([
      active.get(LATEST_HEAD_KEY).then(async (o) => o && headFromJson(await o.text())),
      active.get(FIRST_TIME_KEY).then((o) => o?.text()),
    ]);
    const directory = directoryOf(s, new Date(now).toISOString(), {
      head: head ?? undefined,
      firstTime: first,
    });
    const d = {
      operator_vkey: operatorVkey(this.#o.logName, ed25519PublicKey(secret)),
      note: signDirectory(directory, secret),
      directory,
    };
    this.#signed = { d, at: now };
    return d;
  }

  #directoryAnswer(req: Request, d: Signed): Response {
    const accept = req.headers.get("accept") ?? "";
    if (/text\/plain/.test(accept) && !/application\/json/.test(accept)) {
      return new Response(d.note, {
        headers: {
          "content-type": "text/plain; charset=utf-8",
          "cache-control": "no-cache",
        },
      });
    }
    return new Response(JSON.stringify(d), {
      headers: {
        "content-type": "application/json",
        "cache-control": "no-cache",
      },
    });
  }

  /** docs/SHARDS.md "Lifecycle": bearer admin token; 403 admin-disabled, 401 admin-unauthorized. */
  #authorize(req: Request): void {
    const token = this.#o.adminToken;
    if (!token) {
      throw new ApiError(
        "admin-disabled",
        "Cannot rotate: no admin token is configured",
        {
          status: 403,
        },
      );
    }
    const m = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "");
    const enc = new TextEncoder();
    if (!m || !constantTimeEqual(enc.encode(m[1].trim()), enc.encode(token))) {
      throw new ApiError(
        "admin-unauthorized",
        "Cannot rotate: the admin token is wrong",
        {
          status: 401,
          headers: { "www-authenticate": "Bearer" },
        },
      );
    }
  }

  /**
   * Answers the directory's routes (`GET /v1/logs`, `POST /v1/logs/rotate`); undefined for any
   * other path. Throws an error answer (the caller answers it: edge/worker/stages.ts).
   */
  async directory(req: Request, path: string): Promise<Response | undefined> {
    if (path === "/v1/logs") {
      if (req.method !== "GET" && req.method !== "HEAD") {
        throw new ApiError(
          "method-not-allowed",
          `Cannot ${req.method} /v1/logs`,
          {
            headers: { allow: "GET, HEAD, OPTIONS" },
          },
        );
      }
      return this.#directoryAnswer(req, await this.#signedDirectory());
    }
    if (path === "/v1/logs/rotate") {
      if (req.method !== "POST") {
        throw new ApiError(
          "method-not-allowed",
          `Cannot ${req.method} /v1/logs/rotate`,
          {
            headers: { allow: "POST" },
          },
        );
      }
      this.#authorize(req);
      const s = await this.state(true);
      unwrap(await this.#o.rotate(s.shards.length - 1));
      return this.#directoryAnswer(req, await this.#signedDirectory(true));
    }
    return undefined;
  }

  /**
   * The listed shard after the first that `path` (`/shards/<id>/<rest>`) addresses: its app and
   * the path below its prefix; undefined for a path below no `/shards/<id>/`. Throws 404
   * `not-found` for a shard not listed (s0's prefix is the service root: it has no `/shards/s0/`).
   */
  async target(
    path: string,
  ): Promise<{ app: AppFetch; rest: string } | undefined> {
    const m = /^\/shards\/([^/]+)(\/.*)$/.exec(path);
    if (!m) return undefined;
    const n = shardNumber(m[1]);
    const s = await this.state();
    // a shard not listed (yet) has no URLs: re-read the state once before saying so
    const fresh = n !== undefined && n >= 1 && n >= s.shards.length ? await this.state(true) : s;
    if (n === undefined || n === 0 || n >= fresh.shards.length) {
      throw new ApiError("not-found", `Cannot find ${path}: no shard ${m[1]}`);
    }
    const rec = fresh.shards[n];
    return {
      app: this.#o.shardApp(n, fromHex(rec.public_key), rec.log_name),
      rest: m[2],
    };
  }
}
