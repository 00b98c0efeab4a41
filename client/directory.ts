// The client's reader of a service's shard directory (docs/SHARDS.md, docs/CLIENTS.md "Shards"):
// `GET /v1/logs` fetched within bounded time and size (net/), opened under the operator key —
// pinned (`--operator-key`, JC_OPERATOR_VKEY), or the one remembered for the service, or, trusted on
// first use, the one the answer names — with every rule of log/shards' `checkDirectory`. A service
// that answers 404 is a single-shard log: its root is its only shard, and every command behaves as
// it did before shards. Pure: fetch only (the CLI keeps the remembered keys; shard_commands.ts).
import {
  activeShard,
  type Directory,
  DirectoryError,
  directorySuccession,
  MAX_DIRECTORY_BYTES,
  openDirectory,
  type ShardEntry,
} from "../log/shards/mod.ts";
import { c2sp } from "../log/mod.ts";
import { request } from "../net/mod.ts";
import { didKeyFromPublicKey } from "../verify/mod.ts";
import { HttpError, type NetOptions, VerificationFailure } from "./client.ts";
import { problemOf } from "./tiles.ts";

/** A directory the client cannot accept, or one that breaks what it saw before: a failed check. */
export class DirectoryAlarm extends VerificationFailure {
  /** Stable: log/shards' codes, `operator-key-changed`, `directory-withdrawn`, `shard-*`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${message} [${code}]`);
    this.name = "DirectoryAlarm";
    this.code = code;
  }
}

/** A service's directory as the client accepted it. */
export interface ServiceDirectory {
  /** The service root, without a trailing slash. */
  url: string;
  /** The operator vkey the note was opened with. */
  operatorVkey: string;
  /** The signed note, verbatim. */
  note: string;
  directory: Directory;
  /** Whether the key was trusted on this first use (neither pinned nor remembered). */
  firstUse: boolean;
}

/** How the directory's key is known; `net` and `fetch` reach the service. */
export interface DirectoryOptions extends NetOptions {
  /** The pinned operator vkey (`--operator-key`, JC_OPERATOR_VKEY). */
  operatorKey?: string;
  /** The operator vkey remembered for this service (state file, known operators). */
  known?: string;
  fetch?: typeof fetch;
}

/** Most bytes of a `GET /v1/logs` JSON answer: the note, its JSON again, and the key. */
const MAX_ANSWER_BYTES = 2 * MAX_DIRECTORY_BYTES + 64 * 1024;

/** The service root of `url`, without a trailing slash. */
export function serviceRoot(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * The base URL of shard `s` of the service at `url` (no trailing slash): every log route below.
 * The prefix is below the service's own base, which may itself have a path (a mirror served at
 * `https://cdn.example/jc/`): `shardUrl` of log/shards resolves a prefix from the host's root.
 */
export function shardBase(url: string, s: ShardEntry): string {
  return serviceRoot(url) + (s.prefix === "/" ? "" : s.prefix);
}

/**
 * `GET /v1/logs`: the answer's note and operator vkey, or undefined when the service answers 404
 * (a single-shard log). Another error status is an HttpError; a transport failure a NetError.
 */
export async function fetchDirectory(
  url: string,
  opts: DirectoryOptions = {},
): Promise<{ note: string; operator_vkey?: string } | undefined> {
  const { fetch: f, operatorKey: _k, known: _n, ...net } = opts;
  const res = await request(`${serviceRoot(url)}/v1/logs`, {
    ...net,
    kind: "json",
    maxBytes: MAX_ANSWER_BYTES,
    headers: { accept: "application/json" },
    fetch: f,
  });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new HttpError(res.status, problemOf(res));
  const v = res.json() as Record<string, unknown> | null;
  if (!v || typeof v !== "object" || typeof v.note !== "string") {
    throw new DirectoryAlarm("directory-malformed", `${url}/v1/logs answers no signed note`);
  }
  const k = v.operator_vkey;
  return { note: v.note, operator_vkey: typeof k === "string" ? k : undefined };
}

/**
 * The service's directory, opened and checked, or undefined for a single-shard log (404). The
 * key: `operatorKey`, else `known`, else the answer's `operator_vkey` (first use). A service that
 * names another operator key than the one in use, or a remembered key that is not the pinned one,
 * is `operator-key-changed`; a note that does not open is its log/shards code.
 */
export async function readDirectory(
  url: string,
  opts: DirectoryOptions = {},
): Promise<ServiceDirectory | undefined> {
  const got = await fetchDirectory(url, opts);
  if (!got) return undefined;
  const key = opts.operatorKey ?? opts.known ?? got.operator_vkey;
  if (!key) {
    throw new DirectoryAlarm(
      "directory-malformed",
      `${url}/v1/logs names no operator key: pass --operator-key`,
    );
  }
  for (const [what, other] of [["remembered", opts.known], ["announced", got.operator_vkey]]) {
    if (other !== undefined && other !== key) {
      throw new DirectoryAlarm(
        "operator-key-changed",
        `Cannot trust the shard directory of ${url}: its operator key is ${key}, the ${what} one ` +
          `is ${other} (a different operator key; if the change is legitimate, forget the old ` +
          `key: docs/CLIENTS.md "Shards")`,
      );
    }
  }
  let directory: Directory;
  try {
    directory = await openDirectory(got.note, key);
  } catch (e) {
    if (e instanceof DirectoryError) throw new DirectoryAlarm(e.code, e.message);
    if (e instanceof Error && (e.name === "C2spError" || e instanceof SyntaxError)) {
      throw new DirectoryAlarm("directory-malformed", `Cannot open the directory: ${e.message}`);
    }
    throw e;
  }
  checkShardKeys(url, directory);
  return {
    url: serviceRoot(url),
    operatorVkey: key,
    note: got.note,
    directory,
    firstUse: !opts.operatorKey && !opts.known,
  };
}

/**
 * Each shard's one key (docs/SHARDS.md "Names, prefixes, keys"): both views' vkeys carry the same
 * Ed25519 key, and it is the key of the shard's `signer` (its §22.2 heads), so that whatever the
 * client checks with one of them it checks with the shard's key.
 */
export function checkShardKeys(url: string, d: Directory): void {
  for (const s of d.shards) {
    const b = c2sp.parseVkey(s.vkeys.blake3).publicKey,
      h = c2sp.parseVkey(s.vkeys.sha256).publicKey;
    if (String(b) !== String(h) || didKeyFromPublicKey(b) !== s.signer) {
      throw new DirectoryAlarm(
        "directory-bad-shard",
        `Cannot trust the shard directory of ${url}: ${s.id}'s vkeys and signer are not one key`,
      );
    }
  }
}

/** Alarms (the first violation's code) unless `next` may follow `prev` (log/shards succession). */
export function checkSuccession(url: string, prev: Directory, next: Directory): void {
  const v = directorySuccession(prev, next);
  if (v.length > 0) {
    throw new DirectoryAlarm(
      v[0].code,
      `Cannot trust the shard directory of ${url}: ${v.map((x) => x.detail).join("; ")}`,
    );
  }
}

/** The shard `id` (`sN`) of the directory; an unknown id is an Error naming the shards. */
export function shardById(d: Directory, id: string): ShardEntry {
  const s = d.shards.find((x) => x.id === id);
  if (!s) {
    throw new Error(
      `Cannot find shard ${id}: the directory lists ${d.shards.map((x) => x.id).join(", ")}`,
    );
  }
  return s;
}

/** The shard whose checkpoints carry `origin` (`<log_name>/blake3` or `/sha256`), if any. */
export function shardByOrigin(d: Directory, origin: string): ShardEntry | undefined {
  return d.shards.find((s) =>
    origin === `${s.log_name}/blake3` || origin === `${s.log_name}/sha256`
  );
}

export { activeShard };
