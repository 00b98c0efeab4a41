// The witness role, C2SP tlog-witness v1 add-checkpoint end to end (pure; storage injected):
// parse the body (log/c2sp/witness.ts), find the origin's configured log (404), verify the log's
// signature (403), check consistency from the latest checkpoint cosigned for that origin
// (400/409/422), cosign with our own cosignature/v1 key (tlog-cosignature, type 0x04), and move
// the stored (size, root) by compare-and-swap before answering, so two requests for one origin
// never both win (tlog-witness: "must be performed atomically").
import { blake3Hasher, type Hasher, sha256Hasher } from "../hasher.ts";
import { parseCheckpoint } from "./checkpoint.ts";
import { C2spError } from "./errors.ts";
import {
  cosignatureSigner,
  cosignatureVkey,
  formatSignatureLine,
  type NoteVerifier,
  openNote,
  parseNote,
  parseVkey,
  SIG_ED25519,
  verifierFromVkey,
} from "./note.ts";
import { checkAdvance, parseAddCheckpoint, WitnessRefusal } from "./witness.ts";
import type { WitnessStateStore } from "./witness_state.ts";

/** A log this witness cosigns. */
export interface WitnessedLog {
  /** The log's vkey (Ed25519, type 0x01); its name is the origin. */
  vkey: string;
  hash: "sha256" | "blake3";
}

/** Options of `createWitness`. */
export interface WitnessOptions {
  /** Our cosigner name (the key name of our vkey). */
  name: string;
  /** Our witness key, a 32-byte Ed25519 secret (never the log key). */
  secret: Uint8Array;
  logs: WitnessedLog[];
  state: WitnessStateStore;
  /** POSIX seconds for cosignature timestamps; injectable for tests. */
  now?: () => number;
  /** Called with each refused request for a known origin (evidence of misbehaviour, or a race). */
  onRefusal?: (origin: string, refusal: WitnessRefusal) => void;
}

/** A witness. */
export interface Witness {
  /** Our cosignature/v1 vkey (type 0x04). */
  readonly vkey: string;
  readonly name: string;
  /** The origins this witness cosigns. */
  readonly origins: string[];
  /**
   * Handles one add-checkpoint body: resolves to the cosignature line(s) (`— name base64\n`) for a
   * 200, or throws WitnessRefusal with the status tlog-witness assigns.
   */
  addCheckpoint(body: Uint8Array): Promise<string>;
  /** The latest cosigned checkpoint of `origin` with our cosignature, if any. */
  latest(origin: string): Promise<Uint8Array | undefined>;
}

/** Bound on compare-and-swap retries of one request (each failed try means another request won). */
const CAS_TRIES = 64;

const HASHERS: Record<WitnessedLog["hash"], Hasher> = {
  sha256: sha256Hasher,
  blake3: blake3Hasher,
};

/**
 * Builds a witness. Throws C2spError for a log vkey that is not an Ed25519 (0x01) vkey, two logs
 * with one origin, or a bad name.
 *
 * @example
 * ```ts
 * const w = createWitness({ name: "w.example/w1", secret, logs: [{ vkey, hash: "sha256" }], state });
 * const lines = await w.addCheckpoint(body);
 * ```
 */
export function createWitness(o: WitnessOptions): Witness {
  const logs = new Map<string, { verifier: NoteVerifier; hasher: Hasher }>();
  for (const l of o.logs) {
    const k = parseVkey(l.vkey);
    if (k.type !== SIG_ED25519) {
      throw new C2spError("witness-log-key", `Cannot witness ${k.name}: its vkey is not Ed25519`);
    }
    if (logs.has(k.name)) {
      throw new C2spError("witness-log-key", `Cannot witness ${k.name}: configured twice`);
    }
    logs.set(k.name, { verifier: verifierFromVkey(k), hasher: HASHERS[l.hash] });
  }
  const signer = cosignatureSigner(o.name, o.secret, o.now);
  const vkey = cosignatureVkey(o.name, o.secret);
  const enc = new TextEncoder();

  return {
    vkey,
    name: o.name,
    origins: [...logs.keys()],
    latest: async (origin) => (await o.state.get(origin))?.note,
    async addCheckpoint(body) {
      const req = parseAddCheckpoint(body);
      let text: string;
      try {
        text = parseNote(req.checkpoint).text;
      } catch (e) {
        throw new WitnessRefusal(
          "witness-bad-checkpoint",
          `Cannot parse the checkpoint: ${(e as Error).message}`,
        );
      }
      let cp;
      try {
        cp = parseCheckpoint(text);
      } catch (e) {
        throw new WitnessRefusal(
          "witness-bad-checkpoint",
          `Cannot parse the checkpoint: ${(e as Error).message}`,
        );
      }
      const log = logs.get(cp.origin);
      // "If the checkpoint origin is unknown, the witness MUST respond with a 404 Not Found"
      if (!log) {
        throw new WitnessRefusal(
          "witness-unknown-origin",
          `Cannot cosign: this witness does not witness ${cp.origin}`,
        );
      }
      // "MUST verify the checkpoint signature against the public key(s) it trusts for the
      // checkpoint origin, and it MUST ignore signatures from unknown keys ... 403 Forbidden"
      let opened;
      try {
        opened = await openNote(req.checkpoint, [log.verifier]);
      } catch (e) {
        throw new WitnessRefusal(
          "witness-bad-signature",
          `Cannot cosign: the checkpoint is not validly signed by ${cp.origin}'s key (${
            (e as Error).message
          })`,
        );
      }
      const textBytes = enc.encode(opened.text);
      const logLines = opened.verified.map((v) => formatSignatureLine(v.signature)).join("");
      for (let i = 0; i < CAS_TRIES; i++) {
        const prev = await o.state.get(cp.origin);
        try {
          checkAdvance(log.hasher, req, cp, prev);
        } catch (e) {
          if (e instanceof WitnessRefusal) o.onRefusal?.(cp.origin, e);
          throw e;
        }
        const line = formatSignatureLine({
          name: signer.name,
          keyId: signer.keyId,
          sig: signer.sign(textBytes),
        });
        const note = enc.encode(`${opened.text}\n${logLines}${line}`);
        // "The witness MUST persist the new checkpoint before responding" (atomically with the
        // old-size check: the swap happens only if the record is still `prev`).
        if (await o.state.compareAndSwap(cp.origin, prev, { size: cp.size, root: cp.root, note })) {
          return line;
        }
      }
      throw new Error(`Cannot cosign ${cp.origin}: the state kept changing (${CAS_TRIES} tries)`);
    },
  };
}
