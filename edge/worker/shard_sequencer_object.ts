// The sequencer Durable Object of every shard after the first (docs/SHARDS.md): the same code as
// s0's (durable_object.ts), its identity kept in its own storage. Loaded only inside workerd.
import { LogSequencer } from "./durable_object.ts";
import { LogIntegrityError, LogStorageError } from "../../log/mod.ts";
import { shardId } from "../../log/shards/mod.ts";
import { ed25519PublicKey, fromHex, toHex } from "../../verify/mod.ts";
import { capture, type Outcome } from "./wire.ts";
import type { ShardIdentity, ShardRecordKv } from "./object_types.ts";

/**
 * The sequencer of every shard after the first (docs/SHARDS.md), bound as LOG_SHARD_SEQUENCER
 * (object "shard-sN"; R2 keys under `shards/sN/`). Created by a rotation (`createShard`), which
 * generates its Ed25519 key and keeps it in the object's own storage; it never leaves the object.
 * An object never created refuses to open (`shard-unknown`).
 */
export class LogShardSequencer extends LogSequencer {
  protected override async shardIdentity(): Promise<ShardIdentity> {
    const rec = await this.kvStorage().get<ShardRecordKv>("jc-shard");
    if (!rec) {
      throw new LogStorageError(
        "shard-unknown",
        "Cannot open the shard: it was never created",
      );
    }
    return { n: rec.n, secretKey: fromHex(rec.secret), logName: rec.log_name };
  }

  /**
   * Creates shard `n` named `logName` (the first step of a rotation): a fresh key, kept here;
   * the log opened, so its signed empty head and checkpoints are in R2. Again on the same
   * object (an interrupted rotation retried): the same key, nothing changed.
   */
  createShard(
    n: number,
    logName: string,
  ): Promise<Outcome<{ public_key: string }>> {
    return capture(async () => {
      const kv = this.kvStorage();
      let rec = await kv.get<ShardRecordKv>("jc-shard");
      if (!rec) {
        const secret = toHex(crypto.getRandomValues(new Uint8Array(32)));
        rec = { n, log_name: logName, secret };
        await kv.put("jc-shard", rec);
        await kv.sync?.();
      }
      if (rec.n !== n || rec.log_name !== logName) {
        throw new LogIntegrityError(
          `Cannot create shard ${shardId(n)}: this object is ${rec.log_name}`,
        );
      }
      await this.openLog();
      return { public_key: toHex(ed25519PublicKey(fromHex(rec.secret))) };
    });
  }
}
