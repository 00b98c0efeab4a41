// docs/CONFIG.md says it lists every setting and error code; this keeps it true. It fails when a
// config-file key, an environment variable that the service, the Worker or a command line reads
// (found in the sources, not in a list kept beside them), or an error code the service answers
// is not on that page.
import assert from "node:assert/strict";
import { CONFIG_FILE_KEYS, ENV_KEYS } from "../../api/services/config.ts";
import { HTTP_CODES, OTHER_TITLES } from "../../api/http/errors.ts";
import { ROOT } from "../../fixtures/service.ts";

/** Source folders of the service, the Worker and the command lines (not tests, not benches). */
const SOURCES = [
  "api",
  "client",
  "log",
  "verify",
  "vocab",
  "edge",
  "meter-agent/src",
  "cli",
  "examples",
];

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory && !["node_modules", "dist", "tests"].includes(e.name)) yield* sourceFiles(p);
    else if (e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) yield p;
  }
}

async function scan(patterns: RegExp[], dirs = SOURCES): Promise<Map<string, string>> {
  const found = new Map<string, string>(); // name → first file
  for (const d of dirs) {
    for await (const f of sourceFiles(`${ROOT}${d}`)) {
      const text = await Deno.readTextFile(f);
      for (const re of patterns) {
        for (const m of text.matchAll(re)) {
          if (!found.has(m[1])) found.set(m[1], f.slice(ROOT.length));
        }
      }
    }
  }
  return found;
}

/** Names not written as `name` on the page. */
export function undocumented(page: string, names: Iterable<string>): string[] {
  return [...new Set(names)].filter((n) => !page.includes("`" + n + "`")).sort();
}

const page = await Deno.readTextFile(`${ROOT}docs/CONFIG.md`);

Deno.test("CONFIG.md lists every config-file key and its environment variable", () => {
  assert.deepEqual(undocumented(page, CONFIG_FILE_KEYS), []);
  assert.deepEqual(undocumented(page, Object.keys(ENV_KEYS)), []);
  assert.ok(CONFIG_FILE_KEYS.includes("agents") && "JC_AGENTS" in ENV_KEYS);
  // The check can fail: a key the page does not name is reported.
  assert.deepEqual(undocumented(page, ["agents", "no_such_key"]), ["no_such_key"]);
});

Deno.test("CONFIG.md lists every environment variable the sources read", async () => {
  const env = await scan([
    /\benv\.([A-Z][A-Z0-9_]{2,})\b/g,
    /\benv\.get\("([A-Z][A-Z0-9_]+)"\)/g,
    /\benv\[["']([A-Z][A-Z0-9_]+)["']\]/g,
    /\bprocess\.env\.([A-Z][A-Z0-9_]+)/g,
  ]);
  assert.ok(env.has("JC_URL") && env.has("INIT_CWD"), [...env.keys()].join(" "));
  const missing = undocumented(page, env.keys());
  assert.deepEqual(missing, [], missing.map((n) => `${n} (${env.get(n)})`).join(", "));
});

Deno.test("CONFIG.md lists every error code the service answers", async () => {
  const thrown = await scan([
    /new ApiError\(\s*"([a-z0-9-]+)"/g,
    /\bproblem\(\s*\d+,\s*"([a-z0-9-]+)"/g,
    /new (?:Vocab|Sparql)Error\(\s*"([a-z0-9-]+)"/g,
    /\bcode: "([a-z0-9-]+)"/g, // per-reading results of POST /v1/readings
  ], ["api", "vocab"]);
  const codes = [...Object.keys(HTTP_CODES), ...Object.keys(OTHER_TITLES), ...thrown.keys()];
  assert.ok(codes.includes("agent-not-registered"));
  const missing = undocumented(page, codes);
  assert.deepEqual(
    missing,
    [],
    missing.map((c) => `${c} (${thrown.get(c) ?? "api/http/errors.ts"})`).join(", "),
  );
});
