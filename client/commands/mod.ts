// The client's command table (client/main.ts runs it): one row per command, its declaration
// (cli/args.ts: parser and --help text come from it) and what it runs, in the order --help lists
// them.
import type { Command } from "./common.ts";
import { LOG_COMMANDS } from "./log.ts";
import { WATCH_COMMANDS } from "./watch.ts";
import { RECEIPT_COMMANDS } from "./receipts.ts";
import { GRANT_COMMANDS } from "./grants.ts";
import { KEY_COMMANDS } from "./keys.ts";

export {
  type ClientEnv,
  type Command,
  defaultStatePath,
  EXIT,
  EXITS,
  knownOperatorsPath,
} from "./common.ts";
export { proveTarget } from "./log.ts";

/** Every command, by name. */
export const COMMANDS: Record<string, Command> = {
  ...LOG_COMMANDS,
  ...WATCH_COMMANDS,
  ...RECEIPT_COMMANDS,
  ...GRANT_COMMANDS,
  ...KEY_COMMANDS,
};
