// `deno task fsck <data dir> [--key-file <path>]`: re-verifies the whole log in a data directory
// (log/fsck.ts: every leaf hash, every tile, every head's signature and mutual consistency) and
// prints a JSON report. Exit status: 0 clean, 1 problems found, 2 usage or the log could not be
// read. Arguments follow cli/args.ts (--help, unknown options, paths from the caller's directory).
import { type CommandSpec, resolveFromCaller, runCommand, str } from "../../cli/mod.ts";
import { fsckDataDir } from "./mod.ts";

/** The command's declaration (its --help). */
export const FSCK: CommandSpec = {
  name: "deno task fsck",
  args: "DATA_DIR",
  summary: "Re-verifies the whole log in a data directory, offline: every leaf hash, every tile, " +
    "every stored tree head's signature and their mutual consistency. Prints a JSON report.",
  options: [
    { name: "key-file", value: "FILE", help: "the log key (default DATA_DIR/log-key.hex)" },
  ],
  positionals: [1, 1],
  footer: "Exit status: 0 clean, 1 problems found, 2 usage or the log could not be read.",
};

if (import.meta.main) {
  const env = Deno.env.toObject();
  const at = (p: string) => resolveFromCaller(p, env, Deno.cwd());
  Deno.exit(
    await runCommand(Deno.args, FSCK, async (p) => {
      const dir = at(p.positional[0]);
      const keyFile = str(p, "key-file");
      try {
        const report = await fsckDataDir(dir, keyFile === undefined ? undefined : at(keyFile));
        console.log(JSON.stringify(report, null, 2));
        if (!report.ok) console.error(`fsck: ${report.problems.length} problem(s) in ${dir}`);
        return report.ok ? 0 : 1;
      } catch (err) {
        console.error((err as Error).message);
        return 2;
      }
    }),
  );
}
