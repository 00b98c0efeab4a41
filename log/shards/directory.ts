// The signed shard directory (docs/SHARDS.md): a log is a sequence of shards, each with its own
// name (origins `<log_name>/blake3`, `<log_name>/sha256`), key and tree; `GET /v1/logs` publishes
// the list as a C2SP signed note (signed-note) under the operator key. This module is the one
// definition of the note's text, its validation and the succession rules a monitor enforces
// between two directories it saw. Pure: web APIs only (Deno, Node 20, workerd, browsers).
import { CodedError } from "../../net/mod.ts";
import { didKeyFromPublicKey } from "../crypto.ts";
import {
  C2spError,
  ed25519NoteSigner,
  encodeVkey,
  isKeyName,
  openNote,
  parseVkey,
  SIG_ED25519,
  signNote,
  verifierFromVkey,
} from "../c2sp/mod.ts";

/** First line of every directory note (docs/SHARDS.md "The directory"). */
export const DIRECTORY_HEADER = "jouleclaw/log-directory/v1";
/** Most shards a directory may list (a reader's bound; at one shard a month, 300 years). */
export const MAX_SHARDS = 4096;
/** Most bytes of a directory note a reader accepts. */
export const MAX_DIRECTORY_BYTES = 4 << 20;

/** A shard's lifecycle state: `active` takes appends; `frozen` is final and read-only forever. */
export type ShardState = "active" | "frozen";

/** One shard of the directory, in the order of the JSON object's keys. */
export interface ShardEntry {
  /** `s<n>`: n counts shards from 0, in creation order. */
  id: string;
  /** The shard's log name; its checkpoints' origins are `<log_name>/blake3` and `/sha256`. */
  log_name: string;
  /** Path of the shard's base under the service: `/` for the first shard, else `/shards/<id>`. */
  prefix: string;
  state: ShardState;
  /** did:key of the shard's log key (the §22.2 tree heads' signer). */
  signer: string;
  /** C2SP vkeys of the shard's two checkpoint views. */
  vkeys: { blake3: string; sha256: string };
  /** RFC 3339 UTC time of the first and last entry; null while the shard is empty. */
  first_time: string | null;
  last_time: string | null;
  /** Tree size: final for a frozen shard, as of `issued` for the active one. */
  size: number;
  /** A frozen shard's final roots (base64), the roots of its final checkpoints; absent when active. */
  root?: { blake3: string; sha256: string };
}

/** The directory: the operator key's name, the time it was issued, every shard in order. */
export interface Directory {
  operator: string;
  issued: string;
  shards: ShardEntry[];
}

/** A directory refused: `code` is stable (docs/SHARDS.md "Codes"). */
export class DirectoryError extends CodedError {
  constructor(code: string, message: string) {
    super(code, message, "internal");
    this.name = "DirectoryError";
  }
}

const bad = (code: string, why: string): never => {
  throw new DirectoryError(code, `Cannot accept the shard directory: ${why}`);
};

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const BASE64_32 = /^[A-Za-z0-9+/]{43}=$/;
/** An RFC 3339 UTC time that names a real instant (not 2026-02-30T25:00:00Z). */
const isUtcTime = (v: unknown): v is string => {
  if (typeof v !== "string" || !RFC3339_UTC.test(v)) return false;
  const t = Date.parse(v);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 19) === v.slice(0, 19);
};

/** `s<n>` for shard number n. */
export function shardId(n: number): string {
  return `s${n}`;
}

/** The path prefix of shard number n: the first shard is the service root (its URLs never move). */
export function shardPrefix(n: number): string {
  return n === 0 ? "/" : `/shards/${shardId(n)}`;
}

/** The log name of shard number n under the operator's base name: the first shard keeps it. */
export function shardLogName(base: string, n: number): string {
  return n === 0 ? base : `${base}/${shardId(n)}`;
}

/** The URL of a path below a shard's base: `shardUrl(base, "/shards/s1", "/v1/log/entries")`. */
export function shardUrl(service: string | URL, prefix: string, path: string): URL {
  const root = new URL(service);
  const p = prefix === "/" ? "" : prefix;
  // relative to the service's base (a service below a path keeps it)
  const rel = `${p}${path}`.replace(/^\/+/, "");
  return new URL(rel, root.origin + root.pathname.replace(/\/$/, "") + "/");
}

/** A copy of `e` with its keys in the published order (the note's JSON is deterministic). */
function ordered(e: ShardEntry): ShardEntry {
  const o: ShardEntry = {
    id: e.id,
    log_name: e.log_name,
    prefix: e.prefix,
    state: e.state,
    signer: e.signer,
    vkeys: { blake3: e.vkeys.blake3, sha256: e.vkeys.sha256 },
    first_time: e.first_time,
    last_time: e.last_time,
    size: e.size,
  };
  if (e.root) o.root = { blake3: e.root.blake3, sha256: e.root.sha256 };
  return o;
}

/** The note text: the header line, then the directory as one line of JSON. */
export function formatDirectory(d: Directory): string {
  checkDirectory(d);
  const body = { operator: d.operator, issued: d.issued, shards: d.shards.map(ordered) };
  return `${DIRECTORY_HEADER}\n${JSON.stringify(body)}\n`;
}

/** The directory signed by the operator key (an Ed25519 signed note named `operator`). */
export function signDirectory(d: Directory, operatorSecret32: Uint8Array): string {
  return signNote(formatDirectory(d), [ed25519NoteSigner(d.operator, operatorSecret32)]);
}

/** The operator key's vkey. */
export function operatorVkey(name: string, publicKey: Uint8Array): string {
  return encodeVkey(name, SIG_ED25519, publicKey);
}

/**
 * Opens a directory note under the operator's vkey: the signature (signed-note: a failing or
 * missing one rejects the note), the header, the JSON, then every rule of `checkDirectory`.
 * Codes: `directory-too-large`, `directory-malformed`, the note's own (`note-unverified`,
 * `note-bad-signature`, …) and `checkDirectory`'s.
 */
export async function openDirectory(note: string, operator: string): Promise<Directory> {
  if (typeof note !== "string" || note.length > MAX_DIRECTORY_BYTES) {
    bad("directory-too-large", `more than ${MAX_DIRECTORY_BYTES} bytes`);
  }
  const vk = parseVkey(operator);
  let text: string;
  try {
    ({ text } = await openNote(note, [verifierFromVkey(vk)], {
      maxBytes: MAX_DIRECTORY_BYTES,
      maxSignatures: 16,
    }));
  } catch (e) {
    if (e instanceof C2spError) throw new DirectoryError(e.code, e.message);
    throw e;
  }
  const lines = text.split("\n");
  if (lines.length !== 3 || lines[0] !== DIRECTORY_HEADER || lines[2] !== "") {
    bad("directory-malformed", `not "${DIRECTORY_HEADER}" and one line of JSON`);
  }
  let d: unknown;
  try {
    d = JSON.parse(lines[1]);
  } catch {
    bad("directory-malformed", "the second line is not JSON");
  }
  checkDirectory(d);
  if ((d as Directory).operator !== vk.name) {
    bad("directory-wrong-operator", `signed by ${vk.name}, names ${(d as Directory).operator}`);
  }
  return d as Directory;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The rules every directory keeps (docs/SHARDS.md "Rules"): shards `s0`, `s1`, … in order, their
 * prefixes and names derived from the first shard's name, unique keys, exactly one active shard
 * and it is the last, a frozen shard carries its final roots, times are RFC 3339 UTC and ordered.
 */
export function checkDirectory(d: unknown): asserts d is Directory {
  if (!isObj(d)) bad("directory-malformed", "not a JSON object");
  const { operator, issued, shards } = d as Record<string, unknown>;
  if (typeof operator !== "string" || !isKeyName(operator)) {
    bad("directory-malformed", "operator is not a key name");
  }
  if (!isUtcTime(issued)) {
    bad("directory-malformed", "issued is not an RFC 3339 UTC time");
  }
  if (!Array.isArray(shards) || shards.length === 0 || shards.length > MAX_SHARDS) {
    bad("directory-malformed", `shards is not a list of 1 to ${MAX_SHARDS}`);
  }
  const list = shards as unknown[];
  const base = isObj(list[0]) ? list[0].log_name : undefined;
  if (typeof base !== "string") bad("directory-malformed", "the first shard has no log_name");
  // the operator key is named after the first shard's log (docs/SHARDS.md "The directory")
  if (operator !== base) bad("directory-wrong-operator", `operator ${operator} is not ${base}`);
  const keys = new Set<string>();
  list.forEach((s, n) => {
    const where = `shard ${n}`;
    if (!isObj(s)) bad("directory-malformed", `${where} is not an object`);
    const e = s as Record<string, unknown>;
    if (e.id !== shardId(n)) bad("directory-bad-shard", `${where} is not ${shardId(n)}`);
    if (e.prefix !== shardPrefix(n)) bad("directory-bad-shard", `${where}'s prefix`);
    if (e.log_name !== shardLogName(base as string, n) || !isKeyName(`${e.log_name}/blake3`)) {
      bad("directory-bad-shard", `${where}'s log_name is not ${shardLogName(base as string, n)}`);
    }
    if (e.state !== "active" && e.state !== "frozen") {
      bad("directory-bad-shard", `${where}'s state`);
    }
    const last = n === list.length - 1;
    if ((e.state === "active") !== last) {
      bad("directory-bad-state", "exactly the last shard is active");
    }
    if (typeof e.signer !== "string" || !e.signer.startsWith("did:key:z")) {
      bad("directory-bad-shard", `${where}'s signer is not a did:key`);
    }
    if (!isObj(e.vkeys)) bad("directory-bad-shard", `${where} has no vkeys`);
    const vkeys = e.vkeys as Record<string, unknown>;
    let shardKey = "";
    for (const view of ["blake3", "sha256"] as const) {
      let k;
      try {
        k = parseVkey(vkeys[view] as string);
      } catch {
        bad("directory-bad-shard", `${where}'s ${view} vkey`);
      }
      if (k!.name !== `${e.log_name}/${view}` || k!.type !== SIG_ED25519) {
        bad("directory-bad-shard", `${where}'s ${view} vkey is not ${e.log_name}/${view}`);
      }
      const pub = Array.from(k!.publicKey).join(",");
      if (view === "blake3") {
        if (keys.has(pub)) {
          bad("directory-bad-shard", `${where} reuses a key (a new key is a new shard)`);
        }
        keys.add(pub);
        shardKey = pub;
        // the signer of its §22.2 heads is the key of its checkpoints
        if (e.signer !== didKeyFromPublicKey(k!.publicKey)) {
          bad("directory-bad-shard", `${where}'s signer is not the did:key of its vkeys`);
        }
      } else if (pub !== shardKey) {
        bad("directory-bad-shard", `${where}'s two views are under two keys (one key a shard)`);
      }
    }
    if (!Number.isSafeInteger(e.size) || (e.size as number) < 0) {
      bad("directory-bad-shard", `${where}'s size`);
    }
    for (const t of ["first_time", "last_time"] as const) {
      const v = e[t];
      if (v === null ? e.size !== 0 : e.size === 0 || !isUtcTime(v)) {
        bad("directory-bad-shard", `${where}'s ${t} (null exactly while empty)`);
      }
    }
    if (e.size !== 0 && Date.parse(e.first_time as string) > Date.parse(e.last_time as string)) {
      bad("directory-bad-shard", `${where}'s first_time is after its last_time`);
    }
    if (e.state === "frozen") {
      const r = e.root;
      if (!isObj(r) || !BASE64_32.test(String(r.blake3)) || !BASE64_32.test(String(r.sha256))) {
        bad("directory-bad-shard", `${where} is frozen without its final roots`);
      }
    } else if (e.root !== undefined) {
      bad("directory-bad-shard", `${where} is active with final roots`);
    }
  });
}

/** The active shard (the last). */
export function activeShard(d: Directory): ShardEntry {
  return d.shards[d.shards.length - 1];
}

/**
 * What a monitor checks between a directory it saw before (`prev`) and a newer one (docs/SHARDS.md
 * "Succession"): never issued earlier, no shard removed or changed in name, prefix, signer or
 * keys, a frozen shard never changes again, an active shard's size never shrinks, new shards only
 * after the last. Answers the violations found ([] when none), each a stable code and a sentence.
 */
export function directorySuccession(
  prev: Directory,
  next: Directory,
): { code: string; detail: string }[] {
  const out: { code: string; detail: string }[] = [];
  if (Date.parse(next.issued) < Date.parse(prev.issued)) {
    out.push({ code: "directory-rollback", detail: `issued ${next.issued} before ${prev.issued}` });
  }
  if (next.operator !== prev.operator) {
    out.push({ code: "directory-operator-changed", detail: `${prev.operator} → ${next.operator}` });
  }
  if (next.shards.length < prev.shards.length) {
    out.push({
      code: "directory-shard-removed",
      detail: `${prev.shards.length} shards before, ${next.shards.length} now`,
    });
  }
  prev.shards.forEach((p, n) => {
    const q = next.shards[n];
    if (!q) return;
    if (
      q.log_name !== p.log_name || q.prefix !== p.prefix || q.signer !== p.signer ||
      q.vkeys.blake3 !== p.vkeys.blake3 || q.vkeys.sha256 !== p.vkeys.sha256
    ) {
      out.push({
        code: "directory-shard-changed",
        detail: `${p.id}'s name, prefix or keys changed`,
      });
    }
    if (p.state === "frozen") {
      if (
        q.state !== "frozen" || q.size !== p.size || q.root?.blake3 !== p.root?.blake3 ||
        q.root?.sha256 !== p.root?.sha256 || q.last_time !== p.last_time
      ) {
        out.push({ code: "directory-frozen-changed", detail: `frozen ${p.id} changed` });
      }
    } else if (q.size < p.size) {
      out.push({ code: "directory-shrunk", detail: `${p.id}: size ${p.size} → ${q.size}` });
    }
  });
  return out;
}
