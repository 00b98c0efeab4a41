// `client keygen --rotation` (issue 25; docs/KEYS.md; JCP §2.1 pre-committed rotation): an
// identity's key files and the key events that move them. FILE is the current key, FILE.next the
// pre-committed next key (its BLAKE3 is the last event's next_hash), FILE.chain.json the chain as
// the client sealed it ({identity, seq, parent: the last event's content id}); each event is
// sealed to FILE.event-N.cose for `client key-event`. A rotation retires FILE to FILE.retired-N.
import {
  blake3,
  type CborMap,
  ed25519GenerateSecret,
  ed25519PublicKey,
  readJcpObject,
  sealJcpObject,
  toHex,
} from "../verify/mod.ts";
import { keyFileText, keyScheme, parseKeyFile } from "./seal.ts";

/** What a keygen --rotation step made. */
export interface RotationStep {
  identity: string;
  seq: number;
  current: string;
  /** The sealed key event, for `client key-event`. */
  event: string;
  /** The pre-committed next key's file. */
  next_key: string;
}

interface ChainFile {
  identity: string;
  seq: number;
  parent: string;
}

const nonce = () => crypto.getRandomValues(new Uint8Array(16));

/** Seals event `seq` signed by `secret` (its current key), pre-committing `nextSecret`. */
function sealEvent(
  identity: string,
  seq: number,
  secret: Uint8Array,
  nextSecret: Uint8Array,
  parent: Uint8Array | undefined,
): { envelope: Uint8Array; cid: Uint8Array } {
  const current = keyScheme("EdDSA").fromSecret(secret).kid;
  const core = new Map<string, unknown>([
    ["identity", identity],
    ["seq", seq],
    ["current", current],
    ["next_hash", blake3(ed25519PublicKey(nextSecret))],
    ["nonce", nonce()],
  ]);
  if (parent) core.set("parent", parent);
  const envelope = sealJcpObject(core as CborMap, secret);
  return { envelope, cid: readJcpObject(envelope)!.contentId };
}

async function exists(file: string): Promise<boolean> {
  try {
    await Deno.lstat(file);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

const writeKey = async (file: string, secret: Uint8Array) => {
  await Deno.writeTextFile(file, keyFileText(keyScheme("EdDSA").fromSecret(secret)), {
    createNew: true,
    mode: 0o600,
  });
  await Deno.chmod(file, 0o600);
};

/**
 * A new identity at `file` (which must not exist): its key, the pre-committed next key, and the
 * inception event (seq 0, current = identity, JCP §2.1).
 */
export async function incept(file: string): Promise<RotationStep> {
  const secret = ed25519GenerateSecret(), next = ed25519GenerateSecret();
  const identity = keyScheme("EdDSA").fromSecret(secret).kid;
  const { envelope, cid } = sealEvent(identity, 0, secret, next, undefined);
  await writeKey(file, secret);
  await writeKey(`${file}.next`, next);
  await Deno.writeFile(`${file}.event-0.cose`, envelope, { createNew: true });
  const chain: ChainFile = { identity, seq: 0, parent: toHex(cid) };
  await Deno.writeTextFile(`${file}.chain.json`, JSON.stringify(chain) + "\n");
  return {
    identity,
    seq: 0,
    current: identity,
    event: `${file}.event-0.cose`,
    next_key: `${file}.next`,
  };
}

/**
 * The next rotation of the identity at `file`: event N+1 signed by the pre-committed key
 * (FILE.next), which becomes the current key; a fresh key is pre-committed; the old current key
 * is kept as FILE.retired-N. New files are written first and renamed last.
 */
export async function rotate(file: string): Promise<RotationStep> {
  const chain = JSON.parse(await Deno.readTextFile(`${file}.chain.json`)) as ChainFile;
  const next = parseKeyFile(await Deno.readTextFile(`${file}.next`));
  if (next.alg !== "EdDSA") throw new Error(`Cannot rotate: ${file}.next is not an Ed25519 key`);
  const fresh = ed25519GenerateSecret();
  const seq = chain.seq + 1;
  const parent = Uint8Array.from(chain.parent.match(/../g)!.map((h) => parseInt(h, 16)));
  const { envelope, cid } = sealEvent(chain.identity, seq, next.secret, fresh, parent);
  const event = `${file}.event-${seq}.cose`;
  await Deno.writeFile(event, envelope, { createNew: true });
  await writeKey(`${file}.next.new`, fresh);
  const retired = `${file}.retired-${chain.seq}`;
  if (await exists(retired)) throw new Error(`Cannot rotate: ${retired} exists`);
  await Deno.rename(file, retired);
  await Deno.rename(`${file}.next`, file);
  await Deno.rename(`${file}.next.new`, `${file}.next`);
  const out: ChainFile = { identity: chain.identity, seq, parent: toHex(cid) };
  await Deno.writeTextFile(`${file}.chain.json.new`, JSON.stringify(out) + "\n");
  await Deno.rename(`${file}.chain.json.new`, `${file}.chain.json`);
  return { identity: chain.identity, seq, current: next.kid, event, next_key: `${file}.next` };
}

/** keygen --rotation: a new identity when FILE does not exist, else its next rotation. */
export async function keygenRotation(file: string): Promise<RotationStep> {
  return (await exists(file)) ? await rotate(file) : await incept(file);
}
