// `deno task client <command>`: the log's client, its monitor, and the tools to make test receipts
// (README "Client and monitor", "Making receipts"). One row of COMMANDS per command: its
// declaration (cli/args.ts: parser and --help text come from it) and what it runs.
// Exit status: 0 ok, 1 HTTP or file error, 2 usage, 3 a check failed (a server answer that does
// not prove what it claims; a monitor alarm; a core the verifier would refuse), 4 the server
// misbehaved at the transport level (net/ NetError: timeout, oversize body, redirect loop, bad
// UTF-8/JSON, no connection; docs/CLIENTS.md). Every request goes through net/, with the deadlines
// of JC_CONNECT_TIMEOUT_MS, JC_TIMEOUT_MS, JC_MAX_REDIRECTS. `prove` and `monitor` verify from the
// log's tiles when it publishes them (--source auto), else through the API. 5 (--policy FILE) a
// checkpoint below the C2SP tlog-policy quorum (docs/WITNESS.md).
import { readEnvelopeFile } from "./envelope_file.ts";
import { verifyEnvelope } from "../verify/mod.ts";
import {
  type CommandSpec,
  flag,
  num,
  type ParsedArgs,
  resolveFromCaller,
  runCommand,
  str,
  UsageError,
} from "../cli/mod.ts";
import { isNetError } from "../net/mod.ts";
import { EntryNotFound, HttpError, LogClient, VerificationFailure } from "./client.ts";
import { type FailureCount, reportFailedPoll } from "./monitor_report.ts";
import { netOptionsFromEnv } from "./net_env.ts";
import { emptyState, parseState, poll } from "./monitor.ts";
import { monitorService } from "./monitor_shards.ts";
import {
  type Flags,
  mirrorCommand,
  monitorTiles,
  openTileClient,
  proveFromTiles,
  verifyProofCommand,
} from "./tile_commands.ts";
import type { TileClient } from "./tiles.ts";
import { getEntry } from "./get_command.ts";
import {
  allShards,
  directoryFromFile,
  logKeyForProof,
  mirrorShards,
  serviceDirectory,
  type ShardContext,
  submitFollowing,
  targetShard,
} from "./shard_commands.ts";
import type { MonitorState } from "./monitor.ts";
import { keyFileText, keyScheme, parseKeyFile, sealCore, SealRefused } from "./seal.ts";
import {
  BelowQuorum,
  enforcePolicy,
  EXIT_BELOW_QUORUM,
  loadPolicy,
  verifyProofPolicyCommand,
} from "./policy.ts";

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
const URL_OPTS = [
  { name: "url", value: "URL", help: `the log (default $JC_URL or ${DEFAULT_URL})` },
  { name: "signer", value: "DID", help: "pin the log key (did:key); default: the one it names" },
];
const EXITS = "Exit status: 0 ok, 1 HTTP or file error, 2 usage, 3 a check failed, " +
  "4 a transport failure (timeout, oversize body, redirect loop, no connection; docs/CLIENTS.md), " +
  "5 (--policy) a checkpoint below the policy's quorum (docs/WITNESS.md).";
const LOG_KEY_OPT = {
  name: "log-key",
  value: "VKEY",
  help: "the log's vkey (or $JC_LOG_KEY); default: the one /v1/log/key lists",
};
const POLICY_OPT = {
  name: "policy",
  value: "FILE",
  help: "a C2SP tlog-policy every SHA-256 checkpoint must meet (tiles only); below quorum: exit 5",
};
// docs/CLIENTS.md "Shards": a service that publishes a shard directory (GET /v1/logs).
const SHARD_OPT = {
  name: "shard",
  value: "sN",
  help: "the shard (docs/SHARDS.md) to read; default the active one (a leaf: every shard)",
};
const OPERATOR_OPT = {
  name: "operator-key",
  value: "VKEY",
  help: "pin the operator key of the shard directory (or $JC_OPERATOR_VKEY); " +
    "default: trusted on first use, then remembered",
};
const SOURCE_OPT = {
  name: "source",
  value: "auto|tiles|api",
  help: "verify from the log's tiles or its API (default auto: tiles when published)",
};

/** The environment a run sees (injected by tests). */
export interface ClientEnv {
  env: Record<string, string | undefined>;
  cwd: string;
}

interface Command {
  /** One line for the command list. */
  brief: string;
  spec: CommandSpec;
  run(p: ParsedArgs, e: ClientEnv): Promise<number>;
}

function out(v: unknown) {
  console.log(JSON.stringify(v));
}

function path(p: string, e: ClientEnv): string {
  return resolveFromCaller(p, e.env, e.cwd);
}

function urlOf(p: ParsedArgs, e: ClientEnv): string {
  return str(p, "url") ?? e.env.JC_URL ?? DEFAULT_URL;
}

/** The deadlines and redirect cap of every request (docs/CLIENTS.md). */
function netOf(e: ClientEnv) {
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
function shardCtxOf(
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
function flagsOf(p: ParsedArgs): Flags {
  return p.options as Flags;
}

/** `flags` with its file options (--policy, --evidence) resolved against the caller's cwd. */
function withPaths(flags: Flags, e: ClientEnv): Flags {
  const r = { ...flags };
  for (const k of ["policy", "evidence"]) {
    if (typeof r[k] === "string") r[k] = path(r[k] as string, e);
  }
  return r;
}

/** The client of the log's tiles at `url`, or undefined to use the API (--source). */
async function tileClient(
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

/** The target of `prove`: --index N, --leaf HEX, or one bare argument (64 hex: a leaf hash). */
export function proveTarget(p: ParsedArgs): number | string {
  const index = str(p, "index");
  const leaf = str(p, "leaf");
  const bare = p.positional[0];
  const given = [index, leaf, bare].filter((x) => x !== undefined).length;
  if (given !== 1) throw new UsageError("give exactly one of --index N, --leaf HEX, or INDEX|LEAF");
  const asIndex = (s: string) => {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(s) || !Number.isSafeInteger(Number(s))) {
      throw new UsageError(`${JSON.stringify(s)} is not an index (a decimal integer)`);
    }
    return Number(s);
  };
  const asLeaf = (s: string) => {
    if (!/^[0-9a-fA-F]{64}$/.test(s)) {
      throw new UsageError(`${JSON.stringify(s)} is not a leaf hash (64 hex digits)`);
    }
    return s.toLowerCase();
  };
  if (index !== undefined) return asIndex(index);
  if (leaf !== undefined) return asLeaf(leaf);
  // 64 characters are a leaf hash even when all are digits: an index never has 64 digits.
  if (bare.length === 64) return asLeaf(bare);
  if (/^[0-9]+$/.test(bare)) return asIndex(bare);
  throw new UsageError(
    `${JSON.stringify(bare)} is neither an index (digits) nor a leaf hash (64 hex digits)`,
  );
}

/** Where the monitor keeps its state by default: the user's state directory, never the tree. */
export function defaultStatePath(env: Record<string, string | undefined>): string | undefined {
  const base = env.XDG_STATE_HOME || (env.HOME ? `${env.HOME}/.local/state` : undefined);
  return base ? `${base}/jouleclaw/monitor.json` : undefined;
}

async function loadState(file: string): Promise<MonitorState> {
  try {
    return parseState(await Deno.readTextFile(file));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return emptyState();
    throw e;
  }
}

async function saveState(file: string, state: MonitorState) {
  const dir = file.slice(0, file.lastIndexOf("/"));
  if (dir) await Deno.mkdir(dir, { recursive: true });
  const tmp = `${file}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(tmp, JSON.stringify(state, null, 1));
  await Deno.rename(tmp, file); // atomic replace: a crash never leaves half a state
}

const COMMANDS: Record<string, Command> = {
  submit: {
    brief: "append an envelope; prints its index (proof and head checked)",
    spec: {
      name: "deno task client submit",
      args: "FILE",
      summary: 'Appends a COSE_Sign1 envelope (raw bytes, hex, or {"envelope": hex}) to the log; ' +
        "prints its index, after checking the leaf hash, the signed head and the inclusion proof. " +
        'Of a sharded service (GET /v1/logs, docs/CLIENTS.md "Shards"): to the active shard; a ' +
        "409 shard-frozen re-reads the directory and retries once on the shard it names.",
      options: [...URL_OPTS, OPERATOR_OPT],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      // docs/CLIENTS.md "Shards": to the active shard; a 409 shard-frozen is followed once.
      const envelope = await readEnvelopeFile(path(p.positional[0], e));
      const { append: a, shard } = await submitFollowing(
        shardCtxOf(p, e, urlOf(p, e), false),
        envelope,
        str(p, "signer"),
      );
      out({
        index: a.index,
        leaf_hash: a.leaf_hash,
        created: a.created,
        tree_size: a.tree_head.size,
        ...(shard ? { shard } : {}),
        verified: true,
      });
      return EXIT.ok;
    },
  },
  prove: {
    brief: "check the inclusion proof of one entry (--index N, --leaf HEX)",
    spec: {
      name: "deno task client prove",
      args: "[INDEX | LEAF_HASH]",
      summary: "Fetches the inclusion proof of one entry and checks it against the latest signed " +
        "head. A bare argument of 64 hex digits is a leaf hash, digits otherwise an index. When " +
        "the log publishes tiles (docs/PUBLICATION.md) the entry is proven from them in both " +
        "views, against their signed checkpoints; else through the API.",
      options: [
        { name: "index", value: "N", help: "the entry at index N" },
        { name: "leaf", value: "HEX", help: "the entry whose leaf hash is HEX (64 hex digits)" },
        ...URL_OPTS,
        LOG_KEY_OPT,
        SOURCE_OPT,
        {
          name: "tlog-proof",
          value: "FILE",
          help: "also write a c2sp.org/tlog-proof@v1 of the entry (from tiles)",
        },
        { name: "view", value: "blake3|sha256", help: "the view of --tlog-proof (default blake3)" },
        POLICY_OPT,
        SHARD_OPT,
        OPERATOR_OPT,
      ],
      positionals: [0, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const target = proveTarget(p);
      const file = str(p, "tlog-proof");
      const given = withPaths(
        file ? { ...flagsOf(p), "tlog-proof": path(file, e) } : flagsOf(p),
        e,
      );
      // docs/CLIENTS.md "Shards": an index is within one shard, --shard's or else the active
      // one (as --shard's help says); a leaf is looked for in each, newest first.
      const ctx = shardCtxOf(p, e);
      const shards = typeof target === "number" ? [await targetShard(ctx)] : await allShards(ctx);
      for (const [i, t] of shards.entries()) {
        const flags = t.shard && !str(p, "log-key")
          ? { ...given, "log-key": t.shard.vkeys.blake3 }
          : given;
        try {
          const tc = await tileClient(t.base, flags, e);
          const shard = t.shard ? { shard: t.shard.id } : {};
          if (tc) return await proveFromTiles(tc, target, flags, shard);
          if (file) throw new UsageError("--tlog-proof needs the log's tiles (--source tiles)");
          const signer = str(p, "signer") ?? t.shard?.signer;
          const r = await new LogClient(t.base, signer, fetch, netOf(e)).prove(target);
          out({
            index: r.index,
            size: r.size,
            leaf_hash: r.leaf_hash,
            path: r.path,
            ...shard,
            verified: true,
          });
          return EXIT.ok;
        } catch (err) {
          // Not in this shard: look in the one before it.
          if (i < shards.length - 1 && err instanceof HttpError && err.status === 404) continue;
          throw err;
        }
      }
      return EXIT.error; // unreachable: the last shard's refusal is thrown
    },
  },
  get: {
    brief: "download an entry's envelope, proven in the log first (INDEX --out FILE)",
    spec: {
      name: "deno task client get",
      args: "INDEX",
      summary:
        "Downloads entry INDEX's envelope (its raw COSE_Sign1 bytes) into --out, only once " +
        "it is proven included: from the log's tiles against the signed checkpoint, else through " +
        "the API against the signed head. Past the end of the log: not found (exit 1), nothing " +
        "written.",
      options: [
        { name: "out", value: "FILE", help: "where to write the envelope (required)" },
        ...URL_OPTS,
        LOG_KEY_OPT,
        SOURCE_OPT,
        SHARD_OPT,
        OPERATOR_OPT,
      ],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const raw = p.positional[0];
      if (!/^(0|[1-9][0-9]{0,15})$/.test(raw)) {
        throw new UsageError(`INDEX must be a decimal index, got ${JSON.stringify(raw)}`);
      }
      const file = str(p, "out");
      if (!file) throw new UsageError("--out FILE is required");
      // docs/CLIENTS.md "Shards": an index is within one shard, --shard's or else the active one
      // (as --shard's help says, and as `prove --index` reads it).
      const t = await targetShard(shardCtxOf(p, e));
      const flags = t.shard && !str(p, "log-key")
        ? { ...flagsOf(p), "log-key": t.shard.vkeys.blake3 }
        : flagsOf(p);
      const tc = await tileClient(t.base, flags, e);
      const signer = str(p, "signer") ?? t.shard?.signer;
      const source = tc ? { tiles: tc } : { api: new LogClient(t.base, signer, fetch, netOf(e)) };
      const got = await getEntry(source, Number(raw), path(file, e));
      out({ ...got, ...(t.shard ? { shard: t.shard.id } : {}) });
      return EXIT.ok;
    },
  },
  head: {
    brief: "check and print the latest signed tree head",
    spec: {
      name: "deno task client head",
      summary: "Fetches the latest signed tree head and checks its signature against the log key " +
        "(of a sharded service: the active shard's, or --shard's, key from the signed directory).",
      options: [...URL_OPTS, SHARD_OPT, OPERATOR_OPT],
      footer: EXITS,
    },
    async run(p, e) {
      const t = await targetShard(shardCtxOf(p, e, urlOf(p, e), false));
      const c = new LogClient(t.base, str(p, "signer") ?? t.shard?.signer, fetch, netOf(e));
      out({ ...(await c.head()), ...(t.shard ? { shard: t.shard.id } : {}), verified: true });
      return EXIT.ok;
    },
  },
  "verifier-config": {
    brief: "print the verifier configuration in force, checked against its log entry",
    spec: {
      name: "deno task client verifier-config",
      summary: "Fetches GET /v1/verifier-config and checks it (issue 23): the logged entry's " +
        "BLAKE3 is the digest, its operator signature verifies, and it holds the document answered.",
      options: [...URL_OPTS],
      footer: EXITS,
    },
    async run(p, e) {
      out(await new LogClient(urlOf(p, e), undefined, fetch, netOf(e)).verifierConfig());
      return EXIT.ok;
    },
  },
  monitor: {
    brief: "watch a log; alarm (exit 3) on any inconsistency",
    spec: {
      name: "deno task client monitor",
      args: "URL",
      summary: "Watches a log: each poll checks that the new signed head extends the last one " +
        "seen for the same log key (consistency proof); alarms (exit 3) on anything else. From " +
        "the log's tiles (both views) when it publishes them. A failed poll (no answer, HTTP " +
        "error) is no alarm: each is reported on stderr, and a JSON line on stdout for a " +
        "transport failure. Of a sharded service (GET /v1/logs): every shard, each against its " +
        "own state, frozen ones against the directory's final roots, and the directory against " +
        'the last one seen; alarms carry a stable code (docs/CLIENTS.md "Shards").',
      options: [
        {
          name: "state",
          value: "FILE",
          help: "heads seen (default $XDG_STATE_HOME/jouleclaw/monitor.json, " +
            "else ~/.local/state/jouleclaw/monitor.json)",
        },
        { name: "interval", value: "SECONDS", help: "between polls (default 30)" },
        { name: "once", help: "poll once and exit" },
        {
          name: "max-failures",
          value: "N",
          help: "exit after N failed polls in a row (default 10): 4 if the last was a transport " +
            "failure, else 1",
        },
        URL_OPTS[1],
        LOG_KEY_OPT,
        SOURCE_OPT,
        POLICY_OPT,
        OPERATOR_OPT,
        {
          name: "evidence",
          value: "DIR",
          help: "where a views disagreement's signed statements are saved " +
            "(default ./.jc-monitor-evidence)",
        },
      ],
      positionals: [1, 1],
      footer: EXITS,
    },
    async run(p, e) {
      const url = p.positional[0];
      const given = str(p, "state");
      const statePath = given ? path(given, e) : defaultStatePath(e.env);
      if (!statePath) throw new UsageError("no $HOME or $XDG_STATE_HOME: give --state FILE");
      const interval = num(p, "interval", 30, 0.01);
      num(p, "max-failures", 10, 1); // checked here; read by reportFailedPoll
      const flags = withPaths(flagsOf(p), e);
      const failures: FailureCount = { n: 0 };
      // docs/CLIENTS.md "Shards": a service with a shard directory, every shard (unless --log-key
      // names one log); without one (404 on /v1/logs) the one log below, as before.
      if (!str(p, "log-key") && !e.env.JC_LOG_KEY) {
        const sharded = await monitorService(
          url,
          {
            operatorKey: str(p, "operator-key") ?? (e.env.JC_OPERATOR_VKEY || undefined),
            flags,
            env: (k) => e.env[k],
            net: netOf(e),
          },
          () => loadState(statePath),
          (s) => saveState(statePath, s),
          failures,
        );
        if (sharded !== undefined) return sharded;
      }
      // A log that cannot be reached yet is polled (and its failures reported) by the loop below.
      // (Not with --policy: the API loop cannot check a quorum, so it never stands in for tiles.)
      const tc = await tileClient(url, flags, e).catch((err) => {
        if (isNetError(err) && str(p, "source") !== "tiles" && !str(p, "policy")) return undefined;
        throw err;
      });
      if (tc) {
        return await monitorTiles(
          tc,
          flags,
          () => loadState(statePath),
          (s) => saveState(statePath, s),
          failures,
        );
      }
      for (;;) {
        const state = await loadState(statePath);
        const r = await poll(url, state, fetch, netOf(e));
        if (r.ok) {
          failures.n = 0;
          await saveState(statePath, state);
          out({ ok: true, url, size: r.head.size, root: r.head.root, message: r.message });
        } else if (r.transient) {
          const stop = reportFailedPoll(url, r, flags, failures);
          if (stop !== undefined) return stop;
        } else {
          console.error(`ALARM: ${url}: ${r.alarm}`);
          out({ ok: false, url, alarm: r.alarm });
          return EXIT.check;
        }
        if (flag(p, "once")) return EXIT.ok;
        await new Promise((res) => setTimeout(res, interval * 1000));
      }
    },
  },
  mirror: {
    brief: "copy a log's checkpoints, tiles and bundles (both views), each verified",
    spec: {
      name: "deno task client mirror",
      args: "URL DIR",
      summary: "Copies both views' checkpoints, tiles and entry bundles of the log at URL into " +
        "DIR (docs/PUBLICATION.md), checking every tile against its signed checkpoint and each " +
        "new checkpoint against the last one mirrored; files are written atomically, the " +
        "checkpoint last. Alarms (exit 3) when the log does not extend what DIR holds.",
      options: [URL_OPTS[1], LOG_KEY_OPT, {
        ...SHARD_OPT,
        help: "mirror this shard only (into DIR itself); default: every shard below its prefix",
      }, OPERATOR_OPT],
      positionals: [2, 2],
      footer: EXITS,
    },
    async run(p, e) {
      const [url, dir] = p.positional;
      // docs/CLIENTS.md "Shards": every shard, or --shard's; --log-key names one log (as before).
      const ctx = shardCtxOf(p, e, url);
      const t = ctx.pinnedLog && ctx.shard === undefined
        ? { base: url, shard: undefined }
        : await targetShard({ ...ctx, shard: ctx.shard ?? "s0" });
      if (t.shard && ctx.shard === undefined) return await mirrorShards(ctx, path(dir, e));
      const flags = t.shard && !str(p, "log-key")
        ? { ...flagsOf(p), "log-key": t.shard.vkeys.blake3 }
        : flagsOf(p);
      const tc = await tileClient(t.base, { ...flags, source: "tiles" }, e);
      return await mirrorCommand(tc!, path(dir, e));
    },
  },
  "verify-proof": {
    brief: "check a c2sp.org/tlog-proof@v1 of a receipt offline (--log-key VKEY)",
    spec: {
      name: "deno task client verify-proof",
      args: "RECEIPT PROOF",
      summary: "Checks, offline, that PROOF (a c2sp.org/tlog-proof@v1, as `prove --tlog-proof` " +
        'writes it) proves RECEIPT (its envelope: raw bytes, hex or {"envelope": hex}, as submit reads it) ' +
        "included in the log whose vkey is --log-key, and, with --witness, cosigned by at " +
        "least --quorum of the witnesses. Of a sharded service, the log's key may come from its " +
        "shard directory instead (--url, or --directory with --operator-key): the shard whose " +
        "log name is the proof's checkpoint origin.",
      options: [
        { name: "log-key", value: "VKEY", help: "the log's vkey (required)" },
        { name: "witness", value: "VKEY[,VKEY]", help: "witness vkeys" },
        { name: "quorum", value: "K", help: "witness cosignatures required (default 0)" },
        {
          name: "policy",
          value: "FILE",
          help: "a C2SP tlog-policy instead of --log-key/--witness/--quorum; below quorum: exit 5",
        },
        {
          name: "url",
          value: "URL",
          help: "instead of --log-key: the service whose shard directory names the proof's log " +
            "(by its checkpoint's origin; online)",
        },
        {
          name: "directory",
          value: "FILE",
          help: "instead of --log-key, offline: a saved GET /v1/logs (mirror's DIR/v1/logs), " +
            "opened with --operator-key",
        },
        OPERATOR_OPT,
      ],
      positionals: [2, 2],
      footer: EXITS,
    },
    async run(p, e) {
      const [receipt, proof] = p.positional;
      const policy = str(p, "policy");
      if (policy) {
        return await verifyProofPolicyCommand(path(receipt, e), path(proof, e), path(policy, e));
      }
      let flags = flagsOf(p);
      // docs/CLIENTS.md "Shards": the proof's origin names its shard; its key from the directory.
      const url = str(p, "url"), file = str(p, "directory");
      if (!str(p, "log-key") && (url || file)) {
        const ctx = shardCtxOf(p, e, url);
        if (file && !ctx.operatorKey) throw new UsageError("--directory needs --operator-key");
        const d = file
          ? await directoryFromFile(path(file, e), ctx.operatorKey!)
          : (await serviceDirectory(ctx))?.directory;
        if (!d) throw new Error(`Cannot find the proof's log: ${url} publishes no shard directory`);
        flags = {
          ...flags,
          "log-key": logKeyForProof(await Deno.readTextFile(path(proof, e)), d).vkey,
        };
      }
      if (!flags["log-key"]) {
        throw new UsageError("--log-key VKEY (or --url, --directory, --policy) is required");
      }
      num(p, "quorum", 0, 0);
      return await verifyProofCommand(path(receipt, e), path(proof, e), flags);
    },
  },
  keygen: {
    brief: "make a steward key (--out FILE); prints its did:key",
    spec: {
      name: "deno task client keygen",
      summary: "Makes a steward signing key for testing a runtime: writes it to FILE (mode 0600, " +
        "never over an existing file) and prints its did:key, the kid and steward of what " +
        "`client seal` signs with it.",
      options: [
        { name: "out", value: "FILE", help: "where to write the key (required)" },
        { name: "alg", value: "ALG", help: "EdDSA (default) or ES256" },
      ],
      footer: "Exit status: 0 ok, 1 the file exists or cannot be written, 2 usage.",
    },
    async run(p, e) {
      const file = str(p, "out");
      if (!file) throw new UsageError("--out FILE is required");
      const alg = str(p, "alg") ?? "EdDSA";
      if (alg !== "EdDSA" && alg !== "ES256") {
        throw new UsageError(`--alg must be EdDSA or ES256, got ${JSON.stringify(alg)}`);
      }
      let scheme;
      try {
        scheme = keyScheme(alg);
      } catch (err) {
        console.error((err as Error).message);
        return EXIT.error;
      }
      const key = scheme.generate();
      await Deno.writeTextFile(path(file, e), keyFileText(key), { createNew: true, mode: 0o600 });
      await Deno.chmod(path(file, e), 0o600); // whatever the umask
      console.log(key.kid);
      return EXIT.ok;
    },
  },
  seal: {
    brief: "seal a core (JSON projection) into a COSE_Sign1 receipt (--key FILE)",
    spec: {
      name: "deno task client seal",
      args: "CORE.json",
      summary:
        "Seals a signed core, given as its JSON projection (the `receipt` of a verification " +
        "report: integers as numbers, a u64 above 2^53 - 1 as a decimal string), into a " +
        "COSE_Sign1 envelope with the canonical det-CBOR core, signed with --key. Refuses what " +
        "the verifier would refuse (default configuration), with the verifier's reason codes.",
      options: [
        { name: "key", value: "FILE", help: "the key `client keygen` wrote (required)" },
        {
          name: "out",
          value: "FILE",
          help: "write the envelope's bytes here (default: hex on stdout)",
        },
      ],
      positionals: [1, 1],
      footer: "Exit status: 0 sealed, 1 a file cannot be read or written, 2 usage, " +
        "3 refused (the verifier's codes on stderr).",
    },
    async run(p, e) {
      const keyFile = str(p, "key");
      if (!keyFile) throw new UsageError("--key FILE is required");
      const key = parseKeyFile(await Deno.readTextFile(path(keyFile, e)));
      const coreFile = path(p.positional[0], e);
      let projection: unknown;
      try {
        projection = JSON.parse(await Deno.readTextFile(coreFile));
      } catch (err) {
        if (err instanceof SyntaxError) {
          throw new UsageError(`${p.positional[0]} is not JSON: ${err.message}`);
        }
        throw err;
      }
      const { envelope, report } = await sealCore(
        projection,
        key,
        (env) => verifyEnvelope(env),
      );
      const outFile = str(p, "out");
      if (outFile) {
        await Deno.writeFile(path(outFile, e), envelope);
        out({ out: outFile, schema: report.schema, leaf_hash: report.leaf_hash, valid: true });
      } else console.log(Array.from(envelope, (b) => b.toString(16).padStart(2, "0")).join(""));
      return EXIT.ok;
    },
  },
};

const TOP: CommandSpec = {
  name: "deno task client",
  args: "<command>",
  summary: "The log's client (it trusts nothing the server says: every head, inclusion and " +
    "consistency proof is checked), its monitor, and the tools to make test receipts.\n\n" +
    "Commands:\n" +
    Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(13)}${c.brief}`).join("\n") +
    "\n\n`deno task client <command> --help` describes each command's arguments.",
  options: [],
  positionals: [1, Infinity],
  footer: EXITS,
};

/** Runs the CLI with `args`; returns the exit status. */
export async function main(
  args: string[],
  e: ClientEnv = { env: Deno.env.toObject(), cwd: Deno.cwd() },
): Promise<number> {
  const name = args[0];
  const cmd = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) {
    // Not a command: --help, nothing, an unknown option or an unknown command.
    return await runCommand(args, TOP, (p) => {
      throw new UsageError(`unknown command ${JSON.stringify(p.positional[0])}`);
    });
  }
  return await runCommand(args.slice(1), cmd.spec, async (p) => {
    try {
      return await cmd.run(p, e);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      if (err instanceof BelowQuorum) {
        console.error(`BELOW QUORUM: ${err.message}`);
        return EXIT.belowQuorum;
      }
      if (err instanceof VerificationFailure || err instanceof SealRefused) {
        console.error(`CHECK FAILED: ${err.message}`);
        return EXIT.check;
      }
      if (isNetError(err)) {
        console.error(`NET ${err.code}: ${err.message}`);
        return EXIT.net;
      }
      if (err instanceof HttpError || err instanceof EntryNotFound) {
        console.error(err.message);
        return EXIT.error;
      }
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.AlreadyExists) {
        console.error(`Cannot run ${name}: ${(err as Error).message}`);
        return EXIT.error;
      }
      if (err instanceof Error && (err.name === "CborError" || err.name === "VerifyInputError")) {
        // A typed refusal of verify/ (CborError, VerifyInputError): the verifier's code.
        console.error(`CHECK FAILED: ${err.message} [${(err as { code?: string }).code}]`);
        return EXIT.check;
      }
      console.error(`Cannot run ${name}: ${(err as Error).message}`);
      return EXIT.error;
    }
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args));
