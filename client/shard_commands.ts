// The client's commands over a sharded service (docs/SHARDS.md "Clients follow the directory",
// docs/CLIENTS.md "Shards"): which shard a command talks to, the append that follows the active
// shard (a 409 `shard-frozen` re-reads the directory and retries once, on the shard it names), and
// the operator keys the client remembers (trust on first use, like ssh's known_hosts). A service
// without a directory (404 on /v1/logs) is one shard at its root: nothing changes for it.
import {
  type Directory,
  DirectoryError,
  openDirectory,
  type ShardEntry,
} from "../log/shards/mod.ts";
import { c2sp } from "../log/mod.ts";
import { MirrorAlarm, mirrorLog, type MirrorReport } from "./mirror.ts";
import { fsMirrorStore } from "./mirror_fs.ts";
import { TileClient } from "./tiles.ts";
import {
  type CheckedAppend,
  HttpError,
  LogClient,
  type NetOptions,
  VerificationFailure,
} from "./client.ts";
import {
  activeShard,
  checkShardKeys,
  checkSuccession,
  DirectoryAlarm,
  readDirectory,
  type ServiceDirectory,
  serviceRoot,
  shardBase,
  shardById,
  shardByOrigin,
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
  /** `--operator-key` (or JC_OPERATOR_VKEY). */
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
        `Cannot append: ${where} answered 409 shard-frozen, and so did ${active.id}, the active ` +
          `shard of the re-read directory; not retrying again`,
        e2.problem,
      );
    }
  }
}

/** What `mirror` did with one shard. */
interface ShardMirrored {
  id: string;
  state: "active" | "frozen";
  views: MirrorReport["views"];
}

/**
 * `mirror URL DIR` of a sharded service (no `--shard`): every shard into DIR below its prefix (s0
 * at DIR, sN at DIR/shards/sN), so that DIR behind a static server answers as the service does;
 * a frozen shard's checkpoints must be the directory's final ones (`shard-final-mismatch`,
 * checked before anything of it is written); the directory, which must succeed the one mirrored
 * before (same operator key), is written last as DIR/v1/logs.
 */
export async function mirrorShards(ctx: ShardContext, dir: string): Promise<number> {
  const store = fsMirrorStore(dir);
  const saved = await store.read("v1/logs");
  let prev: { operator_vkey: string; note: string } | undefined;
  if (saved) prev = JSON.parse(new TextDecoder().decode(saved));
  const sd = await readDirectory(serviceRoot(ctx.url), {
    ...ctx.net,
    fetch: ctx.fetch,
    operatorKey: ctx.operatorKey,
    known: prev?.operator_vkey,
  });
  if (!sd) throw new Error(`Cannot mirror every shard: ${ctx.url} publishes no shard directory`);
  if (prev) {
    checkSuccession(ctx.url, await openDirectory(prev.note, prev.operator_vkey), sd.directory);
  }
  const done: ShardMirrored[] = [];
  for (const s of sd.directory.shards) {
    const client = new TileClient(shardBase(ctx.url, s), s.vkeys.blake3, {
      ...ctx.net,
      fetch: ctx.fetch,
    });
    if (s.state === "frozen") {
      for (const v of ["blake3", "sha256"] as const) {
        const c = (await client.checkpoint(v)).checkpoint;
        if (c.size !== s.size || c2sp.toBase64(c.root) !== s.root![v]) {
          throw new DirectoryAlarm(
            "shard-final-mismatch",
            `Cannot mirror frozen shard ${s.id}: its ${v} checkpoint (size ${c.size}) is not the ` +
              `directory's final one (size ${s.size})`,
          );
        }
      }
    }
    const sub = s.prefix === "/" ? dir : `${dir.replace(/\/+$/, "")}${s.prefix}`;
    try {
      const r = await mirrorLog(client, fsMirrorStore(sub));
      done.push({ id: s.id, state: s.state, views: r.views });
    } catch (e) {
      if (e instanceof MirrorAlarm) {
        console.error(`ALARM: ${client.base}: ${e.message}`);
        console.log(
          JSON.stringify({
            ok: false,
            url: client.base,
            shard: s.id,
            alarm: e.message.split("\n")[0],
          }),
        );
        return 3;
      }
      throw e;
    }
  }
  const answer = { operator_vkey: sd.operatorVkey, note: sd.note, directory: sd.directory };
  await store.write("v1/logs", new TextEncoder().encode(JSON.stringify(answer)));
  // The active shard's report at the top level, as a one-log mirror prints it.
  const a = done.at(-1)!;
  console.log(JSON.stringify({
    ok: true,
    url: ctx.url,
    dir,
    views: a.views,
    bound: a.views.blake3.size === a.views.sha256.size,
    shard: a.id,
    issued: sd.directory.issued,
    shards: done,
  }));
  return 0;
}

/**
 * The log key of the shard a c2sp.org/tlog-proof@v1 names: its checkpoint's origin
 * (`<log_name>/<view>`) looked up in the directory (`verify-proof --url`, `--directory`).
 */
export function logKeyForProof(proofText: string, d: Directory): { shard: string; vkey: string } {
  let origin: string;
  try {
    const cp = c2sp.parseTlogProof(proofText).checkpoint;
    origin = cp.slice(0, cp.indexOf("\n"));
  } catch (e) {
    throw new VerificationFailure(`Cannot verify the proof: ${(e as Error).message}`);
  }
  const s = shardByOrigin(d, origin);
  if (!s) {
    throw new VerificationFailure(
      `Cannot verify the proof: its origin ${origin} is no shard of the directory`,
    );
  }
  return { shard: s.id, vkey: origin.endsWith("/sha256") ? s.vkeys.sha256 : s.vkeys.blake3 };
}

/**
 * A saved `GET /v1/logs` answer (as `mirror` writes DIR/v1/logs), opened offline with the pinned
 * operator key (required: a file cannot introduce its own key).
 */
export async function directoryFromFile(file: string, operatorKey: string): Promise<Directory> {
  const text = await Deno.readTextFile(file);
  let note: unknown;
  try {
    const v = JSON.parse(text);
    note = v && typeof v === "object" ? v.note : undefined;
  } catch {
    note = text; // the signed note alone (Accept: text/plain)
  }
  if (typeof note !== "string") throw new Error(`Cannot read ${file}: no shard directory note`);
  try {
    const d = await openDirectory(note, operatorKey);
    checkShardKeys(file, d);
    return d;
  } catch (e) {
    if (e instanceof DirectoryError) throw new DirectoryAlarm(e.code, e.message);
    throw e;
  }
}
