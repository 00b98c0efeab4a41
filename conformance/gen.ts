// `deno task conformance:gen` — writes the conformance vectors (conformance/vectors/*.json) from
// fixed test keys and times. Deterministic: running it twice writes the same bytes, and
// conformance/conformance_test.ts fails if the files differ from a fresh generation.
// `deno task conformance:gen --check` only compares.

import { generateAll, publish } from "./gen/all.ts";
import { traceFile } from "./gen/traces.ts";

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  const dir = new URL("./vectors/", import.meta.url);
  await Deno.mkdir(dir, { recursive: true });
  let stale = 0;
  // the outcome traces (JCP §5.3) are log replays, not receipt vectors: a folder of their own
  const files: [URL, string][] = [
    ...Object.entries(await generateAll()).map(([f, t]): [URL, string] => [new URL(f, dir), t]),
    [new URL("./traces/outcome-traces.json", import.meta.url), publish(traceFile())],
  ];
  for (const [url, text] of files) {
    const file = url.pathname.split("/conformance/")[1];
    let old: string | undefined;
    try {
      old = await Deno.readTextFile(url);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    if (old === text) continue;
    stale++;
    if (check) console.error(`stale: conformance/${file}`);
    else {
      await Deno.writeTextFile(url, text);
      console.error(`wrote conformance/${file}`);
    }
  }
  if (check && stale) Deno.exit(1);
}
