// The grant commands of `deno task client` (client/main.ts; issue 25, docs/GRANTS.md): seal a JCP
// §4 grant or a §4.3 revocation with a key `client keygen` wrote (--make), and log one
// (POST /v1/grants, POST /v1/revocations) with its answer checked like `submit`'s: the leaf hash
// is the envelope's, the head is signed by the log key, the inclusion proof closes.
import { num, type ParsedArgs, str, UsageError } from "../../cli/mod.ts";
import {
  blake3,
  type CborMap,
  HEX64,
  readJcpObject,
  sealJcpObject,
  toHex,
} from "../../verify/mod.ts";
import { LogClient } from "../client.ts";
import { readEnvelopeFile } from "../envelope_file.ts";
import { parseKeyFile } from "../seal.ts";
import {
  type ClientEnv,
  type Command,
  EXIT,
  EXITS,
  netOf,
  out,
  path,
  URL_OPTS,
  urlOf,
} from "./common.ts";

const MAKE = { name: "make", help: "seal one from the options instead of logging FILE" };
const KEY = { name: "key", value: "FILE", help: "--make: the signer's key (`client keygen`)" };
const OUT = { name: "out", value: "FILE", help: "--make: write the envelope here (default: hex)" };

function hex64(p: ParsedArgs, name: string): string | undefined {
  const v = str(p, name);
  if (v !== undefined && !HEX64.test(v)) throw new UsageError(`--${name} must be 64 lowercase hex`);
  return v;
}

/** An integer option >= 0 (JCP §3: no floats in a signed core). */
function uint(p: ParsedArgs, name: string): number {
  const n = num(p, name, 0, 0);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} must be an integer`);
  return n;
}

/** A random JCP nonce: bytes(16). */
function nonce(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(16));
}

/** Seals `core` with --key and writes it (--out) or prints its hex; prints its content id. */
async function seal(p: ParsedArgs, e: ClientEnv, core: CborMap, signerField: string) {
  const file = str(p, "key");
  if (!file) throw new UsageError("--make needs --key FILE");
  const key = parseKeyFile(await Deno.readTextFile(path(file, e)));
  if (key.alg !== "EdDSA") throw new UsageError("JCP §2: every actor is an Ed25519 key");
  core.set(signerField, key.kid);
  const envelope = sealJcpObject(core, key.secret); // canonical det-CBOR (JCP §3)
  const dest = str(p, "out");
  if (dest) await Deno.writeFile(path(dest, e), envelope, { createNew: true });
  // JCP §3: the content id of the object's canonical bytes (a grant's grant_id)
  const id = toHex(blake3(readJcpObject(envelope)!.payload));
  out({ id, signer: key.kid, ...(dest ? {} : { envelope: toHex(envelope) }) });
  return EXIT.ok;
}

/** Logs FILE at `route`; prints the checked answer. */
async function logFile(p: ParsedArgs, e: ClientEnv, route: string) {
  const file = p.positional[0];
  if (!file) throw new UsageError("give FILE (or --make)");
  const envelope = await readEnvelopeFile(path(file, e));
  const client = new LogClient(urlOf(p, e), str(p, "signer"), fetch, netOf(e));
  const a = await client.submit(envelope, route) as unknown as Record<string, unknown>;
  if (a.already_revoked === true) {
    // a second revocation of a revoked grant: the first one's entry, proven here
    const first = readJcpObject(await client.entryBytes(a.index as number));
    const mine = readJcpObject(envelope)!;
    if (first?.kind !== "revocation" || first.core.get("grant_id") !== mine.core.get("grant_id")) {
      throw new Error(`Cannot trust the answer: entry ${a.index} is not a revocation of the grant`);
    }
    const proof = await client.prove(a.index as number);
    out({ index: a.index, grant_id: a.grant_id, already_revoked: true, tree_size: proof.size });
    return EXIT.ok;
  }
  const { tree_head, inclusion_proof: _p, ...rest } = a;
  out({ ...rest, tree_size: (tree_head as { size: number }).size, verified: true });
  return EXIT.ok;
}

/** Rows of the client's command table (client/commands/mod.ts). */
export const GRANT_COMMANDS: Record<string, Command> = {
  grant: {
    brief: "log a JCP grant (FILE), or seal one (--make --key FILE --subject DID ...)",
    spec: {
      name: "deno task client grant",
      args: "[FILE]",
      summary: "Logs a JCP §4 grant (a COSE_Sign1 envelope: raw bytes, hex or " +
        '{"envelope": hex}) through POST /v1/grants and prints {index, grant_id, ' +
        "tree_size, verified}, the answer checked like `submit`'s. With --make, seals a grant " +
        "instead, signed by --key as its issuer, and prints {id, signer, envelope} (id: its " +
        "grant_id, JCP §3). A delegated grant (--parent) is logged after its parent only.",
      options: [
        ...URL_OPTS,
        MAKE,
        KEY,
        OUT,
        { name: "subject", value: "DID", help: "--make: who holds it (did:key)" },
        { name: "resource", value: "HEX", help: "--make: the resource's content id" },
        { name: "actions", value: "A[,B]", help: "--make: the actions (default read)" },
        { name: "budget-uj", value: "N", help: "--make: the joule ceiling (required)" },
        { name: "expiry", value: "SECONDS", help: "--make: unix seconds, 0 never (default 0)" },
        { name: "parent", value: "GRANT_ID", help: "--make: the grant it narrows" },
        { name: "delegate-depth", value: "N", help: "--make: further hops (absent: unlimited)" },
      ],
      positionals: [0, 1],
      footer: EXITS,
    },
    async run(p, e) {
      if (!p.options.make === true) return await logFile(p, e, "/v1/grants");
      const subject = str(p, "subject"), resource = hex64(p, "resource");
      if (!subject?.startsWith("did:key:") || !resource) {
        throw new UsageError("--make needs --subject DID and --resource HEX");
      }
      if (str(p, "budget-uj") === undefined) throw new UsageError("--make needs --budget-uj N");
      const actions = (str(p, "actions") ?? "read").split(",").filter((a) => a);
      const core = new Map<string, unknown>([
        ["subject", subject],
        ["capability", new Map<string, unknown>([["resource", resource], ["actions", actions]])],
        ["budget_uj", uint(p, "budget-uj")],
        ["expiry", uint(p, "expiry")],
        ["nonce", nonce()],
      ]) as CborMap;
      const parent = hex64(p, "parent");
      if (parent) core.set("parent", parent);
      if (str(p, "delegate-depth") !== undefined) {
        core.set("delegate_depth", uint(p, "delegate-depth"));
      }
      return await seal(p, e, core, "issuer");
    },
  },
  revoke: {
    brief: "log a JCP revocation (FILE), or seal one (--make --key FILE --grant ID)",
    spec: {
      name: "deno task client revoke",
      args: "[FILE]",
      summary: "Logs a JCP §4.3 revocation through POST /v1/revocations and prints {index, " +
        "grant_id, revoked_grant_index, tree_size, verified}: its index is the grant's " +
        "revocation marker. A grant already revoked answers the first revocation's index " +
        "(already_revoked, its inclusion proven). With --make, seals a revocation of --grant " +
        "instead, signed by --key (the grant's issuer), and prints {id, signer, envelope}.",
      options: [
        ...URL_OPTS,
        MAKE,
        KEY,
        OUT,
        { name: "grant", value: "GRANT_ID", help: "--make: the grant to revoke" },
      ],
      positionals: [0, 1],
      footer: EXITS,
    },
    async run(p, e) {
      if (!p.options.make === true) return await logFile(p, e, "/v1/revocations");
      const gid = hex64(p, "grant");
      if (!gid) throw new UsageError("--make needs --grant GRANT_ID");
      const core = new Map<string, unknown>([["grant_id", gid], ["nonce", nonce()]]) as CborMap;
      return await seal(p, e, core, "revoked_by");
    },
  },
};
