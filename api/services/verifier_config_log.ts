// The configuration in force, logged (issue 23; docs/DECISIONS.md "The configuration in force"):
// at start the service's verifier-config/1 document (verify/verifier_config.ts) is appended to
// the log taking appends when its rules differ from the last one logged there, so every change of
// the rules is itself an entry. The documents of a log form a chain (each names the previous
// one's digest and index), whose head is kept as a chain head of the store (log/agent_heads.ts,
// under CONFIG_CHAIN), written in the commit of the entry: found in one read at any log size, on
// both deployments. An entry is judged under the latest configuration entry before it in its own
// log (derived, never stored per entry). Platform-neutral.
import type { AgentLink, Log } from "../../log/mod.ts";
import {
  blake3,
  didKeyFromPublicKey,
  ed25519PublicKey,
  openVerifierConfig,
  sameRules,
  sealVerifierConfig,
  toHex,
  verifierConfigCoreOf,
  type VerifierConfigDoc,
  type VerifierConfigRules,
  verifierConfigRules,
  type VerifierOptions,
} from "../../verify/mod.ts";
import { readingLink } from "../http/reading_link.ts";
import { ConfigError, type ServiceConfig } from "./config.ts";
import type { ListedShard } from "./shard_logs.ts";
import { ApiError } from "../http/errors.ts";

/**
 * The chain-head key of the configuration documents: not a did:key, so no meter agent (always
 * keyed by its did:key, docs/CONFIG.md `agents`) can ever share it.
 */
export const CONFIG_CHAIN = "jc:verifier-config";

/** The largest configuration envelope: one log entry (ARCHITECTURE Decision 5). */
export const MAX_CONFIG_BYTES = 65_535;

/** How an answer names a configuration: BLAKE3 of its envelope's bytes, its log index. */
export interface VerifierConfigRef {
  digest: string;
  index: number;
}

/** The configuration in force: logged (`ref`), or the embedded defaults (`ref` null). */
export type InForce =
  | { ref: VerifierConfigRef; doc: VerifierConfigDoc }
  | { ref: null; doc: VerifierConfigRules };

/** The rules of a service running the embedded defaults (docs/CONFIG.md). */
export function defaultRules(operator: string): VerifierConfigRules {
  return verifierConfigRules({}, { operator, appends: "open", stewards: [] });
}

/** The tag's key, text-encoded as CBOR (0x69 "jc_config"): in every configuration's core. */
const TAG_BYTES = new Uint8Array([0x69, ...new TextEncoder().encode("jc_config")]);

/** Whether `bytes` contains `pat`. */
function contains(bytes: Uint8Array, pat: Uint8Array): boolean {
  const last = bytes.length - pat.length;
  outer: for (
    let i = bytes.indexOf(pat[0]);
    i >= 0 && i <= last;
    i = bytes.indexOf(pat[0], i + 1)
  ) {
    for (let j = 1; j < pat.length; j++) if (bytes[i + j] !== pat[j]) continue outer;
    return true;
  }
  return false;
}

/** The chain link a configuration entry makes (its seq; prev = BLAKE3 of the envelope). */
export function configLink(entry: Uint8Array): AgentLink | undefined {
  // the fold's hot path: most entries are not configurations, and need no parse to tell
  if (!contains(entry, TAG_BYTES)) return undefined;
  const core = verifierConfigCoreOf(entry);
  const seq = core?.get("seq");
  if (typeof seq !== "number" || !Number.isSafeInteger(seq)) return undefined;
  return { did: CONFIG_CHAIN, seq, prev: blake3(entry) };
}

/** The chain link of any entry: a meter reading's or a configuration's (the fold of old stores). */
export function entryLink(entry: Uint8Array): AgentLink | undefined {
  return readingLink(entry) ?? configLink(entry);
}

/** Where the head of a log's configuration chain is published (undefined: none is). */
export type ConfigHeadOf = (log: Log) => Promise<VerifierConfigRef | undefined>;

/** Thrown at start for a configuration that cannot be published; `code` is stable. */
export class VerifierConfigError extends ConfigError {
  constructor(code: string, message: string) {
    super(`${message} (${code})`, code);
  }
}

/** The configuration documents of one log, the one in force last. */
export class VerifierConfigLedger {
  /** Every configuration entry of the log, ascending by index. */
  readonly #chain: { ref: VerifierConfigRef; doc: VerifierConfigDoc }[];

  private constructor(
    chain: { ref: VerifierConfigRef; doc: VerifierConfigDoc }[],
  ) {
    this.#chain = chain;
  }

  /**
   * Reads the log's configuration chain; with `publish`, appends the service's document first
   * when its rules differ from the last one logged (or none is). `headOf`: where a reader finds
   * the chain's head instead of the store's chain heads (the Worker's apps: R2, never a Durable
   * Object). Throws VerifierConfigError.
   */
  static async open(
    log: Log,
    publish?: PreparedConfig,
    headOf?: ConfigHeadOf,
  ): Promise<VerifierConfigLedger> {
    let at: VerifierConfigRef | undefined;
    if (headOf) at = await headOf(log);
    else if (!log.agentHead) return new VerifierConfigLedger([]);
    else {
      const head = await log.agentHead(CONFIG_CHAIN, entryLink);
      at = head && { digest: toHex(head.prev), index: head.index };
    }
    const chain: { ref: VerifierConfigRef; doc: VerifierConfigDoc }[] = [];
    // walk the chain back from its head: one read per configuration ever logged
    while (at) {
      const bytes = await log.entry(at.index);
      if (!bytes || toHex(blake3(bytes)) !== at.digest) {
        throw new VerifierConfigError(
          "verifier-config-chain-broken",
          `Cannot read the logged verifier configuration: entry ${at.index} is not the one its ` +
            `chain names (${at.digest})`,
        );
      }
      const doc = openVerifierConfig(bytes);
      chain.unshift({ ref: at, doc });
      at = doc.previous;
    }
    const last = chain.at(-1);
    // A log holding no configuration entry was judged under the embedded defaults (did:key
    // signers only, no gateways, no reference vectors, no policies, open appends): they are
    // logged only once the rules first differ from them (docs/DECISIONS.md).
    const ledger = new VerifierConfigLedger(chain);
    if (!publish) return ledger;
    if (
      sameRules(
        last?.doc ?? defaultRules(publish.rules.operator),
        publish.rules,
      )
    ) return ledger;
    const doc: VerifierConfigDoc = {
      jc_config: "verifier-config/1",
      seq: (last?.doc.seq ?? 0) + 1,
      ...(last ? { previous: last.ref } : {}),
      ...publish.rules,
    };
    const envelope = publish.seal(doc);
    if (envelope.length > MAX_CONFIG_BYTES) {
      throw new VerifierConfigError(
        "verifier-config-too-large",
        `Cannot load config: the verifier configuration (key_directory, gateway_keys, ` +
          `reference_vectors, policies) seals to ${envelope.length} bytes, over one log entry ` +
          `(${MAX_CONFIG_BYTES})`,
      );
    }
    const res = await log.append(envelope, configLink(envelope));
    // as read back from the log (its signature checked, its members in canonical order)
    chain.push({
      ref: { digest: toHex(blake3(envelope)), index: res.index },
      doc: openVerifierConfig(envelope),
    });
    return ledger;
  }

  /** The last configuration logged, or undefined when the log holds none. */
  last(): { ref: VerifierConfigRef; doc: VerifierConfigDoc } | undefined {
    return this.#chain.at(-1);
  }

  /** Every configuration entry of the log, ascending by index. */
  chain(): readonly { ref: VerifierConfigRef; doc: VerifierConfigDoc }[] {
    return this.#chain;
  }
}

/**
 * Checks at start, before anything is served, that the configuration fits one log entry at any
 * place in its chain (the largest seq and previous index). Throws VerifierConfigError.
 */
export function assertConfigFits(
  rules: VerifierConfigRules,
  seal: (d: VerifierConfigDoc) => Uint8Array,
) {
  const worst: VerifierConfigDoc = {
    jc_config: "verifier-config/1",
    seq: Number.MAX_SAFE_INTEGER,
    previous: { digest: "ff".repeat(32), index: Number.MAX_SAFE_INTEGER },
    ...rules,
  };
  const size = seal(worst).length;
  if (size > MAX_CONFIG_BYTES) {
    throw new VerifierConfigError(
      "verifier-config-too-large",
      `Cannot load config: the verifier configuration (key_directory, gateway_keys, ` +
        `reference_vectors, policies) seals to ${size} bytes, over one log entry ` +
        `(${MAX_CONFIG_BYTES})`,
    );
  }
}

/** The operator key's did:key (a configuration's `operator`, its envelope's kid). */
export function operatorDid(operatorSecret: Uint8Array): string {
  return didKeyFromPublicKey(ed25519PublicKey(operatorSecret));
}

/** The rules of this service's configuration as published (docs/CONFIG.md). */
export function serviceConfigRules(
  config: ServiceConfig,
  verifier: VerifierOptions,
  operatorSecret: Uint8Array,
): VerifierConfigRules {
  return verifierConfigRules(verifier, {
    operator: operatorDid(operatorSecret),
    appends: config.appends,
    stewards: config.stewards,
  });
}

/** Runs `f` with the operator key's secret (which stays with its holder: the shard set). */
export type WithOperatorKey = <T>(f: (secret: Uint8Array) => T) => T;

/** What publishing needs: the rules, and how the operator key seals a document. */
export interface PreparedConfig {
  rules: VerifierConfigRules;
  seal: (doc: VerifierConfigDoc) => Uint8Array;
}

/** The service's document, checked to fit a log entry (sync: at start, before serving). */
export function prepareVerifierConfig(
  config: ServiceConfig,
  verifier: VerifierOptions,
  withOperatorKey: WithOperatorKey,
): PreparedConfig {
  const rules = withOperatorKey((secret) => serviceConfigRules(config, verifier, secret));
  const seal = (doc: VerifierConfigDoc) =>
    withOperatorKey((secret) => sealVerifierConfig(doc, secret));
  assertConfigFits(rules, seal);
  return { rules, seal };
}

/** Opens (and publishes to) `log`'s configuration chain under the operator key. */
export function publishVerifierConfig(
  log: Log,
  config: ServiceConfig,
  verifier: VerifierOptions,
  withOperatorKey: WithOperatorKey,
): Promise<VerifierConfigLedger> {
  return VerifierConfigLedger.open(log, prepareVerifierConfig(config, verifier, withOperatorKey));
}

/** A configuration as answers name it: in a shard other than s0, that shard and its prefix. */
export interface ShardedConfigRef extends VerifierConfigRef {
  shard?: string;
  /** the shard's prefix (`/shards/s1`), for the entry's IRI; absent for s0 */
  prefix?: string;
}

/** What the routes ask (AppServices.verifierConfig): the same on both deployments. */
export interface VerifierConfigSource {
  /** The configuration in force: `{digest, index}` (null: the defaults) and the document. */
  inForce(): Promise<
    { ref: ShardedConfigRef; doc: VerifierConfigDoc } | { ref: null; doc: VerifierConfigRules }
  >;
  /**
   * The configurations `log`'s entries were judged under, resolved once (an export, a SPARQL
   * load, an entry view): ascending by `from`.
   */
  segments(log: Log): Promise<JudgedSegment[]>;
}

/**
 * Entries `from` .. (the next segment's `from`) - 1 of a log were judged under `ref` and its
 * document: an entry is judged under the latest configuration entry before it in its own log
 * (so the configuration entry at index k governs from k + 1), else the last one of the shards
 * before; `ref` undefined: none is logged (the service's own options decide).
 */
export interface JudgedSegment {
  from: number;
  ref?: ShardedConfigRef;
  doc?: VerifierConfigRules;
}

/**
 * The configurations of a service: the one in force is the last logged in the newest shard that
 * holds one (the shard taking appends, unless a rotation made it since the start: a shard made by
 * a rotation holds none until the next start, docs/DECISIONS.md), else the defaults. An entry is
 * judged under the latest configuration entry before it in its shard, else the last one of the
 * shards before it. Each shard's chain is read once and kept: the rules change only at a start
 * (a deployment on the edge), before anything is answered.
 */
export class VerifierConfigs implements VerifierConfigSource {
  readonly #shards: () => Promise<ListedShard[]>;
  readonly #defaults: VerifierConfigRules;
  readonly #ledgers = new Map<Log, Promise<VerifierConfigLedger>>();
  readonly #headOf: ConfigHeadOf | undefined;

  /**
   * `shards`: the listed shards, s0 first; `seed`: a log's ledger being published (at start):
   * everything that asks waits for it, and a publication that failed is never replaced by a
   * read of the older chain (the service would name rules it no longer runs): it is answered
   * 503 `verifier-config-unavailable` until a restart.
   */
  constructor(o: {
    shards: () => Promise<ListedShard[]>;
    defaults: VerifierConfigRules;
    seed?: { log: Log; ledger: Promise<VerifierConfigLedger> };
    headOf?: ConfigHeadOf;
  }) {
    this.#headOf = o.headOf;
    this.#shards = o.shards;
    this.#defaults = o.defaults;
    if (o.seed) {
      const failed = (e: unknown): never => {
        throw new ApiError(
          "verifier-config-unavailable",
          `Cannot name the verifier configuration: it could not be logged at start ` +
            `(${(e as Error).message})`,
        );
      };
      const seeded = o.seed.ledger.catch(failed);
      seeded.catch(() => {}); // answered to whoever asks; never an unhandled rejection
      this.#ledgers.set(o.seed.log, seeded);
    }
  }

  /** A log's chain through its store's chain heads (on the edge: its sequencer), kept. */
  #ledger(log: Log): Promise<VerifierConfigLedger> {
    let l = this.#ledgers.get(log);
    if (!l) {
      l = VerifierConfigLedger.open(log);
      this.#ledgers.set(log, l);
      l.catch(() => this.#ledgers.delete(log)); // read again next time
    }
    return l;
  }

  /**
   * A log's chain for a reader: with `headOf` (the Worker), from the head it publishes, read
   * each time and walked again only when it moved (a deployment's sequencer may log one after
   * this isolate first read); else as `#ledger`.
   */
  async #read(log: Log): Promise<VerifierConfigLedger> {
    if (!this.#headOf) return await this.#ledger(log);
    const head = await this.#headOf(log);
    const key = head ? `${head.digest}@${head.index}` : "";
    const known = this.#byHead.get(log);
    if (known?.key === key) return await known.ledger;
    const ledger = VerifierConfigLedger.open(log, undefined, () => Promise.resolve(head));
    this.#byHead.set(log, { key, ledger });
    ledger.catch(() => this.#byHead.delete(log));
    return await ledger;
  }
  readonly #byHead = new Map<Log, { key: string; ledger: Promise<VerifierConfigLedger> }>();

  /** The last configuration of the shards before position `n` (newest first). */
  async #lastBefore(shards: ListedShard[], n: number) {
    for (let k = n - 1; k >= 0; k--) {
      const last = (await this.#read(shards[k].log)).last();
      if (last) return { ...last, ref: named(last.ref, shards[k]) };
    }
    return undefined;
  }

  async inForce(): Promise<
    { ref: ShardedConfigRef; doc: VerifierConfigDoc } | { ref: null; doc: VerifierConfigRules }
  > {
    const shards = await this.#shards();
    // the shard taking appends through its own store (the edge: its sequencer, which logs the
    // configuration when it opens, before answering): never a head published before that
    const active = shards.at(-1);
    const last = active && (await this.#ledger(active.log)).last();
    if (active && last) return { ...last, ref: named(last.ref, active) };
    return (await this.#lastBefore(shards, shards.length - 1)) ??
      { ref: null, doc: this.#defaults };
  }

  async segments(log: Log): Promise<JudgedSegment[]> {
    const shards = await this.#shards();
    const n = shards.findIndex((s) => s.log === log);
    const before = n >= 0 ? await this.#lastBefore(shards, n) : undefined;
    const out: JudgedSegment[] = [{ from: 0, ref: before?.ref, doc: before?.doc }];
    for (const c of (await this.#read(log)).chain()) {
      out.push({
        from: c.ref.index + 1,
        ref: n >= 0 ? named(c.ref, shards[n]) : c.ref,
        doc: c.doc,
      });
    }
    return out;
  }
}

function named(ref: VerifierConfigRef, s: ListedShard): ShardedConfigRef {
  return s.id === "s0" ? ref : { ...ref, shard: s.id, prefix: s.prefix };
}
