// The monitor of a sharded service (docs/SHARDS.md "Succession", docs/CLIENTS.md "Shards"): each
// poll reads the signed directory (`GET /v1/logs`) under the operator key it pinned or trusted on
// first use, checks that it may follow the last directory it accepted (log/shards'
// `directorySuccession`), then checks every shard against its own state exactly as the one-log
// monitor does (from tiles, both views, when the shard publishes them; else through its API, pinned
// to the shard's signer from the directory) and every frozen shard against the directory's final
// size and roots: its checkpoints must equal them, so they never move. The state changes only when
// the whole poll passes. A service that answers 404 to /v1/logs is a single-shard log: the caller
// monitors it as before (unless a directory was seen there before: `directory-withdrawn`).
import { type ForkWatch, reportWatch } from "./monitor_forks.ts";
import { openDirectory } from "../log/shards/mod.ts";
import { c2sp } from "../log/mod.ts";
import { isNetError } from "../net/mod.ts";
import { toHex } from "../verify/mod.ts";
import { HttpError, type NetOptions, VerificationFailure } from "./client.ts";
import {
  checkSuccession,
  DirectoryAlarm,
  readDirectory,
  serviceRoot,
  shardBase,
} from "./directory.ts";
import { type MonitorState, poll, type ServiceState } from "./monitor.ts";
import { type FailureCount, reportFailedPoll } from "./monitor_report.ts";
import { enforcePolicy, loadPolicy, policyForShard } from "./policy.ts";
import { type Flags, openTileClient, pollTiles } from "./tile_commands.ts";

/** One shard as a passing poll saw it. */
export interface ShardSeen {
  id: string;
  state: "active" | "frozen";
  /** The BLAKE3 view's size and root (hex); `sizes` per view when read from tiles. */
  size: number;
  root: string;
  sizes?: Record<string, number>;
  from: "tiles" | "api";
  /** The one-log monitor's message for this shard. */
  message: string;
}

/** Outcome of one poll of a service. */
export type ServicePoll =
  /** No directory (404): a single-shard log, monitored as before by the caller. */
  | { ok: true; single: true }
  | { ok: true; single?: false; issued: string; shards: ShardSeen[]; message: string }
  | { ok: false; alarm: string; transient: boolean; code?: string };

/** What a sharded poll needs besides the service and the state. */
export interface ServiceOptions {
  /** `--operator-key` / JC_OPERATOR_VKEY. */
  operatorKey?: string;
  /** The monitor's flags (`--source`, `--policy`, `--evidence`, …): applied to every shard. */
  flags: Flags;
  env: (k: string) => string | undefined;
  net: NetOptions;
  fetch?: typeof fetch;
}

const alarm = (code: string, message: string): ServicePoll => ({
  ok: false,
  alarm: `${message} [${code}]`,
  transient: false,
  code,
});

/** The hex of a directory's base64 root. */
const hexRoot = (b64: string) => toHex(c2sp.fromBase64(b64));

/**
 * Polls the service at `url` once against `state` (updated in place only when every check passes):
 * the directory, its succession, every shard. Alarm codes are stable (docs/CLIENTS.md "Alarms").
 */
export async function pollService(
  url: string,
  state: MonitorState,
  o: ServiceOptions,
): Promise<ServicePoll> {
  const root = serviceRoot(url);
  const svc: ServiceState | undefined = state.services?.[root];
  try {
    const sd = await readDirectory(root, {
      ...o.net,
      fetch: o.fetch,
      operatorKey: o.operatorKey,
      known: svc?.operator_vkey,
    });
    if (!sd) {
      if (!svc) return { ok: true, single: true };
      return alarm(
        "directory-withdrawn",
        `${root} no longer publishes its shard directory (404 on /v1/logs), which it did before`,
      );
    }
    const d = sd.directory;
    if (svc) checkSuccession(root, await openDirectory(svc.note, svc.operator_vkey), d);
    // Every shard, each against its own state; `work` collects the changes until all pass.
    const work: MonitorState = {
      ...state,
      urls: { ...state.urls },
      heads: { ...state.heads },
      checkpoints: { ...((state as { checkpoints?: Record<string, string> }).checkpoints ?? {}) },
    } as MonitorState;
    const shards: ServiceState["shards"] = {};
    const seen: ShardSeen[] = [];
    for (const s of d.shards) {
      const base = shardBase(root, s);
      let bind = svc?.shards[s.id]?.bind;
      // A state from before shards that watched this log over tiles: its binding is s0's.
      const old = state as { bind?: unknown; checkpoints?: Record<string, string> };
      if (!svc && s.id === "s0" && old.bind && old.checkpoints?.[s.vkeys.sha256]) bind = old.bind;
      const tc = await openTileClient(base, { ...o.flags, "log-key": s.vkeys.blake3 }, o.env, {
        ...o.net,
        fetch: o.fetch,
      });
      // --policy FILE: every shard's SHA-256 checkpoints must meet it (the operator's default
      // names every shard's log; a shard it does not name, cut after the file was fetched, is
      // held to its witnesses and quorum under the key the signed directory gives it).
      if (tc && typeof o.flags.policy === "string") {
        enforcePolicy(tc, policyForShard(await loadPolicy(o.flags.policy), s.vkeys.sha256));
      }
      let got: ShardSeen;
      if (tc) {
        const sub = work as MonitorState & { bind?: unknown };
        sub.bind = bind;
        const r = await pollTiles(
          tc,
          sub as Parameters<typeof pollTiles>[1],
          o.flags.evidence as string,
        );
        if (!r.ok) {
          if (r.transient) {
            return { ok: false, alarm: `${s.id}: ${r.alarm}`, transient: true, code: r.code };
          }
          return alarm("shard-check-failed", `${root} shard ${s.id}: ${r.alarm}`);
        }
        bind = sub.bind;
        got = {
          id: s.id,
          state: s.state,
          size: r.sizes.blake3,
          root: r.roots.blake3,
          sizes: r.sizes,
          from: "tiles",
          message: r.message,
        };
        if (s.state === "frozen") {
          for (const v of ["blake3", "sha256"] as const) {
            if (r.sizes[v] !== s.size || r.roots[v] !== hexRoot(s.root![v])) {
              return alarm(
                "shard-final-mismatch",
                `${root} frozen shard ${s.id}: its ${v} checkpoint is size ${r.sizes[v]} root ` +
                  `${r.roots[v]}, the directory's final one size ${s.size} root ${
                    hexRoot(s.root![v])
                  }`,
              );
            }
          }
        }
      } else {
        const r = await poll(base, work, o.fetch ?? fetch, o.net, s.signer);
        if (!r.ok) {
          if (r.transient) {
            return { ok: false, alarm: `${s.id}: ${r.alarm}`, transient: true, code: r.code };
          }
          return alarm("shard-check-failed", `${root} shard ${s.id}: ${r.alarm}`);
        }
        got = {
          id: s.id,
          state: s.state,
          size: r.head.size,
          root: r.head.root,
          from: "api",
          message: r.message,
        };
        if (
          s.state === "frozen" &&
          (r.head.size !== s.size || r.head.root !== hexRoot(s.root!.blake3))
        ) {
          return alarm(
            "shard-final-mismatch",
            `${root} frozen shard ${s.id}: its head is size ${r.head.size} root ${r.head.root}, the ` +
              `directory's final one size ${s.size} root ${hexRoot(s.root!.blake3)}`,
          );
        }
      }
      shards[s.id] = bind === undefined ? {} : { bind };
      seen.push(got);
    }
    // Every check passed: keep what was seen.
    delete (work as { bind?: unknown }).bind;
    Object.assign(state, work);
    state.services = {
      ...(state.services ?? {}),
      [root]: { operator_vkey: sd.operatorVkey, note: sd.note, shards },
    };
    const active = seen.at(-1)!;
    return {
      ok: true,
      issued: d.issued,
      shards: seen,
      // The active shard's own message first (as the one-log monitor prints it), then the rest.
      message: `${active.message}; active shard ${active.id} of ${seen.length}, directory ` +
        `issued ${d.issued}` +
        (svc
          ? " succeeds the last one"
          : ` (operator key ${sd.firstUse ? "trusted on first use" : "pinned"})`),
    };
  } catch (e) {
    if (e instanceof DirectoryAlarm) return alarm(e.code, e.message);
    if (e instanceof Error && e.name === "BelowQuorum") throw e; // --policy: exit 5
    if (e instanceof VerificationFailure) return alarm("shard-check-failed", e.message);
    if (isNetError(e)) return { ok: false, alarm: e.message, transient: true, code: e.code };
    if (e instanceof HttpError) return { ok: false, alarm: e.message, transient: true };
    throw e;
  }
}

/**
 * `monitor URL` of a sharded service: polls every `--interval` seconds (or once with `--once`);
 * an alarm prints `ALARM: …` and a JSON line with its `code` and answers 3; a failed poll is
 * reported as the one-log monitor reports it (monitor_report.ts). Answers undefined as soon as the
 * service turns out to publish no directory: the caller monitors it as one log, as before.
 */
export async function monitorService(
  url: string,
  o: ServiceOptions,
  load: () => Promise<MonitorState>,
  save: (s: MonitorState) => Promise<void>,
  failures: FailureCount = { n: 0 },
  watch?: ForkWatch,
): Promise<number | undefined> {
  const interval = Number(o.flags.interval ?? 30);
  for (;;) {
    const state = await load();
    const r = await pollService(url, state, o);
    if (r.ok && r.single) return undefined;
    if (r.ok) {
      failures.n = 0;
      const w = await watch?.(state); // issue 24: --watch-steward (client/monitor_forks.ts)
      await save(state);
      const a = r.shards.at(-1)!;
      console.log(JSON.stringify({
        ok: true,
        url,
        shard: a.id,
        size: a.size,
        root: a.root,
        ...(a.sizes ? { sizes: a.sizes } : {}),
        message: r.message,
        ...(a.from === "tiles" ? { from: "tiles" } : {}),
        issued: r.issued,
        shards: r.shards.map(({ message: _m, ...x }) => x),
      }));
      const stop = reportWatch(url, w, o.flags, failures);
      if (stop !== undefined) return stop;
    } else if (r.transient) {
      const stop = reportFailedPoll(url, r, o.flags, failures);
      if (stop !== undefined) return stop;
    } else {
      console.error(`ALARM: ${url}: ${r.alarm}`);
      console.log(JSON.stringify({ ok: false, url, alarm: r.alarm, code: r.code }));
      return 3;
    }
    if (o.flags.once) return 0;
    await new Promise((res) => setTimeout(res, interval * 1000));
  }
}
