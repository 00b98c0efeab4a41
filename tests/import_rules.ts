// The house's import rules as a checker over a map of file path -> source text (issue 22, "Import
// rules as a test"; the rules are written out in docs/CONTRACTS.md, "Rooms and import rules").
// Pure: tests/import_rules_test.ts feeds it the repository's files, and synthetic maps so that it
// is seen to fail.
//
// Rules:
// 1. no import circles between modules (every strongly connected component of more than one file,
//    or a file importing itself, is one circle);
// 2. a folder is entered from outside only through its mod.ts: an import of `d/x.ts` from a file
//    that is not inside `d/` must name `d/mod.ts` (a sub-folder's mod.ts is that sub-folder's face,
//    so `log/sqlite/mod.ts` may be imported from api/); within one room sub-folders wire to each
//    other freely. Tests and harness rooms (fixtures, bench, conformance, examples) are exempt: they
//    import the internal module they test, measure or generate from;
// 3. lower rooms (net, cli, verify, log, vocab) never import upper ones (api, client, web, rdfsync,
//    edge, fixtures, bench, meter-agent);
// 4. nothing outside tests/ imports tests/ (what tests and bench share lives in fixtures/).

/** A relative import found in one file. */
export interface ImportEdge {
  from: string;
  to: string;
  specifier: string;
}

export interface Violation {
  rule: "circle" | "mod-ts" | "layer" | "test-fixture";
  message: string;
}

export const LOWER_ROOMS = ["net", "cli", "verify", "log", "vocab"] as const;
/**
 * Rooms that test, measure or generate from the code (fixtures/: what tests and bench share, such
 * as starting the real service or Worker; bench/, conformance/'s generators, examples/gen.ts):
 * like tests, they may import the internal module they exercise.
 */
export const HARNESS_ROOMS: readonly string[] = [
  "tests",
  "fixtures",
  "bench",
  "conformance",
  "examples",
];
export const UPPER_ROOMS = [
  "api",
  "client",
  "web",
  "rdfsync",
  "edge",
  "fixtures",
  "bench",
  "meter-agent",
] as const;

// Static `import … from "x"`, `export … from "x"`, side-effect `import "x"`; the clause between
// the keyword and `from` spans lines (`import {\n a,\n} from "x"`).
const STATIC =
  /(?:^|\n)[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s*from\s*)?["']([^"'\n]+)["']/g;
// Dynamic `import("x")` with a literal specifier.
const DYNAMIC = /\bimport\(\s*["'`]([^"'`\n]+)["'`]\s*\)/g;

/** The relative specifiers a source text imports (static and literal dynamic imports). */
export function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(STATIC)) out.push(m[1]);
  // Dynamic imports in comments are not imports: drop line comments and block-comment lines first.
  const code = source.split("\n").filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l)).join("\n");
  for (const m of code.matchAll(DYNAMIC)) out.push(m[1]);
  return out.filter((s) => s.startsWith("./") || s.startsWith("../"));
}

/** `a/b/../c.ts` -> `a/c.ts`, relative to the repository root. */
export function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const seg of specifier.split("/")) {
    if (seg === "." || seg === "") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return parts.join("/");
}

/** Every relative import, once per (importer, imported) pair. */
export function edges(files: ReadonlyMap<string, string>): ImportEdge[] {
  const out: ImportEdge[] = [];
  const seen = new Set<string>();
  for (const [from, text] of files) {
    for (const specifier of importSpecifiers(text)) {
      const e = { from, to: resolve(from, specifier), specifier };
      if (seen.has(edgeKey(e))) continue;
      seen.add(edgeKey(e));
      out.push(e);
    }
  }
  return out;
}

const dirOf = (p: string) => p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "";
const roomOf = (p: string) => p.includes("/") ? p.slice(0, p.indexOf("/")) : "";
/** Tests: everything under tests/ (or a room's own tests/), and `*_test.ts` beside the code. */
export const isTest = (p: string) =>
  p.startsWith("tests/") || p.includes("/tests/") || p.endsWith("_test.ts");

/** Every import circle, each as its files in a stable order (Tarjan's strongly connected components). */
export function circles(es: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of es) {
    if (!next.has(e.from)) next.set(e.from, []);
    next.get(e.from)!.push(e.to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (next.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0] < b[0] ? -1 : 1);
}

/** The key an allowlisted exception is written as: `from -> to`. */
export const edgeKey = (e: ImportEdge) => `${e.from} -> ${e.to}`;

/** Every violation of the rules over the files given (paths relative to the repository root). */
export function check(files: ReadonlyMap<string, string>): Violation[] {
  const es = edges(files);
  const out: Violation[] = [];
  for (const c of circles(es)) {
    out.push({ rule: "circle", message: `import circle: ${c.join(" <-> ")}` });
  }
  const lower = new Set<string>(LOWER_ROOMS);
  const upper = new Set<string>(UPPER_ROOMS);
  for (const e of es) {
    const fromRoom = roomOf(e.from), toRoom = roomOf(e.to);
    const test = isTest(e.from);
    const harness = test || HARNESS_ROOMS.includes(fromRoom);
    const dir = dirOf(e.to);
    if (!test && isTest(e.to)) {
      out.push({
        rule: "test-fixture",
        message: `${edgeKey(e)}: code outside tests/ never imports tests/`,
      });
    } else if (!harness && fromRoom !== toRoom && !e.to.endsWith("/mod.ts")) {
      out.push({
        rule: "mod-ts",
        message: `${edgeKey(e)}: ${dir}/ is entered from outside only through ${dir}/mod.ts`,
      });
    }
    if (lower.has(fromRoom) && upper.has(toRoom)) {
      out.push({
        rule: "layer",
        message: `${edgeKey(e)}: ${fromRoom}/ is a lower room and never imports ${toRoom}/`,
      });
    }
  }
  return out;
}
