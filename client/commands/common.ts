// What every command of `deno task client` shares (client/commands/mod.ts): exit statuses,
// common options, the run's environment, and the service, shard and tile client an invocation
// names.
import {
  type CommandSpec,
  type ParsedArgs,
  resolveFromCaller,
  str,
  UsageError,
} from "../../cli/mod.ts";
import { netOptionsFromEnv } from "../net_env.ts";
import { type Flags, openTileClient } from "../tile_commands.ts";
import type { TileClient } from "../tiles.ts";
import type { ShardContext } from "../shard_commands.ts";
import { enforcePolicy, EXIT_BELOW_QUORUM, loadPolicy } from "../policy.ts";

/** Exit statuses of the client. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  check: 3,
  net: 4,
  belowQuorum: EXIT_BELOW_QUORUM,
} as const;

const DEFAULT_URL = "http://127.0.0.1:8080";
export const URL_OPTS = [
  { name: "url", value: "URL", help: `the log (default $JC_URL or ${DEFAULT_URL})` },
  { name: "signer", value: "DID", help: "pin the log key (did:key); default: the one it names" },
];
export const EXITS = "Exit status: 0 ok, 1 HTTP or file error, 2 usage, 3 a check failed, " +
  "4 a transport failure (timeout, oversize body, redirect loop, no connection; docs/CLIENTS.md), " +
  "5 (--policy) a checkpoint below the policy's quorum (docs/WITNESS.md).";
export const LOG_KEY_OPT = {
  name: "log-key",
  value: "VKEY",
  help: "the log's vkey (or $JC_LOG_KEY); default: the one /v1/log/key lists",
};
export const POLICY_OPT = {
  name: "policy",
  value: "FILE",
  help: "a C2SP tlog-policy every SHA-256 checkpoint must meet (tiles only); below quorum: exit 5",
};
// docs/CLIENTS.md "Shards": a service that publishes a shard directory (GET /v1/logs).
export const SHARD_OPT = {
  name: "shard",
  value: "sN",
  help: "the shard (docs/SHARDS.md) to read; default the active one (a leaf: every shard)",
};
export const OPERATOR_OPT = {
  name: "operator-key",
  value: "VKEY",
  help: "pin the operator key of the shard directory (or $JC_OPERATOR_VKEY); " +
    "default: trusted on first use, then remembered",
};
export const SOURCE_OPT = {
  name: "source",
  value: "auto|tiles|api",
  help: "verify from the log's tiles or its API (default auto: tiles when published)",
};

/** The environment a run sees (injected by tests). */
export interface ClientEnv {
  env: Record<string, string | undefined>;
  cwd: string;
}

export interface Command {
  /** One line for the command list. */
  brief: string;
  spec: CommandSpec;
  run(p: ParsedArgs, e: ClientEnv): Promise<number>;
}

export function out(v: unknown) {
  console.log(JSON.stringify(v));
}

export function path(p: string, e: ClientEnv): string {
  return resolveFromCaller(p, e.env, e.cwd);
}

export function urlOf(p: ParsedArgs, e: ClientEnv): string {
  return str(p, "url") ?? e.env.JC_URL ?? DEFAULT_URL;
}

/** The deadlines and redirect cap of every request (docs/CLIENTS.md). */
export function netOf(e: ClientEnv) {
  return netOptionsFromEnv((k) => e.env[k]);
}

/** Where the client remembers operator keys (trust on first use), beside the monitor's state. */
export function knownOperatorsPath(env: Record<string, string | undefined>): string | undefined {
  return defaultStatePath(env)?.replace(/monitor\.json$/, "operators.json");
}

/**
 * The service, its directory's key and the chosen shard, as the shard commands read them; in the
 * commands that take a log key (`withLogKey`), --log-key or JC_LOG_KEY names one log.
 */
export function shardCtxOf(
  p: ParsedArgs,
  e: ClientEnv,
  url = urlOf(p, e),
  withLogKey = true,
): ShardContext {
  return {
    url,
    shard: str(p, "shard"),
    pinnedLog: withLogKey && !!(str(p, "log-key") ?? e.env.JC_LOG_KEY),
    operatorKey: str(p, "operator-key") ?? (e.env.JC_OPERATOR_VKEY || undefined),
    knownFile: knownOperatorsPath(e.env),
    net: netOf(e),
  };
}

/** The parsed options as the tile commands read them (none of theirs repeats). */
export function flagsOf(p: ParsedArgs): Flags {
  return p.options as Flags;
}

/** `flags` with its file options (--policy, --evidence) resolved against the caller's cwd. */
export function withPaths(flags: Flags, e: ClientEnv): Flags {
  const r = { ...flags };
  for (const k of ["policy", "evidence"]) {
    if (typeof r[k] === "string") r[k] = path(r[k] as string, e);
  }
  return r;
}

/** The client of the log's tiles at `url`, or undefined to use the API (--source). */
export async function tileClient(
  url: string,
  flags: Flags,
  e: ClientEnv,
): Promise<TileClient | undefined> {
  const source = flags.source ?? "auto";
  if (source !== "auto" && source !== "tiles" && source !== "api") {
    throw new UsageError(`--source must be auto, tiles or api, got ${JSON.stringify(source)}`);
  }
  const tc = await openTileClient(url, flags, (k) => e.env[k], netOf(e));
  // docs/WITNESS.md: --policy FILE, every SHA-256 checkpoint must meet its quorum (tiles only).
  if (typeof flags.policy === "string") {
    if (!tc) throw new Error(`Cannot apply --policy to ${url}: it publishes no checkpoints`);
    enforcePolicy(tc, await loadPolicy(flags.policy));
  }
  return tc;
}

/** Where the monitor keeps its state by default: the user's state directory, never the tree. */
export function defaultStatePath(env: Record<string, string | undefined>): string | undefined {
  const base = env.XDG_STATE_HOME || (env.HOME ? `${env.HOME}/.local/state` : undefined);
  return base ? `${base}/jouleclaw/monitor.json` : undefined;
}
