// `deno run -A vocab/gen.ts [--check]` — regenerates the published vocabulary files from
// vocab/schema.ts: v1.jsonld (SPEC §13 context), v1.ttl (ontology), v1.shapes.ttl (SPEC §15) and
// assets.ts (the same three texts as string constants, so a Worker, which cannot read files,
// serves the very same bytes). With --check it writes nothing and exits 1 if a file would change.

import { generateAll } from "./generate.ts";

const dir = new URL("./", import.meta.url);
const check = Deno.args.includes("--check");
let stale = 0;
for (const [name, text] of Object.entries(generateAll())) {
  const url = new URL(name, dir);
  let old: string | undefined;
  try {
    old = await Deno.readTextFile(url);
  } catch { /* new file */ }
  if (old === text) continue;
  stale++;
  if (check) console.error(`vocab/${name} is out of date: run deno run -A vocab/gen.ts`);
  else {
    await Deno.writeTextFile(url, text);
    console.error(`wrote vocab/${name}`);
  }
}
if (check && stale) Deno.exit(1);
