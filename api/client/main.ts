// `deno task client <command>`: the log's client and monitor CLI (README "Client and monitor").
//   submit FILE              append an envelope; prints its index; checks the proof and head
//   prove INDEX|LEAF_HASH    fetch and check an inclusion proof against the latest signed head
//   head                     fetch and check the latest signed head
//   monitor URL              poll URL, checking every new head extends the last one seen
// Options: --url URL (or JC_URL; default http://127.0.0.1:8080), --signer DID (pin the log key),
// monitor: --state FILE (default ./.jc-monitor.json), --interval SECONDS (default 30), --once.
// Exit status: 0 ok, 1 usage or network error, 2 a server answer failed a check, 3 monitor alarm,
// 4 the server misbehaved at the transport level (net/ NetError: timeout, oversize body, redirect
// loop, bad UTF-8/JSON, no connection; docs/CLIENTS.md). Deadlines: JC_CONNECT_TIMEOUT_MS,
// JC_TIMEOUT_MS, JC_MAX_REDIRECTS; monitor: after --max-failures N (default 10) failed polls in a
// row it exits 4 (the last was a transport failure) or 1 (an HTTP error status).
import { fromHex } from "../../verify/mod.ts";
import { HttpError, LogClient, VerificationFailure } from "./client.ts";
import { isNetError } from "../../net/mod.ts";
import { type FailureCount, reportFailedPoll } from "./monitor_report.ts";
import { netOptionsFromEnv } from "./net_env.ts";
import { emptyState, parseState, poll } from "./monitor.ts";
import {
  mirrorCommand,
  monitorTiles,
  openTileClient,
  proveFromTiles,
  verifyProofCommand,
} from "./tile_commands.ts";
import { TileClient } from "./tiles.ts";
import type { MonitorState } from "./monitor.ts";

const USAGE = `usage: deno task client <command> [options]
  submit FILE              append a COSE_Sign1 envelope (raw bytes, or hex if FILE ends in .hex)
  prove INDEX|LEAF_HASH    check an inclusion proof against the latest signed head
  head                     check and print the latest signed head
  monitor URL              watch a log; alarm (exit 3) on any inconsistency
  mirror URL DIR           copy both views' checkpoints, tiles and bundles, each verified
  verify-proof RECEIPT PROOF --log-key VKEY   check a c2sp.org/tlog-proof@v1 offline
options: --url URL  --signer DID  --state FILE  --interval SECONDS  --once  --max-failures N
  --log-key VKEY (or JC_LOG_KEY)  --source auto|tiles|api (prove, monitor; auto: tiles when published)
  --tlog-proof FILE --view blake3|sha256 (prove)  --witness VKEY[,VKEY] --quorum K (verify-proof)`;

interface Opts {
  positional: string[];
  flags: Record<string, string | true>;
}

function parseArgs(args: string[]): Opts {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith("--")) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
    else if (a === "--once") flags.once = true;
    else flags[a.slice(2)] = args[++i] ?? "";
  }
  return { positional, flags };
}

function out(v: unknown) {
  console.log(JSON.stringify(v));
}

async function readEnvelopeFile(path: string): Promise<Uint8Array> {
  const bytes = await Deno.readFile(path);
  if (!path.endsWith(".hex")) return bytes;
  return fromHex(new TextDecoder().decode(bytes).trim());
}

async function loadState(path: string): Promise<MonitorState> {
  try {
    return parseState(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return emptyState();
    throw e;
  }
}

async function saveState(path: string, state: MonitorState) {
  const tmp = `${path}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(tmp, JSON.stringify(state, null, 1));
  await Deno.rename(tmp, path); // atomic replace: a crash never leaves half a state
}

async function monitor(url: string, flags: Opts["flags"]): Promise<number> {
  const statePath = String(flags.state ?? "./.jc-monitor.json");
  const interval = Number(flags.interval ?? 30);
  const sleep = () => new Promise((res) => setTimeout(res, interval * 1000));
  const failures: FailureCount = { n: 0 };
  // A log that cannot be reached yet is polled (and its failures reported) by the loop below.
  const tc = await tileClient(url, flags).catch((e) => {
    if (isNetError(e) && flags.source !== "tiles") return undefined;
    throw e;
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
    const r = await poll(url, state, fetch, netOptionsFromEnv(Deno.env.get));
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
      return 3;
    }
    if (flags.once) return 0;
    await sleep();
  }
}

/** The client of the log's tiles at `url`, or undefined to use the API (--source). */
function tileClient(url: string, flags: Opts["flags"]): Promise<TileClient | undefined> {
  return openTileClient(url, flags, Deno.env.get, netOptionsFromEnv(Deno.env.get));
}

/** Runs the CLI with `args`; returns the exit status. */
export async function main(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args);
  const [cmd, arg] = positional;
  const url = String(flags.url ?? Deno.env.get("JC_URL") ?? "http://127.0.0.1:8080");
  const signer = typeof flags.signer === "string" ? flags.signer : undefined;
  try {
    const client = new LogClient(url, signer, fetch, netOptionsFromEnv(Deno.env.get));
    switch (cmd) {
      case "submit": {
        if (!arg) break;
        const a = await client.submit(await readEnvelopeFile(arg));
        out({
          index: a.index,
          leaf_hash: a.leaf_hash,
          created: a.created,
          tree_size: a.tree_head.size,
          verified: true,
        });
        return 0;
      }
      case "prove": {
        if (!arg) break;
        const tc = await tileClient(url, flags);
        if (tc) return await proveFromTiles(tc, arg, flags);
        const target = /^\d+$/.test(arg) ? Number(arg) : arg;
        const p = await client.prove(target);
        out({ index: p.index, size: p.size, leaf_hash: p.leaf_hash, path: p.path, verified: true });
        return 0;
      }
      case "head":
        out({ ...(await client.head()), verified: true });
        return 0;
      case "monitor":
        if (!arg) break;
        return await monitor(arg, flags);
      case "mirror":
        if (!arg || !positional[2]) break;
        return await mirrorCommand(
          (await tileClient(arg, { ...flags, source: "tiles" }))!,
          positional[2],
        );
      case "verify-proof":
        if (!arg || !positional[2]) break;
        return await verifyProofCommand(arg, positional[2], flags);
    }
    console.error(USAGE);
    return 1;
  } catch (e) {
    if (e instanceof VerificationFailure) {
      console.error(`CHECK FAILED: ${e.message}`);
      return 2;
    }
    if (isNetError(e)) {
      console.error(`NET ${e.code}: ${e.message}`);
      return 4;
    }
    if (e instanceof HttpError) {
      console.error(e.message);
      return 1;
    }
    console.error(`Cannot run ${cmd}: ${(e as Error).message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
