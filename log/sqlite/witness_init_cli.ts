// `deno task witness:init <key file>`: makes a witness key a brand-new witness identity explicitly
// (docs/WITNESS.md "Lost state or key"): generates the key when the file is absent, or keeps a key
// made elsewhere, and pins an empty state beside it (`<key file>.pin`), so the service's first start
// with that key begins from nothing. The service itself generates a key only with a brand-new state
// and refuses a key without its state; this is the one other way to start a new witness.
// Exit status: 0 done, 1 refused (the key already has a pin, or is unreadable), 2 usage.
import { type CommandSpec, resolveFromCaller, runCommand, str } from "../../cli/mod.ts";
import { cosignatureVkey } from "../c2sp/note.ts";
import { initWitnessKey } from "./witness_pin_file.ts";

/** The command's declaration (its --help). */
export const WITNESS_INIT: CommandSpec = {
  name: "deno task witness:init",
  args: "KEY_FILE",
  summary: "Makes KEY_FILE a new witness identity: generates the witness key when absent (mode " +
    "0600) and pins an empty witness state beside it (KEY_FILE.pin). Only for a key that never " +
    "cosigned anything.",
  options: [
    { name: "name", value: "NAME", help: "the witness name, to print its vkey" },
  ],
  positionals: [1, 1],
  footer: "Exit status: 0 done, 1 refused (already pinned, or unreadable), 2 usage.",
};

if (import.meta.main) {
  const env = Deno.env.toObject();
  Deno.exit(
    await runCommand(Deno.args, WITNESS_INIT, async (p) => {
      const keyFile = resolveFromCaller(p.positional[0], env, Deno.cwd());
      try {
        const r = await initWitnessKey(keyFile);
        const name = str(p, "name");
        console.log(JSON.stringify({
          key_file: keyFile,
          generated: r.created,
          pin_file: r.pinFile,
          ...(name !== undefined ? { vkey: cosignatureVkey(name, r.secret) } : {}),
        }));
        return 0;
      } catch (err) {
        console.error((err as Error).message);
        return 1;
      }
    }),
  );
}
