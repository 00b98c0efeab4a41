// The client's `--policy FILE` (docs/WITNESS.md "The policy file"): a C2SP tlog-policy whose
// quorum every SHA-256 checkpoint the client uses must meet (prove, monitor over tiles), and the
// offline `verify-proof RECEIPT PROOF --policy FILE`. A checkpoint below quorum is refused with
// BelowQuorum: exit status 5, distinct from a failed check or an alarm (3) and a transport
// failure (4).
import { c2sp } from "../log/mod.ts";
import { VerificationFailure } from "./client.ts";
import { readEnvelopeFile } from "./envelope_file.ts";
import type { TileClient } from "./tiles.ts";
import { type VerifiedProof, verifyReceiptProof } from "./verify_proof.ts";

/** Exit status of a checkpoint (or tlog-proof) below the policy's quorum. */
export const EXIT_BELOW_QUORUM = 5;

/** A checkpoint that does not meet the policy's quorum. */
export class BelowQuorum extends Error {
  readonly code = "policy-quorum";
  constructor(message: string) {
    super(message);
    this.name = "BelowQuorum";
  }
}

/** Reads and parses a tlog-policy file; a malformed one is an Error naming its line. */
export async function loadPolicy(path: string): Promise<c2sp.TlogPolicy> {
  return c2sp.parsePolicy(await Deno.readFile(path));
}

/**
 * The policy's verdict on a checkpoint note: its cosigners (policy names), or BelowQuorum, or a
 * VerificationFailure (not signed by a listed log, a bad signature by a listed key).
 */
export async function checkPolicy(note: string, policy: c2sp.TlogPolicy): Promise<string[]> {
  try {
    return (await c2sp.openCheckpointWithPolicy(note, policy)).cosigners;
  } catch (e) {
    if (e instanceof c2sp.C2spError && e.code === "policy-quorum") throw new BelowQuorum(e.message);
    if (e instanceof c2sp.C2spError) {
      throw new VerificationFailure(`Cannot accept checkpoint: ${e.code}: ${e.message}`);
    }
    throw e;
  }
}

/**
 * The policy a shard's SHA-256 checkpoints are held to (docs/SHARDS.md "Clients follow the
 * directory"): `policy` itself when it names a log of the shard's origin (with whatever key it
 * names: another key is refused as ever); else `policy` with the shard's log added under the key
 * of the operator-signed directory, so a policy fetched before a rotation still holds every later
 * shard to its witnesses and quorum instead of failing on an origin it could not know.
 */
export function policyForShard(policy: c2sp.TlogPolicy, shardVkey: string): c2sp.TlogPolicy {
  const origin = c2sp.parseVkey(shardVkey).name;
  if (policy.logs.some((l) => c2sp.parseVkey(l.vkey).name === origin)) return policy;
  return { ...policy, logs: [...policy.logs, { vkey: shardVkey }] };
}

/**
 * Makes `client` refuse every SHA-256 checkpoint below the policy's quorum, where it is fetched:
 * prove, monitor and the tlog-proofs they write use exactly the checkpoints that passed. (The
 * BLAKE3 view is not witnessed; the monitor binds it to the SHA-256 view.)
 */
export function enforcePolicy(client: TileClient, policy: c2sp.TlogPolicy): void {
  const fetchCheckpoint = client.checkpoint.bind(client);
  client.checkpoint = async (view) => {
    const c = await fetchCheckpoint(view);
    if (view === "sha256") await checkPolicy(c.note, policy);
    return c;
  };
}

/**
 * `verify-proof RECEIPT PROOF --policy FILE`, offline: the proof's checkpoint must be signed by a
 * log the policy lists and meet its quorum; the inclusion proof must close on its root.
 */
export async function verifyProofWithPolicy(
  receipt: Uint8Array,
  proofText: string,
  policy: c2sp.TlogPolicy,
): Promise<VerifiedProof & { policy_cosigners: string[] }> {
  let checkpoint: string;
  try {
    checkpoint = c2sp.parseTlogProof(proofText).checkpoint;
  } catch (e) {
    throw new VerificationFailure(`Cannot verify the proof: ${(e as Error).message}`);
  }
  const cosigners = await checkPolicy(checkpoint, policy);
  const origin = checkpoint.slice(0, checkpoint.indexOf("\n"));
  const log = policy.logs.find((l) => c2sp.parseVkey(l.vkey).name === origin)!;
  const v = await verifyReceiptProof(receipt, proofText, { logKey: log.vkey });
  return { ...v, policy_cosigners: cosigners };
}

/** `verify-proof` with `--policy`: prints the result; the exit status. */
export async function verifyProofPolicyCommand(
  receiptPath: string,
  proofPath: string,
  policyPath: string,
): Promise<number> {
  const receipt = await readEnvelopeFile(receiptPath);
  const r = await verifyProofWithPolicy(
    receipt,
    await Deno.readTextFile(proofPath),
    await loadPolicy(policyPath),
  );
  console.log(JSON.stringify({ ...r, verified: true }));
  return 0;
}
