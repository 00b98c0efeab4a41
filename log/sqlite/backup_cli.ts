// `deno task backup DATA_DIR DEST [--key-file FILE] [--no-key]`: an online, consistent copy of a
// data directory, safe while the service appends (log/sqlite/backup.ts), then proven (fsck, latest
// head stored in the source). Prints a JSON report. Exit status: 0 copied and proven, 1 the copy
// does not prove itself, 2 usage or the source could not be read. Arguments follow cli/args.ts
// (--help, unknown options, paths from the caller's directory).
import { type CommandSpec, flag, resolveFromCaller, runCommand, str } from "../../cli/mod.ts";
import { backupDataDir } from "./mod.ts";

/** The command's declaration (its --help). */
export const BACKUP: CommandSpec = {
  name: "deno task backup",
  args: "DATA_DIR DEST",
  summary: "Copies the log store DATA_DIR/log.sqlite into DEST/log.sqlite with SQLite's VACUUM " +
    "INTO (one consistent snapshot, taken while the service goes on appending), and the log key " +
    "into DEST/log-key.hex (mode 0600; --no-key leaves it out). DEST is created and must not " +
    "hold a store yet. The copy is then checked: fsck over all of it, and its latest head must " +
    "be a signed head of the source. Restore: stop the service, point DATA_DIR at DEST (or copy " +
    "both files into the data directory), start it (docs/OPERATIONS.md).",
  options: [
    { name: "key-file", value: "FILE", help: "the log key, when it is not DATA_DIR/log-key.hex" },
    { name: "no-key", help: "do not copy the key (keep it elsewhere; fsck then reads --key-file)" },
  ],
  positionals: [2, 2],
  footer: "Exit status: 0 copied and proven, 1 the copy does not prove itself, 2 usage or an " +
    "unreadable source.",
};

if (import.meta.main) {
  const env = Deno.env.toObject();
  const at = (p: string) => resolveFromCaller(p, env, Deno.cwd());
  Deno.exit(
    await runCommand(Deno.args, BACKUP, async (p) => {
      const [src, dest] = p.positional.map(at);
      const keyFile = str(p, "key-file");
      try {
        const report = await backupDataDir(src, dest, {
          keyFile: keyFile === undefined ? undefined : at(keyFile),
          copyKey: !flag(p, "no-key"),
        });
        console.log(JSON.stringify(report, null, 2));
        if (!report.ok) console.error(`backup: the copy in ${dest} does not prove itself`);
        return report.ok ? 0 : 1;
      } catch (err) {
        console.error((err as Error).message);
        return 2;
      }
    }),
  );
}
