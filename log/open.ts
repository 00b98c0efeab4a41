// Opening a log over a store (ARCHITECTURE "Storage and sequencing"): the log's name bound to the
// store, the store proved against its signed head (log/recover.ts) and migrated when older
// (log/migrations.ts), checked against the signed-head pin (log/pin.ts; issue 27), the empty
// tree's head published on first open, then the sequencer started. Pure: storage is injected, so
// this runs in Deno, Node and workerd alike.
import { blake3Hasher, sha256Hasher } from "./hasher.ts";
import { didKeyFromPublicKey, ed25519PublicKey, ed25519Sign, envelopeContentId } from "./crypto.ts";
import { treeHeadBytes } from "./head.ts";
import { LogInputError } from "./errors.ts";
import { checkStoreAgainstPin, pinOf, PinWriter } from "./pin.ts";
import type { LogStorage, StoredHead } from "./storage.ts";
import { TreeEdge } from "./edge.ts";
import { isKeyName } from "./c2sp/mod.ts";
import { defaultLogName, type Log, type LogOptions } from "./log.ts";
import { backfillContentIndex, recoverMigrated } from "./migrations.ts";
import { Sequencer, type SequencerStart } from "./sequencer.ts";
import { tileCacheTiles } from "./log.ts";
import { StoreNodes } from "./store_source.ts";
import { EmbeddedLog } from "./embedded.ts";
import { StreamBackfill } from "./streams_backfill.ts";
import { CLOSED_SKEW_MS, entryFacts } from "./streams/mod.ts";

const h = blake3Hasher;

/**
 * Opens a log over a store: proves the store's latest head against its nodes and entries
 * (refusing with `LogIntegrityError` otherwise), publishes the empty tree's head on first open,
 * and starts the sequencer.
 *
 * @example
 * ```ts
 * const log = await openLog(createMemoryStore(), { secretKey });
 * const { index, inclusion_proof } = await log.append(bytes);
 * ```
 */
export async function openLog(s: LogStorage, o: LogOptions): Promise<Log> {
  if (!(o.secretKey instanceof Uint8Array) || o.secretKey.length !== 32) {
    throw new RangeError("Cannot open log: the log key must be a 32-byte Ed25519 secret");
  }
  const pub = ed25519PublicKey(o.secretKey);
  const pinned = o.pin ? await o.pin.read() : undefined;
  const caps = s.capabilities(); // read once; the parts that use an extension get it from here
  const name = await bindLogName(s, o.logName, pub);
  const r = await recoverMigrated(s, caps.viewMigration, pub);
  const pin = o.pin && new PinWriter(o.pin, pinned);
  if (pinned) {
    // the store reaches its pin with the same roots, or the log does not open (issue 27)
    const at = r
      ? (pinned.size <= r.head.size ? await s.head(pinned.size) : undefined)
      : { size: 0, root: h.empty(), sha256Root: sha256Hasher.empty(), timestamp: 0 } as StoredHead;
    checkStoreAgainstPin(pinned, o.pin!, r?.head ?? (pinned.size === 0 ? at : undefined), at);
  }
  let start: SequencerStart;
  if (r) {
    await backfillContentIndex(s, caps.contentIndex, o, r.head.size);
    start = { head: r.head, edges: [r.edge, r.sha256Edge] };
  } else {
    const now = Math.floor((o.now ?? Date.now)());
    const root = h.empty(); // RFC 6962 §2.1: the empty tree's hash, BLAKE3("") (SPEC §22.1)
    const head = {
      size: 0,
      root,
      timestamp: now,
      signature: ed25519Sign(treeHeadBytes(0, root, now), o.secretKey),
      sha256Root: sha256Hasher.empty(),
    };
    await s.commitBatch({ entries: [], tiles: [], sha256Tiles: [], head });
    start = { head, edges: [TreeEdge.empty(h), TreeEdge.empty(sha256Hasher)] };
  }
  const nodes = new StoreNodes(s, tileCacheTiles(o));
  const contentId = caps.contentIndex && o.contentId !== null
    ? o.contentId ?? envelopeContentId
    : undefined;
  const seq = new Sequencer(
    s,
    nodes,
    o,
    start,
    { name, publicKey: pub, signer: didKeyFromPublicKey(pub) },
    contentId,
    caps,
    pin,
  );
  const release = o.pin?.close && (() => o.pin!.close!());
  const log = new EmbeddedLog(s, caps, seq, nodes, { publicKey: pub, logName: name }, release);
  await pin?.advance(pinOf(start.head)); // before anything is served
  if (caps.streamIndex && o.streamFacts !== null) {
    // entries logged before the checks (or while they were off): checked once, off the request
    // path, while the log serves (docs/STREAMS.md "Backfill")
    const facts = o.streamFacts ?? entryFacts;
    log.streamBackfill = new StreamBackfill(
      s,
      caps.streamIndex,
      facts,
      o.closedSkewMs ?? CLOSED_SKEW_MS,
    );
  }
  return log;
}

/**
 * The log's name: the configured one (checked, and bound to the store on first open), else the
 * store's, else the default. A configured name other than the store's is refused.
 */
async function bindLogName(
  s: LogStorage,
  configured: string | undefined,
  pub: Uint8Array,
): Promise<string> {
  if (configured !== undefined && !isKeyName(`${configured}/blake3`)) {
    throw new LogInputError(
      "bad-log-name",
      `Cannot open log: log name ${JSON.stringify(configured)} is empty or has a space or '+'` +
        " (signed-note key names)",
    );
  }
  const stored = await s.logName();
  if (stored !== undefined && configured !== undefined && stored !== configured) {
    throw new LogInputError(
      "log-name-changed",
      `Cannot open log: it is named ${stored}, the configuration says ${configured}; a log's ` +
        "name is fixed for the life of its data (its checkpoints' origins and vkeys depend on " +
        `it): set log_name / JC_LOG_NAME to ${stored}, or remove it`,
    );
  }
  const name = stored ?? configured ?? defaultLogName(pub);
  if (stored === undefined) await s.setLogName(name);
  return name;
}
