// `deno task client <command>`: the log's client, its monitor, and the tools to make test receipts
// (README "Client and monitor", "Making receipts"). The command table is client/commands/
// (one row per command: its declaration, cli/args.ts, and what it runs).
// Exit status: 0 ok, 1 HTTP or file error, 2 usage, 3 a check failed (a server answer that does
// not prove what it claims; a monitor alarm; a core the verifier would refuse), 4 the server
// misbehaved at the transport level (net/ NetError: timeout, oversize body, redirect loop, bad
// UTF-8/JSON, no connection; docs/CLIENTS.md). Every request goes through net/, with the deadlines
// of JC_CONNECT_TIMEOUT_MS, JC_TIMEOUT_MS, JC_MAX_REDIRECTS. `prove` and `monitor` verify from the
// log's tiles when it publishes them (--source auto), else through the API. 5 (--policy FILE) a
// checkpoint below the C2SP tlog-policy quorum (docs/WITNESS.md).
import { type CommandSpec, runCommand, UsageError } from "../cli/mod.ts";
import { isNetError } from "../net/mod.ts";
import { EntryNotFound, HttpError, VerificationFailure } from "./client.ts";
import { SealRefused } from "./seal.ts";
import { BelowQuorum } from "./policy.ts";
import { type ClientEnv, COMMANDS, EXIT, EXITS } from "./commands/mod.ts";

export {
  type ClientEnv,
  defaultStatePath,
  EXIT,
  knownOperatorsPath,
  proveTarget,
} from "./commands/mod.ts";

const TOP: CommandSpec = {
  name: "deno task client",
  args: "<command>",
  summary: "The log's client (it trusts nothing the server says: every head, inclusion and " +
    "consistency proof is checked), its monitor, and the tools to make test receipts.\n\n" +
    "Commands:\n" +
    Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(13)}${c.brief}`).join("\n") +
    "\n\n`deno task client <command> --help` describes each command's arguments.",
  options: [],
  positionals: [1, Infinity],
  footer: EXITS,
};

/** Runs the CLI with `args`; returns the exit status. */
export async function main(
  args: string[],
  e: ClientEnv = { env: Deno.env.toObject(), cwd: Deno.cwd() },
): Promise<number> {
  const name = args[0];
  const cmd = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) {
    // Not a command: --help, nothing, an unknown option or an unknown command.
    return await runCommand(args, TOP, (p) => {
      throw new UsageError(`unknown command ${JSON.stringify(p.positional[0])}`);
    });
  }
  return await runCommand(args.slice(1), cmd.spec, async (p) => {
    try {
      return await cmd.run(p, e);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      if (err instanceof BelowQuorum) {
        console.error(`BELOW QUORUM: ${err.message}`);
        return EXIT.belowQuorum;
      }
      if (err instanceof VerificationFailure || err instanceof SealRefused) {
        console.error(`CHECK FAILED: ${err.message}`);
        return EXIT.check;
      }
      if (isNetError(err)) {
        console.error(`NET ${err.code}: ${err.message}`);
        return EXIT.net;
      }
      if (err instanceof HttpError || err instanceof EntryNotFound) {
        console.error(err.message);
        return EXIT.error;
      }
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.AlreadyExists) {
        console.error(`Cannot run ${name}: ${(err as Error).message}`);
        return EXIT.error;
      }
      if (err instanceof Error && (err.name === "CborError" || err.name === "VerifyInputError")) {
        // A typed refusal of verify/ (CborError, VerifyInputError): the verifier's code.
        console.error(`CHECK FAILED: ${err.message} [${(err as { code?: string }).code}]`);
        return EXIT.check;
      }
      console.error(`Cannot run ${name}: ${(err as Error).message}`);
      return EXIT.error;
    }
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args));
