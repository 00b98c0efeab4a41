// The command line of `deno task start` (api/deno/main.ts), declared once for cli/'s parser: `--help`
// prints the usage (the settings and where they are documented) and exits 0 before anything is
// created (no data directory, no key); an unknown option is a usage error (stderr, exit 2).
// Issue 28: `--help` once started a server (edge/main.ts does the same for `deno task edge`).
import type { CommandSpec } from "../../cli/mod.ts";

/** `deno task start`: the embedded service. */
export const START_COMMAND: CommandSpec = {
  name: "deno task start",
  summary: "Runs the JouleClaw transparency-log service: verifies receipts and appends them to a " +
    "signed, append-only Merkle log kept in SQLite under DATA_DIR, generating the log key on " +
    "first start. Prints one JSON line when it listens " +
    '({"listening": URL, "signer": did:key, "pid": n}); SIGINT or SIGTERM (to it or to the ' +
    "`deno task` / `npx` that started it) stop it gracefully.",
  options: [
    { name: "config", value: "FILE", help: "a JSON config file (also JC_CONFIG=FILE)" },
  ],
  footer: `Settings: defaults < config file < environment. The usual ones:
  HOST          address to listen on (default 127.0.0.1; 0.0.0.0 serves other machines)
  PORT          TCP port (default 8080; 0 picks one)
  DATA_DIR      the data directory (default ./data); one service per directory (locked)
  JC_KEY_FILE   the log key (default <DATA_DIR>/log-key.hex)
  JC_STORE      sqlite (default) or memory (nothing written)
  JC_LOG_NAME   the log's name, fixed at first start
Every setting, its config-file key and environment variable, and the HTTP error codes:
docs/CONFIG.md; running, backing up and restoring: docs/OPERATIONS.md.
Exit status: 0 stopped cleanly, 1 could not start (the reason on stderr), 2 usage.`,
};
