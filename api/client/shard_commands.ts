// The client's commands over a sharded service (docs/SHARDS.md "Clients follow the directory",
// docs/CLIENTS.md "Shards"): which shard a command talks to, the append that follows the active
// shard (a 409 `shard-frozen` re-reads the directory and retries once, on the shard it names), and
// the operator keys the client remembers (trust on first use, like ssh's known_hosts). A service
// without a directory (404 on /v1/logs) is one shard at its root: nothing changes for it.
import type { Directory, ShardEntry } from "../../log/shards/mod.ts";
import { type CheckedAppend, HttpError, LogClient, type NetOptions } from "./client.ts";
import {
  activeShard,
  checkSuccession,
  readDirectory,
  type ServiceDirectory,
  serviceRoot,
  shardBase,
  shardById,
} from "./directory.ts";

/** How a command reaches a service and its directory. */
export interface ShardContext {
  /** The service root (`--url`). */
  url: string;
  /** `--shard sN`, if given. */
  shard?: string;
  /**
   * `--log-key` (or JC_LOG_KEY) names one log: without `--shard` the URL is that log's base and
   * no directory is read (as before shards).
   */
  pinnedLog?: boolean;
  /** `--operator-key` (or JC_OPERATOR_KEY). */
  operatorKey?: string;
  /** Where remembered operator keys live (undefined: remember nothing). */
  knownFile?: string;
  net: NetOptions;
  fetch?: typeof fetch;
}

/** The client's remembered operator keys: service root → operator vkey. */
interface KnownOperators {
  version: 1;
  operators: Record<string, string>;
}

async function loadKnown(file: string | undefined): Promise<KnownOperators> {
  if (!file) return { version: 1, operators: {} };
  try {
    const k = JSON.parse(await Deno.readTextFile(file));
    if (k?.version !== 1 || typeof k.operators !== "object" || !k.operators) {
      throw new Error(`Cannot read ${file}: not a known operators file`);
    }
    return k as KnownOperators;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { version: 1, operators: {} };
    throw e;
  }
}

async function saveKnown(file: string, k: KnownOperators): Promise<void> {
  const dir = file.slice(0, file.lastIndexOf("/"));
  if (dir) await Deno.mkdir(dir, { recursive: true });
  const tmp = `${file}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(tmp, JSON.stringify(k, null, 1));
  await Deno.rename(tmp, file);
}

/**
 * The service's directory (undefined: a single-shard log), its key pinned, remembered or trusted
 * on first use — and then remembered in `knownFile`.
 */
export async function serviceDirectory(ctx: ShardContext): Promise<ServiceDirectory | undefined> {
  const known = await loadKnown(ctx.knownFile);
  const root = serviceRoot(ctx.url);
  const sd = await readDirectory(root, {
    ...ctx.net,
    fetch: ctx.fetch,
    operatorKey: ctx.operatorKey,
    known: known.operators[root],
  });
  if (sd && ctx.knownFile && known.operators[root] !== sd.operatorVkey) {
    known.operators[root] = sd.operatorVkey;
    await saveKnown(ctx.knownFile, known);
  }
  return sd;
}

/** Where a command goes: the base URL of one shard, the shard (absent: no directory). */
export interface ShardTarget {
  base: string;
  shard?: ShardEntry;
  directory?: Directory;
}

/**
 * The shard a command talks to: `--shard sN`, else the active one. Without a directory the root
 * (and `--shard s0` is the root too; another shard is an Error).
 */
export async function targetShard(ctx: ShardContext): Promise<ShardTarget> {
  if (ctx.pinnedLog && ctx.shard === undefined) return { base: serviceRoot(ctx.url) };
  const sd = await serviceDirectory(ctx);
  if (!sd) {
    if (ctx.shard !== undefined && ctx.shard !== "s0") {
      throw new Error(`Cannot find shard ${ctx.shard}: ${ctx.url} publishes no shard directory`);
    }
    return { base: serviceRoot(ctx.url) };
  }
  const d = sd.directory;
  const s = ctx.shard !== undefined ? shardById(d, ctx.shard) : activeShard(d);
  return { base: shardBase(ctx.url, s), shard: s, directory: d };
}

/** Every shard of the service, newest first (without a directory: the root alone). */
export async function allShards(ctx: ShardContext): Promise<ShardTarget[]> {
  if (ctx.shard !== undefined || ctx.pinnedLog) return [await targetShard(ctx)];
  const sd = await serviceDirectory(ctx);
  if (!sd) return [{ base: serviceRoot(ctx.url) }];
  return sd.directory.shards.slice().reverse().map((s) => ({
    base: shardBase(ctx.url, s),
    shard: s,
    directory: sd.directory,
  }));
}

/** A second 409 `shard-frozen`, or one naming a shard the directory does not list as active. */
export class ShardFrozen extends HttpError {
  constructor(message: string, problem: Record<string, unknown>) {
    super(409, problem);
    this.message = message;
    this.name = "ShardFrozen";
  }
}

const isFrozen = (e: unknown): e is HttpError =>
  e instanceof HttpError && e.status === 409 && e.problem.code === "shard-frozen";

/**
 * Appends `envelope` to the active shard (the root without a directory), checked as
 * `LogClient.submit` checks it (the shard's signer from the signed directory unless `signer`
 * pins one). A 409 `shard-frozen` re-reads the directory (which must succeed the one read before)
 * and retries once on the shard the problem names, which must be the directory's active shard; a
 * second 409 is a ShardFrozen, never a third try.
 */
export async function submitFollowing(
  ctx: ShardContext,
  envelope: Uint8Array,
  signer?: string,
): Promise<{ append: CheckedAppend; shard?: string }> {
  const first = await targetShard({ ...ctx, shard: undefined });
  const client = (t: ShardTarget) =>
    new LogClient(t.base, signer ?? t.shard?.signer, ctx.fetch ?? fetch, ctx.net);
  try {
    return { append: await client(first).submit(envelope), shard: first.shard?.id };
  } catch (e) {
    if (!isFrozen(e)) throw e;
    const named = e.problem.active as { id?: unknown; prefix?: unknown } | undefined;
    const again = await serviceDirectory(ctx);
    const where = first.shard?.id ?? "the root";
    if (!again) {
      throw new ShardFrozen(
        `Cannot append: ${where} answers 409 shard-frozen, and ${ctx.url} publishes no shard ` +
          `directory to follow`,
        e.problem,
      );
    }
    if (first.directory) checkSuccession(ctx.url, first.directory, again.directory);
    const active = activeShard(again.directory);
    if (!named || named.id !== active.id || named.prefix !== active.prefix) {
      throw new ShardFrozen(
        `Cannot append: ${where} answers 409 shard-frozen naming ${
          JSON.stringify(named ?? null)
        }, ` +
          `but the directory's active shard is ${active.id} (${active.prefix})`,
        e.problem,
      );
    }
    const next = { base: shardBase(ctx.url, active), shard: active, directory: again.directory };
    try {
      return { append: await client(next).submit(envelope), shard: active.id };
    } catch (e2) {
      if (!isFrozen(e2)) throw e2;
      throw new ShardFrozen(
        `Cannot append: ${where} and then ${active.id} (the directory's active shard, re-read) ` +
          `both answer 409 shard-frozen; not retrying again`,
        e2.problem,
      );
    }
  }
}
