// The receipt commands of `deno task client` (client/main.ts): check a tlog-proof of a receipt
// offline, make a steward key, seal a core into a COSE_Sign1 receipt.
import { verifyEnvelope } from "../../verify/mod.ts";
import { flag, num, str, UsageError } from "../../cli/mod.ts";
import { verifyProofCommand } from "../tile_commands.ts";
import { directoryFromFile, logKeyForProof, serviceDirectory } from "../shard_commands.ts";
import { keyFileText, keyScheme, parseKeyFile, sealCore } from "../seal.ts";
import { verifyProofPolicyCommand } from "../policy.ts";
import { keygenRotation } from "../key_rotation.ts";
import {
  type Command,
  EXIT,
  EXITS,
  flagsOf,
  OPERATOR_OPT,
  out,
  path,
  shardCtxOf,
} from "./common.ts";

/** Rows of the client's command table (client/commands/mod.ts). */
export const RECEIPT_COMMANDS: Record<string, Command> = {
  "verify-proof": {
    brief: "check a c2sp.org/tlog-proof@v1 of a receipt offline (--log-key VKEY)",
    spec: {
      name: "deno task client verify-proof",
      args: "RECEIPT PROOF",
      summary: "Checks, offline, that PROOF (a c2sp.org/tlog-proof@v1, as `prove --tlog-proof` " +
        'writes it) proves RECEIPT (its envelope: raw bytes, hex or {"envelope": hex}, as submit reads it) ' +
        "included in the log whose vkey is --log-key, and, with --witness, cosigned by at " +
        "least --quorum of the witnesses. Of a sharded service, the log's key may come from its " +
        "shard directory instead (--url, or --directory with --operator-key): the shard whose " +
        "log name is the proof's checkpoint origin.",
      options: [
        { name: "log-key", value: "VKEY", help: "the log's vkey (required)" },
        { name: "witness", value: "VKEY[,VKEY]", help: "witness vkeys" },
        { name: "quorum", value: "K", help: "witness cosignatures required (default 0)" },
        {
          name: "policy",
          value: "FILE",
          help: "a C2SP tlog-policy instead of --log-key/--witness/--quorum; below quorum: exit 5",
        },
        {
          name: "url",
          value: "URL",
          help: "instead of --log-key: the service whose shard directory names the proof's log " +
            "(by its checkpoint's origin; online)",
        },
        {
          name: "directory",
          value: "FILE",
          help: "instead of --log-key, offline: a saved GET /v1/logs (mirror's DIR/v1/logs), " +
            "opened with --operator-key",
        },
        OPERATOR_OPT,
      ],
      positionals: [2, 2],
      footer: EXITS,
    },
    async run(p, e) {
      const [receipt, proof] = p.positional;
      const policy = str(p, "policy");
      if (policy) {
        return await verifyProofPolicyCommand(path(receipt, e), path(proof, e), path(policy, e));
      }
      let flags = flagsOf(p);
      // docs/CLIENTS.md "Shards": the proof's origin names its shard; its key from the directory.
      const url = str(p, "url"), file = str(p, "directory");
      if (!str(p, "log-key") && (url || file)) {
        const ctx = shardCtxOf(p, e, url);
        if (file && !ctx.operatorKey) throw new UsageError("--directory needs --operator-key");
        const d = file
          ? await directoryFromFile(path(file, e), ctx.operatorKey!)
          : (await serviceDirectory(ctx))?.directory;
        if (!d) throw new Error(`Cannot find the proof's log: ${url} publishes no shard directory`);
        flags = {
          ...flags,
          "log-key": logKeyForProof(await Deno.readTextFile(path(proof, e)), d).vkey,
        };
      }
      if (!flags["log-key"]) {
        throw new UsageError("--log-key VKEY (or --url, --directory, --policy) is required");
      }
      num(p, "quorum", 0, 0);
      return await verifyProofCommand(path(receipt, e), path(proof, e), flags);
    },
  },
  keygen: {
    brief: "make a steward key (--out FILE); prints its did:key",
    spec: {
      name: "deno task client keygen",
      summary: "Makes a steward signing key for testing a runtime: writes it to FILE (mode 0600, " +
        "never over an existing file) and prints its did:key, the kid and steward of what " +
        "`client seal` signs with it.",
      options: [
        { name: "out", value: "FILE", help: "where to write the key (required)" },
        { name: "alg", value: "ALG", help: "EdDSA (default) or ES256" },
        {
          name: "rotation",
          help: "an identity that rotates (JCP §2.1; docs/KEYS.md): a new FILE gets FILE.next, " +
            "the pre-committed next key, and the inception event FILE.event-0.cose; an existing " +
            "one rotates: FILE.next signs event N (FILE.event-N.cose) and becomes FILE, a fresh " +
            "FILE.next is pre-committed, the old key is kept as FILE.retired-(N-1). Send the " +
            "event with `client key-event`. Prints {identity, seq, current, event, next_key}.",
        },
      ],
      footer: "Exit status: 0 ok, 1 the file exists or cannot be written, 2 usage.",
    },
    async run(p, e) {
      const file = str(p, "out");
      if (!file) throw new UsageError("--out FILE is required");
      if (flag(p, "rotation")) {
        if (str(p, "alg") && str(p, "alg") !== "EdDSA") {
          throw new UsageError("--rotation keys are EdDSA (JCP §2: every actor is Ed25519)");
        }
        out(await keygenRotation(path(file, e)));
        return EXIT.ok;
      }
      const alg = str(p, "alg") ?? "EdDSA";
      if (alg !== "EdDSA" && alg !== "ES256") {
        throw new UsageError(`--alg must be EdDSA or ES256, got ${JSON.stringify(alg)}`);
      }
      let scheme;
      try {
        scheme = keyScheme(alg);
      } catch (err) {
        console.error((err as Error).message);
        return EXIT.error;
      }
      const key = scheme.generate();
      await Deno.writeTextFile(path(file, e), keyFileText(key), { createNew: true, mode: 0o600 });
      await Deno.chmod(path(file, e), 0o600); // whatever the umask
      console.log(key.kid);
      return EXIT.ok;
    },
  },
  seal: {
    brief: "seal a core (JSON projection) into a COSE_Sign1 receipt (--key FILE)",
    spec: {
      name: "deno task client seal",
      args: "CORE.json",
      summary:
        "Seals a signed core, given as its JSON projection (the `receipt` of a verification " +
        "report: integers as numbers, a u64 above 2^53 - 1 as a decimal string), into a " +
        "COSE_Sign1 envelope with the canonical det-CBOR core, signed with --key. Refuses what " +
        "the verifier would refuse (default configuration), with the verifier's reason codes.",
      options: [
        { name: "key", value: "FILE", help: "the key `client keygen` wrote (required)" },
        {
          name: "out",
          value: "FILE",
          help: "write the envelope's bytes here (default: hex on stdout)",
        },
      ],
      positionals: [1, 1],
      footer: "Exit status: 0 sealed, 1 a file cannot be read or written, 2 usage, " +
        "3 refused (the verifier's codes on stderr).",
    },
    async run(p, e) {
      const keyFile = str(p, "key");
      if (!keyFile) throw new UsageError("--key FILE is required");
      const key = parseKeyFile(await Deno.readTextFile(path(keyFile, e)));
      const coreFile = path(p.positional[0], e);
      let projection: unknown;
      try {
        projection = JSON.parse(await Deno.readTextFile(coreFile));
      } catch (err) {
        if (err instanceof SyntaxError) {
          throw new UsageError(`${p.positional[0]} is not JSON: ${err.message}`);
        }
        throw err;
      }
      const { envelope, report } = await sealCore(
        projection,
        key,
        (env) => verifyEnvelope(env),
      );
      const outFile = str(p, "out");
      if (outFile) {
        await Deno.writeFile(path(outFile, e), envelope);
        out({ out: outFile, schema: report.schema, leaf_hash: report.leaf_hash, valid: true });
      } else console.log(Array.from(envelope, (b) => b.toString(16).padStart(2, "0")).join(""));
      return EXIT.ok;
    },
  },
};
