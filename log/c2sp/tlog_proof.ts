// C2SP tlog-proof (c2sp.org/tlog-proof@v1): an offline-verifiable proof that an entry is in a
// log: optional `extra`, the entry's index, its RFC 6962 inclusion proof and the signed
// checkpoint verbatim (with any witness cosignatures). The tree hash is the view's (SHA-256 for
// `<name>/sha256`, BLAKE3 for `<name>/blake3`, PUBLICATION.md Decision P1).
import type { Hasher } from "../hasher.ts";
import { HASH_SIZE } from "../hasher.ts";
import { verifyInclusion } from "../proof.ts";
import { fromBase64, toBase64 } from "./base64.ts";
import { type Checkpoint, openCheckpoint } from "./checkpoint.ts";
import { C2spError } from "./errors.ts";
import { NOTE_LIMITS, type NoteLimits, type NoteVerifier, verifierFromVkey } from "./note.ts";

/** tlog-proof §Format line 1. */
export const TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1";
/** Most inclusion-proof lines (a tree of up to 2^63 leaves). */
export const MAX_PROOF_HASHES = 63;
/** Most bytes of `extra` once decoded. */
export const MAX_EXTRA_BYTES = 4096;

/** A parsed tlog-proof; `checkpoint` is the signed note, verbatim. */
export interface TlogProof {
  extra?: Uint8Array;
  index: number;
  proof: Uint8Array[];
  checkpoint: string;
}

function bad(code: string, why: string): never {
  throw new C2spError(code, `Cannot read tlog-proof: ${why}`);
}

/**
 * Serializes a tlog-proof.
 *
 * @example
 * ```ts
 * formatTlogProof({ index: 3, proof, checkpoint: signedNote });
 * ```
 */
export function formatTlogProof(p: TlogProof): string {
  if (!Number.isSafeInteger(p.index) || p.index < 0) bad("tlog-proof-bad-index", "bad index");
  if (p.proof.length > MAX_PROOF_HASHES || p.proof.some((x) => x.length !== HASH_SIZE)) {
    bad("tlog-proof-bad-hash", "proof hashes are not 32 bytes");
  }
  const lines = [TLOG_PROOF_HEADER];
  if (p.extra !== undefined) lines.push(`extra ${toBase64(p.extra)}`);
  lines.push(`index ${p.index}`, ...p.proof.map(toBase64));
  return `${lines.join("\n")}\n\n${p.checkpoint}`;
}

/**
 * Parses a tlog-proof (limits before work). Codes: `tlog-proof-too-large`, `tlog-proof-malformed`,
 * `tlog-proof-bad-extra`, `tlog-proof-bad-index`, `tlog-proof-bad-hash`.
 */
export function parseTlogProof(text: string, limits: NoteLimits = NOTE_LIMITS): TlogProof {
  const max = limits.maxBytes + 8192;
  if (typeof text !== "string" || text.length > max) bad("tlog-proof-too-large", `over ${max}`);
  const split = text.indexOf("\n\n");
  if (split < 0) bad("tlog-proof-malformed", "no empty line before the checkpoint");
  const lines = text.slice(0, split).split("\n");
  if (lines[0] !== TLOG_PROOF_HEADER) {
    bad("tlog-proof-malformed", `first line is not ${TLOG_PROOF_HEADER}`);
  }
  let i = 1;
  let extra: Uint8Array | undefined;
  if (lines[i]?.startsWith("extra ")) {
    extra = fromBase64(lines[i].slice(6), "tlog-proof-bad-extra");
    if (extra.length > MAX_EXTRA_BYTES) bad("tlog-proof-bad-extra", "extra is too large");
    i++;
  }
  const m = /^index (0|[1-9][0-9]{0,15})$/.exec(lines[i] ?? "");
  if (!m || !Number.isSafeInteger(Number(m[1]))) {
    bad("tlog-proof-bad-index", "no `index <decimal>` line (no leading zeros)");
  }
  const hashes = lines.slice(i + 1);
  if (hashes.length > MAX_PROOF_HASHES) bad("tlog-proof-bad-hash", "too many proof lines");
  const proof = hashes.map((h) => {
    const b = fromBase64(h, "tlog-proof-bad-hash");
    if (b.length !== HASH_SIZE) bad("tlog-proof-bad-hash", "a proof hash is not 32 bytes");
    return b;
  });
  const out: TlogProof = { index: Number(m[1]), proof, checkpoint: text.slice(split + 2) };
  if (extra) out.extra = extra;
  return out;
}

/** What `verifyTlogProof` needs besides the proof. */
export interface TlogProofPolicy {
  /** The view's tree hash. */
  hasher: Hasher;
  /** The entry's leaf hash (tlog-proof §Verifying step 1, application specific). */
  leafHash: Uint8Array;
  /** The log's keys (vkeys or verifiers); the first one's name is the expected origin. */
  logKeys: (string | NoteVerifier)[];
  origin?: string;
  /** Witness cosigner keys (vkeys of type 0x04, or verifiers) and how many must have cosigned. */
  witnesses?: (string | NoteVerifier)[];
  quorum?: number;
  limits?: NoteLimits;
}

/** A verified tlog-proof. */
export interface VerifiedTlogProof {
  index: number;
  extra?: Uint8Array;
  checkpoint: Checkpoint;
  /** Names of the witnesses whose cosignatures verified. */
  cosigners: string[];
}

/**
 * Verifies a tlog-proof (tlog-proof §Verifying a tlog proof): the checkpoint signed by a log key
 * with the expected origin, witness cosignatures (a bad one rejects the note; fewer than `quorum`
 * valid is `tlog-proof-quorum`), and the inclusion of `leafHash` at `index` under the signed root
 * (`tlog-proof-bad-inclusion`).
 */
export async function verifyTlogProof(
  text: string,
  policy: TlogProofPolicy,
): Promise<VerifiedTlogProof> {
  const p = parseTlogProof(text, policy.limits);
  const toV = (k: string | NoteVerifier) => (typeof k === "string" ? verifierFromVkey(k) : k);
  const logs = policy.logKeys.map(toV);
  if (logs.length === 0) bad("tlog-proof-no-key", "no log key given");
  const witnesses = (policy.witnesses ?? []).map(toV);
  const opened = await openCheckpoint(p.checkpoint, [...logs, ...witnesses], {
    origin: policy.origin ?? logs[0].name,
    limits: policy.limits,
  });
  // tlog-proof §Verifying step 2: the checkpoint must be signed by a log key, not only a witness.
  if (!opened.verified.some((v) => logs.includes(v.verifier))) {
    throw new C2spError("note-unverified", "Cannot verify tlog-proof: no log key signed it");
  }
  const cosigners = opened.verified.filter((v) => witnesses.includes(v.verifier))
    .map((v) => v.verifier.name);
  if (cosigners.length < (policy.quorum ?? 0)) {
    bad("tlog-proof-quorum", `${cosigners.length} cosignatures, policy asks ${policy.quorum}`);
  }
  const c = opened.checkpoint;
  // Step 4: the inclusion proof binds the leaf hash to the signed root.
  if (!verifyInclusion(policy.hasher, p.index, c.size, policy.leafHash, p.proof, c.root)) {
    bad("tlog-proof-bad-inclusion", `entry ${p.index} is not proven in the tree of ${c.size}`);
  }
  const out: VerifiedTlogProof = { index: p.index, checkpoint: c, cosigners };
  if (p.extra) out.extra = p.extra;
  return out;
}
