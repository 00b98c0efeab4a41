// `deno run -A vocab/gen.ts [--check]` — regenerates the published vocabulary files from
// vocab/schema/: v1.jsonld (SPEC §13 context), v1.ttl (ontology), v1.shapes.ttl (SPEC §15) and
// assets.ts (the same three texts as string constants, so a Worker, which cannot read files,
// serves the very same bytes). With --check it writes nothing and exits 1 if a file would change.
// (assets.ts is compared by the values it exports: `deno fmt` may re-quote its strings.)

import { generateAll } from "./generate.ts";

const dir = new URL("./", import.meta.url);
const check = Deno.args.includes("--check");
const files = generateAll();
let stale = 0;
for (const [name, text] of Object.entries(files)) {
  if (name === "assets.ts") continue;
  const url = new URL(name, dir);
  const old = await Deno.readTextFile(url).catch(() => undefined);
  if (old === text) continue;
  stale++;
  if (check) console.error(`vocab/${name} is out of date: run deno run -A vocab/gen.ts`);
  else await Deno.writeTextFile(url, text);
}
const assets = await import(new URL("./assets.ts", dir).href).catch(() => ({}));
const upToDate = assets.V1_JSONLD === files["v1.jsonld"] && assets.V1_TTL === files["v1.ttl"] &&
  assets.V1_SHAPES_TTL === files["v1.shapes.ttl"];
if (!upToDate) {
  stale++;
  if (check) console.error("vocab/assets.ts is out of date: run deno run -A vocab/gen.ts");
  else {
    await Deno.writeTextFile(new URL("assets.ts", dir), files["assets.ts"]);
    await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--quiet", new URL("assets.ts", dir).pathname],
    }).output();
  }
}
if (check && stale) Deno.exit(1);
if (!check) console.error(stale ? `vocab: regenerated ${stale} file(s)` : "vocab: up to date");
