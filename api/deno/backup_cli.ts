// `deno task backup DATA_DIR DEST`: an online, consistent copy of everything a restore needs
// (api/deno/backup.ts), safe while the service appends and rotates, then proven. The files outside
// the data directory (the log key, its pin, the operator key, the witness key and pin) are found
// as the service finds them: the same `--config FILE` / JC_CONFIG and JC_* environment, each
// overridable by a flag (docs/OPERATIONS.md "Backup"). Prints a JSON report. Exit status: 0 copied
// and proven, 1 the copy does not prove itself, 2 usage or the source could not be read.
import { type CommandSpec, flag, resolveFromCaller, runCommand, str } from "../../cli/mod.ts";
import { backupDataDir } from "./backup.ts";
import { configuredPaths } from "./backup_layout.ts";

/** The path options shared with `deno task restore`. */
export const PATH_OPTIONS: CommandSpec["options"] = [
  {
    name: "config",
    value: "FILE",
    help: "the service's config file (else JC_CONFIG, as the service)",
  },
  {
    name: "key-file",
    value: "FILE",
    help: "the log key (default: key_file / JC_KEY_FILE, else DATA_DIR/log-key.hex)",
  },
  {
    name: "pin-file",
    value: "FILE",
    help: "its signed-head pin (default: pin_file / JC_PIN_FILE, else beside the key)",
  },
  {
    name: "pin-dir",
    value: "DIR",
    help:
      "where every shard's pin lives, DIR/sN.pin (default: pin_dir / JC_PIN_DIR, else beside each key)",
  },
  {
    name: "operator-key-file",
    value: "FILE",
    help: "the operator key (default: operator_key_file, else DATA_DIR/operator-key.hex)",
  },
  {
    name: "witness-key-file",
    value: "FILE",
    help:
      "the witness role's key, its pin beside it (default: witness.key_file, else DATA_DIR/witness-key.hex)",
  },
];

/** The command's declaration (its --help). */
export const BACKUP: CommandSpec = {
  name: "deno task backup",
  args: "DATA_DIR DEST",
  summary: "Copies everything a restore needs into DEST while the service runs: every shard's " +
    "store (SQLite VACUUM INTO: one consistent snapshot each; shards.json read before and after, " +
    "the copy taken again if a rotation happened meanwhile), shards.json, every key (log, shards', " +
    "operator, witness; mode 0600; --no-key leaves them out), every signed-head pin (read before " +
    "its store's snapshot) and the witness state, plus DEST/backup.json (what was copied, each " +
    "head, the pins seen). Files outside DATA_DIR are found as the service finds them (its config " +
    "file and JC_* environment, or the flags). DEST must not exist or be empty. The copy is then " +
    "proven: fsck of every shard, each copied head a signed head of the source, each pin reached " +
    "(the copy opens). Restore: deno task restore DEST DATA_DIR (docs/OPERATIONS.md).",
  options: [
    ...PATH_OPTIONS,
    { name: "no-key", help: "do not copy the secret keys (keep them elsewhere; pins are copied)" },
  ],
  positionals: [2, 2],
  footer: "Exit status: 0 copied and proven, 1 the copy does not prove itself, 2 usage or an " +
    "unreadable source.",
};

/** The data directory's paths from the positional DATA_DIR, the configuration and the flags. */
export function pathsFrom(
  env: Record<string, string>,
  dataDir: string,
  p: Parameters<typeof str>[0],
) {
  return configuredPaths(env, dataDir, {
    config: str(p, "config"),
    keyFile: str(p, "key-file"),
    pinFile: str(p, "pin-file"),
    pinDir: str(p, "pin-dir"),
    operatorKeyFile: str(p, "operator-key-file"),
    witnessKeyFile: str(p, "witness-key-file"),
  });
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  const at = (p: string) => resolveFromCaller(p, env, Deno.cwd());
  Deno.exit(
    await runCommand(Deno.args, BACKUP, async (p) => {
      const [src, dest] = p.positional.map(at);
      try {
        const report = await backupDataDir(await pathsFrom(env, src, p), dest, {
          copyKeys: !flag(p, "no-key"),
        });
        console.log(JSON.stringify(report, null, 2));
        if (!report.ok) {
          console.error(
            `backup: the copy in ${dest} does not prove itself:\n` + report.problems.join("\n"),
          );
        }
        return report.ok ? 0 : 1;
      } catch (err) {
        console.error((err as Error).message);
        return 2;
      }
    }),
  );
}
