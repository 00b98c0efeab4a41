// Edge build tooling (issue 7, docs/EDGE.md): installs the pinned local workerd runtime
// (edge/package.json + edge/package-lock.json, by `npm ci`) and bundles a Worker entry of this
// Deno project into one ES module with `deno bundle`, so bare specifiers resolve through
// deno.json's import map exactly as they do under `deno test`. The bundle targets the browser
// platform (web-standard APIs); `cloudflare:*` modules stay external (workerd provides them).

const EDGE_DIR = new URL("./", import.meta.url);
const REPO_ROOT = new URL("../", EDGE_DIR);

/** Absolute path of a file or folder of this repository. */
export function repoPath(rel: string): string {
  return new URL(rel, REPO_ROOT).pathname;
}

/** Node version the pinned Miniflare/wrangler need (edge/package.json "engines"). */
const NODE_MIN = [20, 3];

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(cmd, {
      args,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    })
      .output();
  } catch (err) {
    throw new Error(
      `Cannot run ${cmd}: ${err instanceof Error ? err.message : err}`,
      { cause: err },
    );
  }
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `Cannot run ${cmd} ${args.join(" ")}: exit ${out.code}\n${
        dec.decode(out.stderr).slice(-4000)
      }`,
    );
  }
  return dec.decode(out.stdout);
}

/** Checks that `node` is on PATH and new enough; returns its version. */
export async function nodeVersion(): Promise<string> {
  const v = (await run("node", ["--version"], repoPath("."))).trim();
  const m = /^v(\d+)\.(\d+)/.exec(v);
  if (
    !m || Number(m[1]) < NODE_MIN[0] ||
    (Number(m[1]) === NODE_MIN[0] && Number(m[2]) < NODE_MIN[1])
  ) {
    throw new Error(
      `Cannot start the local Worker runtime: Node >= ${NODE_MIN.join(".")} is needed, found ${v}`,
    );
  }
  return v;
}

function lockedVersions(lockText: string): Record<string, string> {
  const lock = JSON.parse(lockText) as {
    packages?: Record<string, { version?: string }>;
  };
  const out: Record<string, string> = {};
  for (const name of ["miniflare", "wrangler", "workerd"]) {
    const v = lock.packages?.[`node_modules/${name}`]?.version;
    if (v) out[name] = v;
  }
  return out;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/**
 * Makes sure edge/node_modules holds exactly the locked Miniflare, wrangler and workerd, running
 * `npm ci` in edge/ when it does not (a fresh clone, or a changed lockfile). Throws (never skips)
 * when Node or npm is missing or the install fails, so a test that needs workerd fails loudly.
 */
export async function ensureEdgeTooling(): Promise<void> {
  await nodeVersion();
  const want = lockedVersions(
    await Deno.readTextFile(repoPath("edge/package-lock.json")),
  );
  const installed = await readText(
    repoPath("edge/node_modules/.package-lock.json"),
  );
  const have = installed ? lockedVersions(installed) : {};
  const current = Object.keys(want).length === 3 &&
    Object.entries(want).every(([k, v]) => have[k] === v);
  if (current) return;
  // Serialise concurrent installers (parallel test files) with an atomic mkdir.
  const lockDir = repoPath("edge/.install-lock");
  for (let i = 0;; i++) {
    try {
      await Deno.mkdir(lockDir);
      break;
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists) || i > 600) throw err;
      await new Promise((r) => setTimeout(r, 500));
      const again = await readText(
        repoPath("edge/node_modules/.package-lock.json"),
      );
      if (
        again &&
        Object.entries(want).every(([k, v]) => lockedVersions(again)[k] === v)
      ) return;
    }
  }
  try {
    await run(
      "npm",
      ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
      repoPath("edge/"),
    );
  } finally {
    await Deno.remove(lockDir).catch(() => {});
  }
}

/** What `bundleWorker` produced. */
export interface BundleInfo {
  /** Absolute path of the bundled module. */
  path: string;
  bytes: number;
  ms: number;
}

/**
 * Bundles a Worker entry (TypeScript, import-map specifiers, `npm:` packages) into one ES module
 * at `out` (relative to the repository root). Refuses a bundle that still references Deno's
 * global namespace: a Worker has none, so such code would fail only when a request reaches it.
 */
export async function bundleWorker(
  entry: string,
  out: string,
  opts: { allowDeno?: boolean } = {},
): Promise<BundleInfo> {
  const t0 = performance.now();
  const path = repoPath(out);
  await run(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--platform=browser",
    "--format=esm",
    "--external=cloudflare:*",
    "--external=node:*",
    "-o",
    path,
    repoPath(entry),
  ], repoPath("."));
  let text = await Deno.readTextFile(path);
  text = withRequirePrelude(entry, text);
  await Deno.writeTextFile(path, text);
  // Test Workers that shim `Deno.test` themselves opt out of this check.
  const denoUse = opts.allowDeno ? null : /\bDeno\.[a-zA-Z]+/.exec(text);
  if (denoUse) {
    // The bundler heads each module with a `// path/of/module.ts` comment line.
    const heads = text.slice(0, denoUse.index).match(
      /^\/\/ \S+\.[mc]?[jt]sx?$/gm,
    );
    const mod = heads?.at(-1)?.slice(3);
    throw new Error(
      `Cannot bundle ${entry} for workerd: it references ${denoUse[0]} (in ${
        mod ?? "unknown module"
      }), which a Worker does not have`,
    );
  }
  return {
    path,
    bytes: new TextEncoder().encode(text).length,
    ms: performance.now() - t0,
  };
}

/**
 * CommonJS packages in the bundle (n3's readable-stream, for one) call `require("node:buffer")`
 * at run time, which an ES module Worker cannot do: esbuild leaves a `__require` shim that throws
 * unless a `require` is in scope. This prepends one that serves exactly the Node built-ins the
 * bundle asks for, imported statically from workerd's `nodejs_compat` modules. Any other run-time
 * require is refused here, at build time, rather than when a request reaches it.
 */
export function withRequirePrelude(entry: string, text: string): string {
  const ids = new Set<string>();
  for (const m of text.matchAll(/\b__require\d*\("([^"]+)"\)/g)) ids.add(m[1]);
  if (ids.size === 0) return text;
  const bad = [...ids].filter((id) => !/^node:[a-z_/]+$/.test(id));
  if (bad.length) {
    throw new Error(
      `Cannot bundle ${entry} for workerd: it requires ${
        bad.join(", ")
      } at run time, which a Worker cannot load`,
    );
  }
  const list = [...ids].sort();
  const lines = list.map((id, i) => `import * as __jc_builtin_${i} from "${id}";`);
  lines.push(
    `const __jc_builtins = { ${list.map((id, i) => `"${id}": __jc_builtin_${i}`).join(", ")} };`,
    `const require = (id) => { const m = __jc_builtins[id]; if (!m) throw new Error("Cannot require " + id + ": not a bundled built-in"); return m.default ?? m; };`,
  );
  return `// edge/tooling.ts: run-time require() of Node built-ins (nodejs_compat)\n${
    lines.join("\n")
  }\n${text}`;
}
