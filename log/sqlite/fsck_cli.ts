// `deno task fsck <data dir> [--key-file <path>]`: re-verifies the whole log in a data directory
// (log/fsck.ts: every leaf hash, every tile, every head's signature and mutual consistency) and
// prints a JSON report. Exit status: 0 clean, 1 problems found, 2 the log could not be read.
import { fsckDataDir } from "./mod.ts";

const args = [...Deno.args];
let keyFile: string | undefined;
const k = args.indexOf("--key-file");
if (k >= 0) {
  keyFile = args[k + 1];
  args.splice(k, 2);
}
if (args.length !== 1 || keyFile === "") {
  console.error("usage: deno task fsck <data dir> [--key-file <path>]");
  Deno.exit(2);
}
try {
  const report = await fsckDataDir(args[0], keyFile);
  console.log(JSON.stringify(report, null, 2));
  if (!report.ok) console.error(`fsck: ${report.problems.length} problem(s) in ${args[0]}`);
  Deno.exit(report.ok ? 0 : 1);
} catch (err) {
  console.error((err as Error).message);
  Deno.exit(2);
}
