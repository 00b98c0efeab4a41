// `deno task conformance:gen` — writes the conformance vectors (conformance/vectors/*.json) from
// fixed test keys and times. Deterministic: running it twice writes the same bytes, and
// conformance/conformance_test.ts fails if the files differ from a fresh generation.
// `deno task conformance:gen --check` only compares.

import { generateAll } from "./gen/all.ts";

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  const dir = new URL("./vectors/", import.meta.url);
  await Deno.mkdir(dir, { recursive: true });
  let stale = 0;
  for (const [file, text] of Object.entries(await generateAll())) {
    const url = new URL(file, dir);
    let old: string | undefined;
    try {
      old = await Deno.readTextFile(url);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    if (old === text) continue;
    stale++;
    if (check) console.error(`stale: conformance/vectors/${file}`);
    else {
      await Deno.writeTextFile(url, text);
      console.error(`wrote conformance/vectors/${file}`);
    }
  }
  if (check && stale) Deno.exit(1);
}
