// `deno task init-log KEY_FILE [--pin-file FILE]`: the explicit start of a brand-new log under a
// key made beforehand (issue 27): a key without a store and without a signed-head pin is refused
// at start (`log-store-missing`), since it may have signed a tree that was lost; this pins size 0,
// so the first start opens a fresh tree. Exit 0 done, 2 usage, or the key has a pin already.
import { type CommandSpec, resolveFromCaller, runCommand, str } from "../../cli/mod.ts";
import { initLogPin } from "./mod.ts";

/** The command's declaration (its --help). */
export const INIT_LOG: CommandSpec = {
  name: "deno task init-log",
  args: "KEY_FILE",
  summary: "Starts a brand-new log under a key made beforehand: writes its signed-head pin at " +
    "size 0 beside the key, so the service's first start opens an empty tree under it.",
  options: [
    {
      name: "pin-file",
      value: "FILE",
      help: "the pin (default KEY_FILE.pin; the pin_file setting)",
    },
  ],
  positionals: [1, 1],
  footer: "Exit status: 0 done, 2 usage, an unreadable key, or a key that already has a pin.",
};

if (import.meta.main) {
  const env = Deno.env.toObject();
  const at = (p: string) => resolveFromCaller(p, env, Deno.cwd());
  Deno.exit(
    await runCommand(Deno.args, INIT_LOG, async (p) => {
      const pin = str(p, "pin-file");
      try {
        const path = await initLogPin(at(p.positional[0]), pin === undefined ? undefined : at(pin));
        console.log(JSON.stringify({ pin: path, size: 0 }));
        return 0;
      } catch (err) {
        console.error((err as Error).message);
        return 2;
      }
    }),
  );
}
