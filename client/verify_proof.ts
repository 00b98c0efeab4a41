// Offline checks of a c2sp.org/tlog-proof@v1 for a receipt (`client verify-proof receipt.cose
// proof.txt --log-key <vkey>`): no network. The view is the checkpoint's origin's (`…/blake3`:
// BLAKE3 leaf/node hashes, SPEC §22.1; `…/sha256`: RFC 6962), the leaf hash is computed from the
// receipt's bytes, the checkpoint must be signed by the log key for that origin (both views' vkeys
// follow from one), witness cosignatures (cosignature/v1) are counted against a quorum, and the
// inclusion proof must close on the signed root. Also: a tlog-proof made from verified tiles.
import { c2sp } from "../log/mod.ts";
import { fromHex, toHex } from "../verify/mod.ts";
import { VerificationFailure } from "./client.ts";
import { logVkeys, type TileClient, type View, type ViewCheckpoint, VIEWS } from "./tiles.ts";

/** What an offline tlog-proof check needs besides the receipt and the proof. */
export interface OfflinePolicy {
  /** One of the log's vkeys (either view). */
  logKey: string;
  /** Witness vkeys (type 0x04) and how many must have cosigned (default 0). */
  witnesses?: string[];
  quorum?: number;
}

/** A tlog-proof that verified. */
export interface VerifiedProof {
  view: View;
  origin: string;
  index: number;
  size: number;
  leaf_hash: string;
  root: string;
  cosigners: string[];
}

const VIEW_OF = /\/(blake3|sha256)$/;

/**
 * Verifies `proofText` for `receipt` offline; a failed check is a VerificationFailure naming the
 * C2SP code.
 */
export async function verifyReceiptProof(
  receipt: Uint8Array,
  proofText: string,
  policy: OfflinePolicy,
): Promise<VerifiedProof> {
  try {
    const keys = logVkeys(policy.logKey);
    const p = c2sp.parseTlogProof(proofText);
    const origin = p.checkpoint.slice(0, p.checkpoint.indexOf("\n"));
    const m = VIEW_OF.exec(origin);
    if (!m) {
      throw new VerificationFailure(`Cannot verify the proof: origin ${origin} names no view`);
    }
    const view = m[1] as View;
    const h = VIEWS[view];
    const leaf = h.leaf(receipt);
    const v = await c2sp.verifyTlogProof(proofText, {
      hasher: h,
      leafHash: leaf,
      logKeys: [keys[view]],
      witnesses: policy.witnesses,
      quorum: policy.quorum,
    });
    return {
      view,
      origin,
      index: v.index,
      size: v.checkpoint.size,
      leaf_hash: toHex(leaf),
      root: toHex(v.checkpoint.root),
      cosigners: v.cosigners,
    };
  } catch (e) {
    if (e instanceof c2sp.C2spError) {
      throw new VerificationFailure(`Cannot verify the proof: ${e.code}: ${e.message}`);
    }
    throw e;
  }
}

/** A tlog-proof for entry `index` against checkpoint `c`, its inclusion proof from verified tiles. */
export async function tlogProofFromTiles(
  client: TileClient,
  c: ViewCheckpoint,
  index: number,
): Promise<string> {
  const r = await client.prove(c, index);
  return c2sp.formatTlogProof({
    index,
    proof: r.path.map(fromHex),
    checkpoint: c.note,
  });
}
