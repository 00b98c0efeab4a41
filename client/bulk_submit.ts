// `client submit A B C…` and `--batch N` (issue 29; docs/CLIENTS.md "Bulk appends"): the files'
// envelopes go to the log in bulk appends (`application/cbor-seq`) of at most N envelopes each,
// to the active shard of a sharded service; every logged one is checked as `submit` checks one
// (its leaf hash, the answer's signed head, its inclusion proof against that head), and every
// refused one is reported beside the others, never stopping them.
import { LogClient } from "./client.ts";
import { type ShardContext, targetShard } from "./shard_commands.ts";

/** What the command prints for one file, in the order given. */
export type BulkLine =
  | {
    file: string;
    index: number;
    leaf_hash: string;
    verdict?: string;
    drift_alert?: Record<string, unknown>;
    created: boolean;
    tree_size: number;
    shard?: string;
    verified: true;
  }
  | { file: string; refused: string; status: number; detail: string };

/**
 * Submits `files`' envelopes in bulks of at most `batch`; one line per file, in order. Throws
 * what LogClient.submitBulk throws (an HTTP error of a whole bulk, a failed check).
 */
export async function submitBulkFiles(
  ctx: ShardContext,
  files: { file: string; envelope: Uint8Array }[],
  batch: number,
  signer?: string,
): Promise<BulkLine[]> {
  const t = await targetShard({ ...ctx, shard: undefined });
  const client = new LogClient(t.base, signer ?? t.shard?.signer, ctx.fetch ?? fetch, ctx.net);
  const lines: BulkLine[] = [];
  for (let i = 0; i < files.length; i += batch) {
    const chunk = files.slice(i, i + batch);
    const results = await client.submitBulk(chunk.map((f) => f.envelope));
    results.forEach((r, k) => {
      const file = chunk[k].file;
      lines.push(
        r.ok
          ? {
            file,
            index: r.index,
            leaf_hash: r.leaf_hash,
            ...(r.verdict !== undefined ? { verdict: r.verdict } : {}),
            ...(r.drift_alert !== undefined ? { drift_alert: r.drift_alert } : {}),
            created: r.created,
            tree_size: r.tree_head.size,
            ...(t.shard ? { shard: t.shard.id } : {}),
            verified: true,
          }
          : { file, refused: r.code, status: r.status, detail: r.detail },
      );
    });
  }
  return lines;
}
