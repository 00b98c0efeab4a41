// A `Log` that forwards every call to another log, chosen at each call (docs/CONTRACTS.md): the
// typed base of the shard compositions — a shard's gated log (shard_gate.ts: appends through the
// gate) and the active shard's log (shard_active.ts). One line per method of the contract, so a
// method added to `Log` is a compile error here until it is forwarded, never a silent gap.
// Platform-neutral.
import type { AgentHead, AgentLink, AppendResult, Log, TreeHead, TreeView } from "../../log/mod.ts";

/** Forwards every call to `target()`; subclasses override what they compose. */
export class ForwardingLog implements Log {
  readonly #target: () => Log;

  constructor(target: () => Log) {
    this.#target = target;
  }

  append(entry: Uint8Array, link?: AgentLink): Promise<AppendResult> {
    return this.#target().append(entry, link);
  }
  /** The target's, when it keeps agents' chain heads. */
  get agentHead(): Log["agentHead"] {
    const t = this.#target();
    return t.agentHead &&
      ((did: string, linkOf?: (e: Uint8Array) => AgentLink | undefined) =>
        t.agentHead!(did, linkOf) as Promise<AgentHead | undefined>);
  }
  /** The target's, when it measures its sequencer. */
  get phaseCpuMs(): Log["phaseCpuMs"] {
    const t = this.#target();
    return t.phaseCpuMs && (() => t.phaseCpuMs!());
  }
  close(): Promise<void> {
    return this.#target().close();
  }
  latestHead(): Promise<TreeHead> {
    return this.#target().latestHead();
  }
  headAt(size: number): Promise<TreeHead | undefined> {
    return this.#target().headAt(size);
  }
  firstHead(): Promise<TreeHead | undefined> {
    return this.#target().firstHead();
  }
  entry(index: number): Promise<Uint8Array | undefined> {
    return this.#target().entry(index);
  }
  indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined> {
    return this.#target().indexOfLeaf(leafHash);
  }
  leafHashAt(index: number): Promise<Uint8Array | undefined> {
    return this.#target().leafHashAt(index);
  }
  inclusionProof(index: number, size: number): Promise<Uint8Array[]> {
    return this.#target().inclusionProof(index, size);
  }
  consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    return this.#target().consistencyProof(first, second);
  }
  publicKey(): Uint8Array {
    return this.#target().publicKey();
  }
  signer(): string {
    return this.#target().signer();
  }
  logName(): string {
    return this.#target().logName();
  }
  vkeys(): Record<TreeView, string> {
    return this.#target().vkeys();
  }
  checkpoint(view: TreeView): Promise<string> {
    return this.#target().checkpoint(view);
  }
  tile(view: TreeView, level: number, index: number, width: number) {
    return this.#target().tile(view, level, index, width);
  }
  bundle(index: number, width: number): Promise<Uint8Array | undefined> {
    return this.#target().bundle(index, width);
  }
  check(): Promise<void> {
    return this.#target().check();
  }
  readFaults(): number {
    return this.#target().readFaults();
  }
}
