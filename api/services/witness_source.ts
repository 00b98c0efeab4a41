// Our own SHA-256 view as the cosignature collector reads it (docs/WITNESS.md): the latest
// checkpoint, and consistency proofs from our own tiles (the one proof implementation,
// api/services/tile_readers.ts). Platform-neutral: the Deno entry and the Durable Object use it.
import type { Log } from "../../log/mod.ts";
import { tileReader } from "./tile_readers.ts";
import type { CheckpointSource } from "./witness_collector.ts";

/** The collector's source over `log`. */
export function sha256Source(log: Log): CheckpointSource {
  return {
    latest: () => log.checkpoint("sha256"),
    consistency: (first, tree) =>
      tileReader(log, "sha256", tree.size, tree.root).consistencyProof(first),
  };
}
