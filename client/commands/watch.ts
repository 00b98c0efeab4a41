// The watching commands of `deno task client` (client/main.ts): the monitor (its state in the
// user's state directory, replaced atomically) and the verified mirror.
import { flag, list, num, str, UsageError } from "../../cli/mod.ts";
import { isNetError } from "../../net/mod.ts";
import { type FailureCount, reportFailedPoll } from "../monitor_report.ts";
import { emptyState, type MonitorState, parseState, poll } from "../monitor.ts";
import { monitorService } from "../monitor_shards.ts";
import { forkWatch, reportWatch } from "../monitor_forks.ts";
import { mirrorCommand, monitorTiles } from "../tile_commands.ts";
import { mirrorShards, targetShard } from "../shard_commands.ts";
import {
  type Command,
  defaultStatePath,
  EXIT,
  EXITS,
  flagsOf,
  LOG_KEY_OPT,
  netOf,
  OPERATOR_OPT,
  out,
  path,
  POLICY_OPT,
  SHARD_OPT,
  shardCtxOf,
  SOURCE_OPT,
  tileClient,
  URL_OPTS,
  withPaths,
} from "./common.ts";

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

/** Rows of the client's command table (client/commands/mod.ts). */
export const WATCH_COMMANDS: Record<string, Command> = {
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
          name: "watch-steward",
          value: "DID",
          repeat: true,
          help: "also alarm (exit 3) on a new stream-fork (JCP §8.1 equivocation) of this " +
            "steward; the findings read are kept in the state file",
        },
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
      const stewards = list(p, "watch-steward");
      for (const d of stewards) {
        if (!/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/.test(d)) {
          throw new UsageError(`--watch-steward ${JSON.stringify(d)} is not a DID`);
        }
      }
      const watch = forkWatch(url, stewards, netOf(e));
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
          watch,
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
          watch,
        );
      }
      for (;;) {
        const state = await loadState(statePath);
        const r = await poll(url, state, fetch, netOf(e));
        if (r.ok) {
          failures.n = 0;
          const w = await watch?.(state);
          await saveState(statePath, state);
          out({ ok: true, url, size: r.head.size, root: r.head.root, message: r.message });
          const stop = reportWatch(url, w, flags, failures);
          if (stop !== undefined) return stop;
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
};
