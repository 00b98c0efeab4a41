// `deno task restore BACKUP DATA_DIR`: puts a backup made by `deno task backup` back (api/deno/restore.ts)
// into a data directory that holds no store, keys and pins where the service's configuration puts
// them (the same `--config FILE` / JC_CONFIG and JC_* environment, or the flags). A pin in place
// is kept and a backup behind it refused, before anything is written (docs/OPERATIONS.md
// "Restore"). Prints a JSON report. Exit status: 0 restored, 1 refused (the code in brackets),
// 2 usage.
import { type CommandSpec, resolveFromCaller, runCommand } from "../../cli/mod.ts";
import { restoreDataDir } from "./restore.ts";
import { PATH_OPTIONS, pathsFrom } from "./backup_cli.ts";

/** The command's declaration (its --help). */
export const RESTORE: CommandSpec = {
  name: "deno task restore",
  args: "BACKUP DATA_DIR",
  summary: "Restores a backup made by deno task backup into DATA_DIR, which must hold no store " +
    "(move the damaged or old stores aside first; keep keys and pins where they are). Keys in " +
    "place must be the backup's; missing ones are taken from the backup. A signed-head pin in " +
    "place (s0's pin_file, a shard's in pin_dir or its folder, the witness's) is kept, never replaced by an older one, and " +
    "a backup whose store is behind it is refused (store-behind-signed-head; witness-state-behind) " +
    "with nothing written: restoring it would fork the log. Then start the service.",
  options: PATH_OPTIONS,
  positionals: [2, 2],
  footer: "Exit status: 0 restored, 1 refused (nothing written; the code in brackets), 2 usage.",
};

if (import.meta.main) {
  const env = Deno.env.toObject();
  const at = (p: string) => resolveFromCaller(p, env, Deno.cwd());
  Deno.exit(
    await runCommand(Deno.args, RESTORE, async (p) => {
      const [backup, dataDir] = p.positional.map(at);
      try {
        const report = await restoreDataDir(backup, await pathsFrom(env, dataDir, p));
        console.log(JSON.stringify(report, null, 2));
        return 0;
      } catch (err) {
        console.error((err as Error).message);
        return 1;
      }
    }),
  );
}
