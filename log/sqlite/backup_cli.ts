// `deno task backup <data dir> <dest> [--key-file <path>] [--no-key]`: an online, consistent copy
// of a data directory, safe while the service appends (log/sqlite/backup.ts), then proven (fsck,
// latest head stored in the source). Prints a JSON report. Exit status: 0 copied and proven,
// 1 the copy does not prove itself, 2 usage or the source could not be read.
import { backupDataDir } from "./mod.ts";

const USAGE = `usage: deno task backup <data dir> <dest> [--key-file <path>] [--no-key]

Copies the log store <data dir>/log.sqlite into <dest>/log.sqlite with SQLite's VACUUM INTO
(one consistent snapshot, taken while the service goes on appending), and the log key into
<dest>/log-key.hex (mode 0600; --no-key leaves it out). <dest> is created and must not hold a
store yet. The copy is then checked: fsck over all of it, and its latest head must be a signed
head of the source. Restore: stop the service, point DATA_DIR at <dest> (or copy both files into
the data directory), start it (docs/OPERATIONS.md).

  --key-file <path>  the log key, when it is not <data dir>/log-key.hex
  --no-key           do not copy the key (keep it elsewhere; fsck then reads --key-file)

Exit status: 0 copied and proven, 1 the copy does not prove itself, 2 usage or unreadable source.`;

const args = [...Deno.args];
if (args.includes("--help") || args.includes("-h")) {
  console.log(USAGE);
  Deno.exit(0);
}
let keyFile: string | undefined;
const k = args.indexOf("--key-file");
if (k >= 0) {
  keyFile = args[k + 1];
  args.splice(k, 2);
}
const nk = args.indexOf("--no-key");
if (nk >= 0) args.splice(nk, 1);
if (args.length !== 2 || keyFile === "" || args.some((a) => a.startsWith("--"))) {
  console.error(USAGE);
  Deno.exit(2);
}
try {
  const report = await backupDataDir(args[0], args[1], { keyFile, copyKey: nk < 0 });
  console.log(JSON.stringify(report, null, 2));
  if (!report.ok) console.error(`backup: the copy in ${args[1]} does not prove itself`);
  Deno.exit(report.ok ? 0 : 1);
} catch (err) {
  console.error((err as Error).message);
  Deno.exit(2);
}
