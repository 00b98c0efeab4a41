// `deno task verify [options] <file|->` — verifies one JouleClaw receipt envelope offline (JCR-1 §6)
// and prints the verification report (API.md). Exit status: 0 for a verdict other than invalid
// (valid, joule-unverified, alert: verify/verdict_class.ts), 1 invalid, 2 unusable input
// (unreadable file, not an envelope encoding, bad flags or operator config).
//
// This entry point is the one file of verify/ that touches Deno I/O; the verifier itself is pure.

import {
  type CommandSpec,
  flag,
  list,
  parseArgs as parseCommandArgs,
  type ParsedArgs,
  resolveFromCaller,
  str,
  UsageError,
} from "../cli/mod.ts";
import { fromHex, toHex } from "./bytes.ts";
import { envelopeFromInput } from "./envelope_input.ts";
import { VerifyInputError } from "./errors.ts";
import { KeyDirectory } from "./key_directory.ts";
import { mergeOptions, optionsFromConfig } from "./operator_config.ts";
import { parsePolicy, policyDigest, PolicyError } from "./policy_digest.ts";
import { type VerifierOptions, verifyEnvelope } from "./report.ts";

export { envelopeFromInput };

/** The --help text (every flag documented). */
export const HELP = `Usage: deno task verify [options] <file | ->

Verifies one COSE_Sign1 receipt envelope (JCR-1 §6) and prints the verification report as JSON.
The input (a file, or - for stdin) may be the raw envelope bytes, the envelope as hex text, or
the JSON {"envelope": "<hex>"} that POST /v1/verify accepts.

Operator configuration (all optional; flags add to, and override entries of, --config):
  --config FILE          JSON file: {"gateway_keys": {id: hex}, "keys": {kid: hex|did:key},
                         "reference_vectors": {input_hash: {"joules_uj": n}}, "policies": [policy]}
                         (conformance/vectors/operator-config.json is an example)
  --gateway-key ID=HEX   HMAC key of gateway ID for tool receipts (JCR-1 §5); repeatable
  --key KID=KEY          public key for a kid that is not a did:key: 64 hex (Ed25519), 66 or
                         130 hex (P-256, SEC 1 compressed or uncompressed), or a did:key,
                         e.g. a KERI AID (JCR-1 §4); repeatable
  --reference HASH=UJ    reference joules for an input_hash, enabling the drift-band check
                         (JCR-1 §6 step 6, §7.1); repeatable
  --policy FILE          a policy JSON document the caller vouches for; a policy receipt's
                         policy_digest must be its SPEC §10.1 digest; repeatable
Other:
  --pure-ed25519         verify with the pure-JS Ed25519 path instead of WebCrypto
  --pure-es256           verify with the pure-JS ES256 (P-256) path instead of WebCrypto
  --compact              print the report on one line
  -h, --help             this text

Exit status: 0 valid, joule-unverified or alert (the report's verdict), 1 invalid (the report
says why), 2 unusable input.
`;

/** The I/O the CLI needs (injected, so tests run it in-process). */
export interface CliIo {
  readFile(path: string): Promise<Uint8Array>;
  readStdin(): Promise<Uint8Array>;
  out(text: string): void;
  err(text: string): void;
}

/** Input larger than this is refused before parsing (exit 2). */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** A usage error in the arguments themselves: the usage follows the message on stderr. */
class ArgumentError extends UsageError {}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function splitPair(flag: string, v: string): [string, string] {
  const i = v.lastIndexOf("=");
  if (i <= 0 || i === v.length - 1) {
    throw new UsageError(`Cannot parse ${flag}: expected NAME=VALUE, got ${JSON.stringify(v)}`);
  }
  return [v.slice(0, i), v.slice(i + 1)];
}

interface Parsed {
  input?: string;
  help: boolean;
  compact: boolean;
  configFile?: string;
  policyFiles: string[];
  flags: VerifierOptions;
}

/** The options of the command (cli/args.ts parses them; HELP above describes them). */
export const VERIFY: CommandSpec = {
  name: "deno task verify",
  args: "<file | ->",
  summary: "Verifies one COSE_Sign1 receipt envelope (JCR-1 §6).",
  positionals: [0, Infinity], // exactly one, checked below with its own message
  options: [
    { name: "config", value: "FILE", help: "operator configuration JSON" },
    { name: "gateway-key", value: "ID=HEX", repeat: true, help: "gateway HMAC key" },
    { name: "key", value: "KID=KEY", repeat: true, help: "public key of a kid" },
    { name: "reference", value: "HASH=UJ", repeat: true, help: "reference joules" },
    { name: "policy", value: "FILE", repeat: true, help: "a policy the caller vouches for" },
    { name: "pure-ed25519", help: "pure-JS Ed25519" },
    { name: "pure-es256", help: "pure-JS ES256" },
    { name: "compact", help: "one line" },
  ],
};

function parseArgs(args: string[]): Parsed {
  let a: ParsedArgs;
  try {
    a = parseCommandArgs(args, VERIFY);
  } catch (e) {
    if (e instanceof UsageError) {
      throw new ArgumentError(`Cannot parse arguments: ${e.message}`);
    }
    throw e;
  }
  const p: Parsed = {
    help: a.help,
    compact: flag(a, "compact"),
    configFile: str(a, "config"),
    policyFiles: list(a, "policy"),
    flags: {},
  };
  if (a.help) return p;
  if (flag(a, "pure-ed25519")) p.flags.pureEd25519 = true;
  if (flag(a, "pure-es256")) p.flags.pureEs256 = true;
  if (a.positional.length > 1) {
    throw new ArgumentError("Cannot parse arguments: exactly one input (file or -) is accepted");
  }
  p.input = a.positional[0];
  const gw: Record<string, Uint8Array> = {};
  const keys: Record<string, string> = {};
  const refs: Record<string, { joules_uj: bigint }> = {};
  for (const v of list(a, "gateway-key")) {
    const [id, hex] = splitPair("--gateway-key", v);
    gw[id] = fromHex(hex.toLowerCase());
  }
  for (const v of list(a, "key")) {
    const [kid, key] = splitPair("--key", v);
    keys[kid] = key;
  }
  for (const v of list(a, "reference")) {
    const [h, uj] = splitPair("--reference", v);
    if (!/^[0-9a-f]{64}$/.test(h)) {
      throw new UsageError(
        `Cannot parse --reference: ${JSON.stringify(h)} is not a 64-hex input_hash`,
      );
    }
    if (!/^(0|[1-9][0-9]*)$/.test(uj) || BigInt(uj) >= 1n << 64n) {
      throw new UsageError(`Cannot parse --reference: ${JSON.stringify(uj)} is not a u64`);
    }
    refs[h] = { joules_uj: BigInt(uj) };
  }
  if (Object.keys(gw).length) p.flags.gatewayKeys = gw;
  if (Object.keys(keys).length) p.flags.keys = new KeyDirectory(keys);
  if (Object.keys(refs).length) p.flags.referenceVectors = refs;
  return p;
}

async function readJson(io: CliIo, path: string, what: string): Promise<unknown> {
  const bytes = await io.readFile(path);
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch (e) {
    throw new UsageError(`Cannot read ${what} ${path}: not JSON (${(e as Error).message})`);
  }
}

function jsonReplacer(_k: string, v: unknown): unknown {
  return typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? toHex(v) : v;
}

/**
 * Runs the CLI with the given arguments and I/O; resolves the exit status (0 any verdict but
 * invalid, 1 invalid, 2 unusable input).
 *
 * @example
 * ```ts
 * Deno.exit(await runCli(Deno.args, denoIo));
 * ```
 */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  let opts: VerifierOptions;
  let envelope: Uint8Array;
  let compact = false;
  try {
    const p = parseArgs(args);
    if (p.help) {
      io.out(HELP);
      return 0;
    }
    compact = p.compact;
    if (p.input === undefined) {
      throw new ArgumentError("Cannot parse arguments: no input given (a file, or - for stdin)");
    }
    const layers: VerifierOptions[] = [];
    if (p.configFile) layers.push(optionsFromConfig(await readJson(io, p.configFile, "config")));
    if (p.policyFiles.length) {
      const policies: Record<string, unknown> = {};
      for (const f of p.policyFiles) {
        const policy = parsePolicy(await readJson(io, f, "policy"));
        policies[policyDigest(policy)] = policy;
      }
      layers.push({ policies });
    }
    layers.push(p.flags);
    opts = mergeOptions(...layers);
    const input = p.input === "-" ? await io.readStdin() : await io.readFile(p.input);
    if (input.length > MAX_INPUT_BYTES) {
      throw new UsageError(
        `Cannot read envelope: input is ${input.length} bytes, over ${MAX_INPUT_BYTES}`,
      );
    }
    envelope = envelopeFromInput(input);
  } catch (e) {
    if (e instanceof UsageError || e instanceof VerifyInputError || e instanceof PolicyError) {
      io.err(`${e.message}${"code" in e ? ` [${(e as { code: string }).code}]` : ""}\n`);
      if (e instanceof ArgumentError) io.err(`\n${HELP}`);
      return 2;
    }
    if (
      e instanceof Deno.errors.NotFound || e instanceof Deno.errors.PermissionDenied ||
      e instanceof Deno.errors.IsADirectory
    ) {
      io.err(`Cannot read input: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
  const report = await verifyEnvelope(envelope, opts);
  io.out(JSON.stringify(report, jsonReplacer, compact ? undefined : 2) + "\n");
  return report.valid ? 0 : 1;
}

function writeAll(w: { writeSync(b: Uint8Array): number }, t: string): void {
  const b = new TextEncoder().encode(t);
  for (let o = 0; o < b.length;) o += w.writeSync(b.subarray(o));
}

/** The real process I/O. */
export const denoIo: CliIo = {
  // File arguments are the caller's: `deno task` runs in the project root (cli/args.ts).
  readFile: (path) => Deno.readFile(resolveFromCaller(path, Deno.env.toObject(), Deno.cwd())),
  readStdin: async () => new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer()),
  out: (t) => writeAll(Deno.stdout, t),
  err: (t) => writeAll(Deno.stderr, t),
};

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, denoIo));
}
