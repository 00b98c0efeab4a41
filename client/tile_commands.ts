// The client's commands over tiles (README "Static publication"): `prove` and `monitor` verify
// from the tiles of both views by default (checkpoints opened with the log's vkey, every tile
// checked against its signed checkpoint), `mirror` copies a log, `verify-proof` checks a
// tlog-proof offline. main.ts parses the arguments; these return exit statuses (0 ok, 3 an alarm;
// a failed check is thrown as VerificationFailure, which main.ts answers with 3 too).
import { type ForkWatch, reportWatch } from "./monitor_forks.ts";
import { publicKeyFromDidKey, toHex } from "../verify/mod.ts";
import { c2sp } from "../log/mod.ts";
import { isNetError } from "../net/mod.ts";
import { EntryNotFound, HttpError, VerificationFailure } from "./client.ts";
import { readEnvelopeFile } from "./envelope_file.ts";
import { type FailureCount, reportFailedPoll } from "./monitor_report.ts";
import { MirrorAlarm, mirrorLog } from "./mirror.ts";
import { fsMirrorStore } from "./mirror_fs.ts";
import type { MonitorState } from "./monitor.ts";
import { getBytes, getJson, TileClient, type TileNet, type View, VIEW_NAMES } from "./tiles.ts";
import { tlogProofFromTiles, verifyReceiptProof } from "./verify_proof.ts";
import { type BindState, bindViews } from "./bind_views.ts";

/** The flags the tile commands read. */
export type Flags = Record<string, string | true>;

const out = (v: unknown) => console.log(JSON.stringify(v));
const str = (f: Flags, k: string) => (typeof f[k] === "string" ? f[k] as string : undefined);

/** The service publishes no vkeys (it serves no tiles): pass --log-key, or use --source api. */
export class NoVkey extends Error {
  constructor(url: string) {
    super(`Cannot find the log's vkey: ${url}/v1/log/key lists none; pass --log-key`);
    this.name = "NoVkey";
  }
}

/**
 * The tile client for `url`, or undefined where the API is to be used: `--source api`, or, by
 * default (`--source auto`), a log that publishes no tiles (no vkey in /v1/log/key, or no
 * checkpoint: 404). `--source tiles` insists on tiles.
 */
export async function openTileClient(
  url: string,
  flags: Flags,
  env: (k: string) => string | undefined,
  net: TileNet,
): Promise<TileClient | undefined> {
  const source = str(flags, "source") ?? "auto";
  if (source === "api") return undefined;
  if (source !== "auto" && source !== "tiles") throw new Error(`Cannot use --source ${source}`);
  const auto = source === "auto";
  const absent = (e: unknown) =>
    auto && (e instanceof NoVkey || (e instanceof HttpError && e.status === 404));
  try {
    const client = new TileClient(url, await resolveLogKey(url, flags, env, net), net);
    if (auto) await client.checkpoint("blake3");
    return client;
  } catch (e) {
    if (absent(e)) return undefined;
    throw e;
  }
}

/**
 * The log's vkey: `--log-key` (or JC_LOG_KEY), else the one `GET /v1/log/key` lists (trust on
 * first use; checked against `--signer` when given).
 */
export async function resolveLogKey(
  url: string,
  flags: Flags,
  env: (k: string) => string | undefined,
  net: TileNet,
): Promise<string> {
  const pinned = str(flags, "log-key") ?? env("JC_LOG_KEY");
  let vkey = pinned;
  if (!vkey) {
    const doc = await getJson(`${url.replace(/\/+$/, "")}/v1/log/key`, "json", net) as {
      vkeys?: Record<string, unknown>;
    };
    vkey = doc?.vkeys?.blake3 as string ?? doc?.vkeys?.sha256;
    if (typeof vkey !== "string") throw new NoVkey(url);
  }
  const signer = str(flags, "signer");
  if (signer) {
    const pub = publicKeyFromDidKey(signer);
    if (toHex(c2sp.parseVkey(vkey).publicKey) !== toHex(pub)) {
      throw new VerificationFailure(`Cannot trust the log key ${vkey}: it is not ${signer}`);
    }
  }
  return vkey;
}

/**
 * `prove` from tiles: the entry at index `target` (a number), or the entry whose leaf hash is
 * `target` (64 lowercase hex; commands/log.ts's `proveTarget` decides which, so 64 digits are a leaf hash),
 * proven in both views against their signed checkpoints (a leaf hash is looked up by the service's
 * index, then proven from tiles);
 * `--tlog-proof FILE` also writes a c2sp.org/tlog-proof@v1 for `--view` (default blake3); `extra`
 * joins the printed line (the shard of a sharded service).
 */
export async function proveFromTiles(
  client: TileClient,
  target: number | string,
  flags: Flags,
  extra: Record<string, unknown> = {},
): Promise<number> {
  let index: number;
  if (typeof target === "number") index = target;
  else if (/^[0-9a-f]{64}$/.test(target)) {
    const q = `${client.base}/v1/log/proof/inclusion?leaf_hash=${target}`;
    const p = JSON.parse(new TextDecoder().decode(await getBytes(q, "proof", client.net)));
    index = Number(p.index);
    if (!Number.isSafeInteger(index)) throw new VerificationFailure(`Cannot find leaf ${target}`);
  } else throw new Error(`Cannot prove ${target}: give an index or a 64-hex leaf hash`);
  const views: Record<string, unknown> = {};
  let blake3Leaf = "";
  const cps = new Map<View, Awaited<ReturnType<TileClient["checkpoint"]>>>();
  for (const view of VIEW_NAMES) {
    const c = await client.checkpoint(view);
    cps.set(view, c);
    if (index >= c.checkpoint.size) throw new EntryNotFound(index, c.checkpoint.size);
    const r = await client.prove(c, index);
    if (view === "blake3") blake3Leaf = r.leaf_hash;
    views[view] = { size: r.size, root: r.root, leaf_hash: r.leaf_hash, path: r.path };
  }
  if (typeof target === "string" && blake3Leaf !== target) {
    throw new VerificationFailure(`Cannot trust entry ${index}: it hashes to ${blake3Leaf}`);
  }
  const file = str(flags, "tlog-proof");
  if (file) {
    const view = (str(flags, "view") ?? "blake3") as View;
    if (!cps.has(view)) throw new Error(`Cannot write a tlog-proof: no view ${view}`);
    await Deno.writeTextFile(file, await tlogProofFromTiles(client, cps.get(view)!, index));
  }
  // The BLAKE3 view's figures at the top level, as the v1 API path prints them.
  const b = views.blake3 as { size: number; path: string[] };
  out({
    index,
    size: b.size,
    leaf_hash: blake3Leaf,
    path: b.path,
    views,
    from: "tiles",
    ...extra,
    verified: true,
  });
  return 0;
}

/** Monitor state for tiles: each view's last checkpoint note, per vkey. */
type TileState = MonitorState & { checkpoints?: Record<string, string>; bind?: BindState };

/** Outcome of one monitor poll over tiles. */
export type TilePoll =
  | { ok: true; sizes: Record<View, number>; roots: Record<View, string>; message: string }
  | {
    ok: false;
    alarm: string;
    transient: boolean;
    /** A transport failure's NetError code (net/). */
    code?: string;
  };

/**
 * One monitor poll over tiles: each view's checkpoint must be signed by its vkey and extend the
 * last one seen (consistency proof from tiles); at one size, the newest bundle must hash into both
 * views' level-0 tiles. `state` changes only when the poll passes.
 */
export async function pollTiles(
  client: TileClient,
  state: TileState,
  evidenceDir?: string,
): Promise<TilePoll> {
  const seen = { ...(state.checkpoints ?? {}) };
  const sizes = {} as Record<View, number>;
  const roots = {} as Record<View, string>;
  const msgs: string[] = [];
  try {
    const cur = {} as Record<View, Awaited<ReturnType<TileClient["checkpoint"]>>>;
    for (const view of VIEW_NAMES) {
      const c = await client.checkpoint(view);
      cur[view] = c;
      const key = client.vkeys[view];
      const prev = seen[key];
      if (prev) {
        const old = await client.open(view, prev);
        await client.checkConsistency(old, c);
        msgs.push(`${view} ${c.checkpoint.size} extends ${old.checkpoint.size}`);
      } else msgs.push(`${view}: first checkpoint ${c.checkpoint.size}`);
      seen[key] = c.note;
      sizes[view] = c.checkpoint.size;
      roots[view] = toHex(c.checkpoint.root);
    }
    const n = sizes.blake3;
    if (n > 0 && n === sizes.sha256) {
      // The views bind the same entries (Decision P3): the newest bundle proves into both.
      const last = Math.floor((n - 1) / c2sp.TILE_WIDTH);
      const [a, b] = await Promise.all(VIEW_NAMES.map((v) => client.reader(cur[v]).entries(last)));
      if (a.length !== b.length || a.some((x, i) => toHex(x) !== toHex(b[i]))) {
        throw new VerificationFailure(`Cannot trust the log: its two views hold different entries`);
      }
    }
    // docs/WITNESS.md: both roots recomputed from the bundles at the witnessed checkpoint's size.
    msgs.push(await bindViews(client, cur, state, evidenceDir));
  } catch (e) {
    if (e instanceof Error && e.name === "BelowQuorum") throw e; // --policy: exit 5, not an alarm
    if (e instanceof VerificationFailure) return { ok: false, alarm: e.message, transient: false };
    if (e instanceof c2sp.C2spError) {
      return { ok: false, alarm: `${e.code}: ${e.message}`, transient: false };
    }
    if (e instanceof HttpError && e.status === 404) {
      return { ok: false, alarm: `the log refused a tile it owes: ${e.message}`, transient: false };
    }
    if (isNetError(e)) return { ok: false, alarm: e.message, transient: true, code: e.code };
    return { ok: false, alarm: (e as Error).message, transient: true };
  }
  state.checkpoints = seen;
  return { ok: true, sizes, roots, message: msgs.join("; ") };
}

/** `mirror URL DIR`: 0 when the mirror is up to date, 3 on an alarm. */
export async function mirrorCommand(client: TileClient, dir: string): Promise<number> {
  try {
    const r = await mirrorLog(client, fsMirrorStore(dir));
    out({ ok: true, url: client.base, dir, ...r });
    return 0;
  } catch (e) {
    if (e instanceof MirrorAlarm) {
      console.error(`ALARM: ${client.base}: ${e.message}`);
      out({ ok: false, url: client.base, alarm: e.message.split("\n")[0] });
      return 3;
    }
    throw e;
  }
}

/** `verify-proof RECEIPT PROOF --log-key VKEY [--witness VKEY --quorum K]`: offline. */
export async function verifyProofCommand(
  receiptPath: string,
  proofPath: string,
  flags: Flags,
): Promise<number> {
  const logKey = str(flags, "log-key");
  if (!logKey) {
    throw new Error("Cannot verify offline without the log's key: pass --log-key <vkey>");
  }
  const receipt = await readEnvelopeFile(receiptPath);
  const proof = await Deno.readTextFile(proofPath);
  const w = str(flags, "witness");
  const r = await verifyReceiptProof(receipt, proof, {
    logKey,
    witnesses: w ? w.split(",") : [],
    quorum: Number(str(flags, "quorum") ?? 0),
  });
  out({ ...r, verified: true });
  return 0;
}

/**
 * `monitor URL` over tiles: polls every `--interval` seconds (or once with `--once`), alarming
 * (exit 3) when a checkpoint does not extend the last one seen; the state file keeps each view's
 * last checkpoint. `load`/`save` are main.ts's state file functions.
 */
export async function monitorTiles(
  client: TileClient,
  flags: Flags,
  load: () => Promise<MonitorState>,
  save: (s: MonitorState) => Promise<void>,
  failures: FailureCount = { n: 0 },
  watch?: ForkWatch,
): Promise<number> {
  const interval = Number(flags.interval ?? 30);
  for (;;) {
    const state = await load();
    const r = await pollTiles(client, state, str(flags, "evidence"));
    if (r.ok) {
      failures.n = 0;
      const w = await watch?.(state); // issue 24: --watch-steward (client/monitor_forks.ts)
      await save(state);
      const size = r.sizes.blake3, root = r.roots.blake3;
      out({
        ok: true,
        url: client.base,
        size,
        root,
        sizes: r.sizes,
        message: r.message,
        from: "tiles",
      });
      const stop = reportWatch(client.base, w, flags, failures);
      if (stop !== undefined) return stop;
    } else if (r.transient) {
      // issue 18: reported (a NetError with its code), counted, never silent, never an alarm
      const stop = reportFailedPoll(client.base, r, flags, failures);
      if (stop !== undefined) return stop;
    } else {
      console.error(`ALARM: ${client.base}: ${r.alarm}`);
      out({ ok: false, url: client.base, alarm: r.alarm });
      return 3;
    }
    if (flags.once) return 0;
    await new Promise((res) => setTimeout(res, interval * 1000));
  }
}
