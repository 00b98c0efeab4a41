// A checkpoint against a C2SP tlog-policy (log/c2sp/policy.ts): "a checkpoint is considered valid
// if it is signed by any one of the listed logs, and it is cosigned by witnesses according to the
// defined quorum rule" (tlog-policy "What is a policy"). Signatures by the signed-note code
// (log/c2sp/note.ts): unknown keys are ignored, a known key's bad signature rejects the note.
// Also a tlog-proof under a policy (tlog-proof "Verifying a tlog proof", steps 2-4).
import type { Hasher } from "../hasher.ts";
import { type Checkpoint, openCheckpoint } from "./checkpoint.ts";
import { C2spError } from "./errors.ts";
import { type NoteVerifier, parseVkey, SIG_COSIGNATURE_V1, verifierFromVkey } from "./note.ts";
import { quorumMet, type TlogPolicy } from "./policy.ts";
import { parseTlogProof, type VerifiedTlogProof, verifyTlogProof } from "./tlog_proof.ts";

/** A checkpoint that met a policy. */
export interface PolicyCheckpoint {
  checkpoint: Checkpoint;
  /** The note text (what the signatures cover). */
  text: string;
  /** Policy names of the witnesses whose cosignatures verified. */
  cosigners: string[];
}

interface Keys {
  logs: NoteVerifier[];
  witnesses: { name: string; verifier: NoteVerifier }[];
}

function keysOf(policy: TlogPolicy): Keys {
  const logs = policy.logs.map((l) => verifierFromVkey(l.vkey));
  const witnesses = policy.witnesses.map((w) => {
    const k = parseVkey(w.vkey);
    if (k.type !== SIG_COSIGNATURE_V1) {
      throw new C2spError(
        "policy-bad-witness-key",
        `Cannot use policy: witness ${w.name}'s vkey is not a cosignature/v1 (0x04) key`,
      );
    }
    return { name: w.name, verifier: verifierFromVkey(k) };
  });
  return { logs, witnesses };
}

function checkQuorum(policy: TlogPolicy, keys: Keys, verified: NoteVerifier[]): string[] {
  const cosigners = keys.witnesses.filter((w) => verified.includes(w.verifier)).map((w) => w.name);
  if (!quorumMet(policy, new Set(cosigners))) {
    throw new C2spError(
      "policy-quorum",
      `Cannot accept checkpoint: below the policy's quorum "${policy.quorum}" (cosigned by ${
        cosigners.length ? cosigners.join(", ") : "no listed witness"
      })`,
    );
  }
  return cosigners;
}

/**
 * Opens a checkpoint under a policy: signed by one of its logs (the origin must be that log's
 * key name), cosignatures by its witnesses meeting its quorum. Throws C2spError: `policy-no-log`,
 * `policy-quorum`, or the note's and checkpoint's codes.
 *
 * @example
 * ```ts
 * const { checkpoint, cosigners } = await openCheckpointWithPolicy(note, policy);
 * ```
 */
export async function openCheckpointWithPolicy(
  note: string | Uint8Array,
  policy: TlogPolicy,
): Promise<PolicyCheckpoint> {
  const keys = keysOf(policy);
  if (keys.logs.length === 0) {
    throw new C2spError("policy-no-log", "Cannot accept checkpoint: the policy lists no log");
  }
  let lastErr: unknown;
  // The origin is the key name of the log that signed it; try each listed log's origin.
  for (const log of keys.logs) {
    let opened;
    try {
      opened = await openCheckpoint(note, [log, ...keys.witnesses.map((w) => w.verifier)], {
        origin: log.name,
      });
    } catch (e) {
      lastErr = e;
      continue;
    }
    if (!opened.verified.some((v) => v.verifier === log)) {
      lastErr = new C2spError("note-unverified", "Cannot accept checkpoint: no log key signed it");
      continue;
    }
    const cosigners = checkQuorum(policy, keys, opened.verified.map((v) => v.verifier));
    return { checkpoint: opened.checkpoint, text: opened.text, cosigners };
  }
  throw lastErr;
}

/**
 * Verifies a tlog-proof offline under a policy: the checkpoint as `openCheckpointWithPolicy`, then
 * the inclusion of `leafHash` at the proof's index under its root.
 *
 * @example
 * ```ts
 * await verifyTlogProofWithPolicy(text, policy, sha256Hasher, leafHash);
 * ```
 */
export async function verifyTlogProofWithPolicy(
  text: string,
  policy: TlogPolicy,
  hasher: Hasher,
  leafHash: Uint8Array,
): Promise<VerifiedTlogProof & { policyCosigners: string[] }> {
  const p = parseTlogProof(text);
  const cp = await openCheckpointWithPolicy(p.checkpoint, policy);
  const logKey = policy.logs.find((l) => l.vkey.startsWith(`${cp.checkpoint.origin}+`))!;
  const v = await verifyTlogProof(text, { hasher, leafHash, logKeys: [logKey.vkey] });
  return { ...v, policyCosigners: cp.cosigners };
}
