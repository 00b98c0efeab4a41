// Signing the sequencer's next tree head (log/sequencer.ts; JouleClaw SPEC §22.2): the grown tree's
// root refolded from its tiles must equal the batch tree's (the proofs about to be answered), every
// other view's root at the same size likewise, and the new head must extend the previous one
// (RFC 9162 §2.1.4.2) before it is signed. Pure.
import { blake3Hasher } from "./hasher.ts";
import { bytesEqual, ed25519Sign } from "./crypto.ts";
import { treeHeadBytes } from "./head.ts";
import { LogIntegrityError } from "./errors.ts";
import type { StoredHead } from "./storage.ts";
import type { TileNodeReader } from "./tiles.ts";
import { consistencyProof, treeRoot } from "./tree.ts";
import { verifyConsistency } from "./proof.ts";
import { type GrownView, VIEWS } from "./views.ts";

const h = blake3Hasher;

/**
 * Signs the head of the grown tree after proving it consistent with `prev`, and every other
 * view's root at the same size against its tiles; `fail` marks the log broken with a refusal
 * (the error it returns is thrown).
 */
export async function signNextHead(
  prev: StoredHead,
  grown: GrownView[],
  reader: TileNodeReader,
  now: () => number,
  secret: Uint8Array,
  fail: (e: Error) => Error,
): Promise<StoredHead> {
  const size = grown[0].edge.size;
  const root = await treeRoot(h, size, reader.read);
  let agree = bytesEqual(root, grown[0].tree.root());
  let sha256Root = VIEWS[1].hasher.empty(); // benchmarks without the SHA-256 view
  for (let k = 1; k < grown.length; k++) {
    const g = grown[k];
    sha256Root = await g.edge.root();
    agree &&= bytesEqual(sha256Root, g.tree.root()) && g.edge.size === size;
  }
  if (!agree) {
    // The tiles about to be stored and the proofs about to be answered must agree.
    throw fail(
      new LogIntegrityError(
        `Cannot sign tree head: size ${size}'s root from tiles differs from the batch tree's`,
      ),
    );
  }
  if (prev.size > 0) {
    // SPEC §22.3 / ARCHITECTURE: a new head must extend the previous one (RFC 9162 §2.1.4.2).
    const proof = await consistencyProof(h, prev.size, size, reader.read);
    if (!verifyConsistency(h, prev.size, size, proof, prev.root, root)) {
      throw fail(
        new LogIntegrityError(
          `Cannot sign tree head: size ${size} is not consistent with the head at ${prev.size}`,
        ),
      );
    }
  }
  const timestamp = Math.max(Math.floor(now()), prev.timestamp); // never goes back
  const signature = ed25519Sign(treeHeadBytes(size, root, timestamp), secret);
  return { size, root, timestamp, signature, sha256Root };
}
