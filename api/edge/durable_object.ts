// The log's sequencer as a Cloudflare Durable Object (docs/EDGE.md; ARCHITECTURE "Storage and
// sequencing"). One object (named "log") per log holds the whole log in its SQLite storage through
// the log core's storage contract (log/durable/) and runs the log core's sequencer over it, so the
// Worker and the embedded default share one sequencer, one tree and one head format. Durable
// Objects are single-threaded per object and the runtime's output gate releases an answer only
// after the storage writes before it are durable: an append is acknowledged only once stored and
// covered by a signed head (Decision 7). Loaded only inside workerd (imports cloudflare:workers).
import { DurableObject } from "cloudflare:workers";
import type { AppendResult, TreeHead, TreeView } from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import { openEdgeLog, SequencerCore } from "./sequencer.ts";
import { capture, type Outcome } from "./wire.ts";
import { openDurableWitnessState } from "../../log/durable/witness_state.ts";
import type {
  CollectorRecord,
  CosignedRecord,
  WitnessStateStore,
} from "../../log/c2sp/witness_state.ts";
import { WitnessCollector, type WitnessStatus } from "../witness_collector.ts";
import { sha256Source } from "../witness_source.ts";
import { edgeConfig } from "./settings.ts";

/** The alarm part of a Durable Object's storage (the collector's rounds run on it). */
interface AlarmStorage {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
}

/** Least time between two collector rounds at the edge, ms (docs/WITNESS.md: about once a second). */
const ROUND_MS = 1000;

/** Name of the one Durable Object instance that holds the log. */
export const LOG_OBJECT_NAME = "log";

/** The Durable Object class bound as LOG_SEQUENCER in wrangler.toml (SQLite storage). */
export class LogSequencer extends DurableObject {
  readonly #core: SequencerCore;
  readonly #storage: DurableSqlStorage & AlarmStorage;
  readonly #env: Record<string, unknown>;
  #witness: WitnessStateStore | undefined;
  #collector: WitnessCollector | undefined;

  constructor(ctx: { storage: DurableSqlStorage }, env: Record<string, unknown>) {
    super(ctx, env);
    this.#storage = ctx.storage as DurableSqlStorage & AlarmStorage;
    this.#env = env;
    this.#core = new SequencerCore(() => openEdgeLog(openDurableStorage(ctx.storage), env));
  }

  // docs/WITNESS.md: the witness role's state beside the log's tables, one call at a time.
  #ws(): WitnessStateStore {
    return this.#witness ??= openDurableWitnessState(this.#storage);
  }
  witnessGet(origin: string): Promise<Outcome<CosignedRecord | undefined>> {
    return capture(() => this.#ws().get(origin));
  }
  witnessCas(
    origin: string,
    expected: { size: number; root: Uint8Array } | undefined,
    next: CosignedRecord,
  ): Promise<Outcome<boolean>> {
    return capture(() => this.#ws().compareAndSwap(origin, expected, next));
  }
  collectorGet(witness: string): Promise<Outcome<CollectorRecord | undefined>> {
    return capture(() => this.#ws().getCollector(witness));
  }
  collectorPut(witness: string, rec: CollectorRecord): Promise<Outcome<void>> {
    return capture(() => this.#ws().putCollector(witness, rec));
  }

  append(entry: Uint8Array): Promise<Outcome<AppendResult>> {
    void this.#armCollector().catch((e) => console.error(`witness collector: ${e}`));
    return this.#core.append(entry);
  }

  // docs/WITNESS.md: the cosignature collector runs in this object, one round per alarm, at most
  // about once a second, off the append path; its state is the witness state above.
  async #collectorOf(): Promise<WitnessCollector | undefined> {
    if (this.#collector) return this.#collector;
    const witnesses = edgeConfig(this.#env).witnesses;
    if (witnesses.length === 0) return undefined;
    this.#collector = new WitnessCollector({
      witnesses,
      source: sha256Source(await this.#core.log()),
      state: this.#ws(),
    });
    return this.#collector;
  }
  async #armCollector(): Promise<void> {
    if (!(await this.#collectorOf())) return;
    if ((await this.#storage.getAlarm()) === null) {
      await this.#storage.setAlarm(Date.now() + ROUND_MS);
    }
  }
  async alarm(): Promise<void> {
    const c = await this.#collectorOf();
    if (!c) return;
    try {
      await c.round();
    } catch (e) {
      console.error(`witness collector: round failed: ${(e as Error)?.message ?? e}`);
    } finally {
      await this.#storage.setAlarm(Date.now() + ROUND_MS);
    }
  }
  servedCheckpoint(latest: string): Promise<Outcome<string>> {
    return capture(async () => {
      void this.#armCollector().catch(() => {});
      return (await this.#collectorOf())?.served(latest) ?? latest;
    });
  }
  collectorStatus(): Promise<Outcome<WitnessStatus[]>> {
    return capture(async () => (await (await this.#collectorOf())?.status()) ?? []);
  }
  entry(index: number): Promise<Outcome<Uint8Array | undefined>> {
    return this.#core.entry(index);
  }
  indexOfLeaf(leafHash: Uint8Array): Promise<Outcome<number | undefined>> {
    return this.#core.indexOfLeaf(leafHash);
  }
  latestHead(): Promise<Outcome<TreeHead>> {
    return this.#core.latestHead();
  }
  headAt(size: number): Promise<Outcome<TreeHead | undefined>> {
    return this.#core.headAt(size);
  }
  inclusionProof(index: number, size: number): Promise<Outcome<Uint8Array[]>> {
    return this.#core.inclusionProof(index, size);
  }
  consistencyProof(first: number, second: number): Promise<Outcome<Uint8Array[]>> {
    return this.#core.consistencyProof(first, second);
  }
  checkpoint(view: TreeView): Promise<Outcome<string>> {
    return this.#core.checkpoint(view);
  }
  tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Outcome<Uint8Array | undefined>> {
    return this.#core.tile(view, level, index, width);
  }
  bundle(index: number, width: number): Promise<Outcome<Uint8Array | undefined>> {
    return this.#core.bundle(index, width);
  }
  check(): Promise<Outcome<void>> {
    return this.#core.check();
  }
}
