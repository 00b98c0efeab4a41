/// <reference lib="dom" />
// The page follows the log's shard directory (docs/SHARDS.md, docs/CLIENTS.md "Shards"): it reads
// `GET /v1/logs`, opens it under the operator key pinned in this browser on first use (a different
// key served later is a security warning, and nothing is checked against it), and finds the shard that
// holds the receipt (newest first). Each shard's key then comes from the signed directory. A
// service that answers 404 has no shards: the page checks its one log as before.
import { openDirectory, type ShardEntry } from "../../log/shards/mod.ts";
import { request } from "../../net/mod.ts";
import { getJson } from "./net.ts";

const OP_KEY = "jc.operator-key";

/** Where the receipt is (or, when no shard holds it, the active shard). */
export interface ShardFound {
  shard: ShardEntry;
  /** The URL path prefix of the shard's log routes: "" for s0, `/shards/sN` otherwise. */
  base: string;
  /** The index the shard's service names for the leaf (undefined: in no shard). */
  index?: number;
  /** The operator key used, and whether it was pinned on this visit. */
  operatorVkey: string;
  firstUse: boolean;
  count: number;
}

/** The service names another operator key than the one this browser pinned: nothing is trusted. */
export class OperatorKeyChanged extends Error {
  constructor(readonly before: string, readonly now: string) {
    super("the log operator's key changed (operator-key-changed)");
    this.name = "OperatorKeyChanged";
  }
}

/** The shard holding `leafHash`, or undefined when the service publishes no directory (404). */
export async function findShard(
  leafHash: string,
  store: Storage | undefined,
): Promise<ShardFound | undefined> {
  const res = await request(new URL("/v1/logs", location.href), {
    kind: "json",
    maxBytes: 9 * 1024 * 1024,
    headers: { accept: "application/json" },
  });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GET /v1/logs: HTTP ${res.status}`);
  const v = res.json() as { operator_vkey?: unknown; note?: unknown };
  if (typeof v?.note !== "string" || typeof v.operator_vkey !== "string") {
    throw new Error("the shard directory is not a signed note with its operator key");
  }
  const pinned = store?.getItem(OP_KEY) ?? undefined;
  if (pinned && pinned !== v.operator_vkey) throw new OperatorKeyChanged(pinned, v.operator_vkey);
  const key = v.operator_vkey;
  const d = await openDirectory(v.note, key);
  if (!pinned) store?.setItem(OP_KEY, key); // pinned once the note opened under it
  const base = (s: ShardEntry) => (s.prefix === "/" ? "" : s.prefix);
  const common = {
    operatorVkey: key,
    firstUse: !pinned,
    count: d.shards.length,
  };
  for (const s of d.shards.slice().reverse()) {
    const found = await getJson<{ index: number }>(`${base(s)}/v1/log/leaves/${leafHash}`)
      .catch(() => undefined);
    if (found) return { shard: s, base: base(s), index: found.index, ...common };
  }
  const active = d.shards[d.shards.length - 1];
  return { shard: active, base: base(active), ...common };
}
