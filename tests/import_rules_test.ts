// The import rules (tests/import_rules.ts; docs/CONTRACTS.md, "Rooms and import rules") over every
// TypeScript file of the repository, and the checker itself over synthetic file maps, so that it is
// seen to fail.
import assert from "node:assert/strict";
import { check, circles, edges, importSpecifiers, type Violation } from "./import_rules.ts";

const root = new URL("..", import.meta.url).pathname;
// Not ours or not source: dependencies, build output, data, vendored suites; web/assets_gen.ts is a
// generated bundle (its text holds the bundled modules, not imports).
const SKIP_DIRS = new Set([
  ".git",
  "node_modules",
  "data",
  ".tmp",
  "dist",
  ".wrangler",
  ".devnode",
  "upstream",
]);
const SKIP_FILES = new Set(["web/assets_gen.ts"]);

async function repoFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(root + dir)) {
      if (SKIP_DIRS.has(e.name)) continue;
      const p = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory) await walk(p);
      else if (/\.(ts|mts|js|mjs)$/.test(e.name) && !SKIP_FILES.has(p)) {
        files.set(p, await Deno.readTextFile(root + p));
      }
    }
  };
  await walk("");
  return files;
}

// Known violations not yet fixed, each `rule: message`. This list may only shrink: an entry that no
// longer occurs fails the test too, so that it is removed when its violation is fixed.
const KNOWN: readonly string[] = [];

Deno.test("import rules: the repository keeps them (known exceptions listed, none stale)", async () => {
  const found = check(await repoFiles()).map((v) => `${v.rule}: ${v.message}`);
  const fresh = found.filter((v) => !KNOWN.includes(v));
  const stale = KNOWN.filter((v) => !found.includes(v));
  assert.deepEqual(fresh, [], `new import-rule violations:\n${fresh.join("\n")}`);
  assert.deepEqual(stale, [], `fixed, remove from KNOWN:\n${stale.join("\n")}`);
});

const rules = (vs: Violation[]) => vs.map((v) => v.rule);

Deno.test("import rules: specifiers are found in static, re-export, side-effect and dynamic imports", () => {
  const src = [
    `import { a } from "./a.ts";`,
    `import type { B } from "../b/mod.ts";`,
    `import {\n  c,\n  type D,\n} from "./c.ts";`,
    `import * as e from "./e.ts";`,
    `export { f } from "./f.ts";`,
    `export * from "./g.ts";`,
    `import "./side.ts";`,
    `const h = await import("./h.ts");`,
    `// import("./commented.ts")`,
    `import { x } from "hono";`,
    `const s = "import nothing from here";`,
  ].join("\n");
  assert.deepEqual(importSpecifiers(src), [
    "./a.ts",
    "../b/mod.ts",
    "./c.ts",
    "./e.ts",
    "./f.ts",
    "./g.ts",
    "./side.ts",
    "./h.ts",
  ]);
});

Deno.test("import rules: a clean house passes", () => {
  const files = new Map([
    ["verify/mod.ts", `export { x } from "./x.ts";`],
    ["verify/x.ts", `export const x = 1;`],
    ["log/mod.ts", `import { x } from "../verify/mod.ts";`],
    ["log/sqlite/mod.ts", `import { x } from "../../verify/mod.ts";\nexport * from "./db.ts";`],
    ["log/sqlite/db.ts", `import { y } from "../mod.ts";`],
    ["api/deno/main.ts", `import { x } from "../log/sqlite/mod.ts";`],
    ["tests/verify/x_test.ts", `import { x } from "../../verify/x.ts";`],
  ]);
  assert.deepEqual(check(files), []);
});

Deno.test("import rules: each circle is reported once, with its files", () => {
  const files = new Map([
    ["api/a.ts", `import { b } from "./b.ts";`],
    ["api/b.ts", `import { c } from "./c.ts";`],
    ["api/c.ts", `import { a } from "./a.ts";`],
    ["api/d.ts", `import { e } from "./e.ts";`],
    ["api/e.ts", `import { d } from "./d.ts";`],
    ["api/self.ts", `export * from "./self.ts";`],
    ["api/f.ts", `import { a } from "./a.ts";`],
  ]);
  assert.deepEqual(circles(edges(files)), [
    ["api/a.ts", "api/b.ts", "api/c.ts"],
    ["api/d.ts", "api/e.ts"],
    ["api/self.ts"],
  ]);
  assert.deepEqual(rules(check(files)), ["circle", "circle", "circle"]);
  // A circle through a dynamic import is a circle too.
  const dyn = new Map([
    ["api/a.ts", `const b = await import("./b.ts");`],
    ["api/b.ts", `import { a } from "./a.ts";`],
  ]);
  assert.deepEqual(rules(check(dyn)), ["circle"]);
});

Deno.test("import rules: a room entered past its mod.ts fails; a test may reach inside", () => {
  const files = new Map([
    ["web/app/main.ts", `import { envelopeFromInput } from "../../verify/cli.ts";`],
    ["api/x.ts", `import { w } from "../log/c2sp/witness.ts";`],
    ["tests/web/main_test.ts", `import { main } from "../../web/app/main.ts";`],
    ["log/sqlite/a.ts", `import { s } from "../sql/store.ts";`], // inside one room: wiring
  ]);
  const vs = check(files);
  assert.deepEqual(rules(vs), ["mod-ts", "mod-ts"]);
  assert.match(vs[0].message, /web\/app\/main\.ts -> verify\/cli\.ts: verify\/ is entered/);
});

Deno.test("import rules: a lower room importing an upper one fails", () => {
  for (const [lower, upper] of [["log", "api"], ["verify", "web"], ["net", "client"]]) {
    const files = new Map([[`${lower}/a.ts`, `import { z } from "../${upper}/mod.ts";`]]);
    assert.deepEqual(rules(check(files)), ["layer"], `${lower} -> ${upper}`);
  }
  // Upward within the lower floors is not this rule's business, nor downward imports.
  const ok = new Map([["api/a.ts", `import { z } from "../log/mod.ts";`]]);
  assert.deepEqual(check(ok), []);
});

Deno.test("import rules: code outside tests/ importing a test fixture fails", () => {
  const files = new Map([
    ["bench/suites/http.ts", `import { startService } from "../../tests/e2e/_service.ts";`],
    ["tests/e2e/x_test.ts", `import { startService } from "./_service.ts";`],
    ["vocab/fast_test.ts", `import { docs } from "../tests/vocab/_docs.ts";`],
  ]);
  assert.deepEqual(rules(check(files)), ["test-fixture"]);
});
