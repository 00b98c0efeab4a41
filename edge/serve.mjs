// Local workerd runner for the JouleClaw log's Worker build (issue 7, docs/EDGE.md).
//
// Runs under plain Node (>= 20.3) from edge/node_modules (installed by `npm ci` in edge/): starts
// the bundled Worker in real local workerd through Miniflare, with its bindings, Durable Object
// classes (SQLite storage) and compatibility settings read from wrangler.toml by wrangler's own
// config reader, so the local runtime and `wrangler deploy` cannot drift apart. State persists
// where `wrangler dev` keeps it (`<persistTo>/v3/do`, `<persistTo>/v3/cache`), so the two share it.
//
// Usage: node edge/serve.mjs '<json options>'
//   { "script": "edge/dist/worker.js",      bundled module Worker (required)
//     "config": "wrangler.toml",            wrangler config to read (optional)
//     "durableObjects": {...},              Miniflare DO options when there is no config (optional)
//     "host": "127.0.0.1", "port": 8787,    listen address (port 0 picks a free port)
//     "persistTo": ".wrangler/state",       durable local state (omit for in-memory)
//     "bindings": { "LOG_KEY": "..." },     extra text bindings: secrets and var overrides
//     "workerOptions": {...},               what printWorkerOptions printed: config not read again
//     "printWorkerOptions": true }          print the config's Miniflare options as JSON, exit
// Prints exactly one line `READY <url>` on stdout once the Worker answers; everything else goes to
// stderr. Exits (disposing workerd) on SIGINT/SIGTERM or when stdin closes, so a parent that dies
// never leaves a workerd behind.
import { createRequire } from "node:module";
import { resolve } from "node:path";
import process from "node:process";

const require = createRequire(import.meta.url);
// Non-literal specifiers: resolved by Node from edge/node_modules, never by Deno's module graph.
const miniflarePkg = "miniflare";
const wranglerPkg = "wrangler";

function fail(msg) {
  process.stderr.write(`edge/serve: ${msg}\n`);
  process.exit(2);
}

let opts;
try {
  opts = JSON.parse(process.argv[2] ?? "");
} catch (err) {
  fail(`Cannot read options: argv[2] is not JSON (${err.message})`);
}
if (typeof opts.script !== "string") {
  fail("Cannot start the Worker: options.script is missing");
}

const { Miniflare, Log, LogLevel } = require(miniflarePkg);

let workerOptions = {};
if (opts.workerOptions) {
  // What a `printWorkerOptions` run printed for the config (edge/runtime.ts readWorkerOptions):
  // loading wrangler costs ~0.9 s of CPU per start, reading the config ~10 ms, and the edge tests
  // restart workerd over the same config dozens of times.
  workerOptions = opts.workerOptions;
} else if (opts.config) {
  const { unstable_getMiniflareWorkerOptions } = require(wranglerPkg);
  // wrangler's reader validates wrangler.toml and maps its bindings, DO classes (SQLite via
  // `new_sqlite_classes` migrations), vars and compatibility settings to Miniflare options.
  ({ workerOptions } = unstable_getMiniflareWorkerOptions(
    resolve(opts.config),
  ));
}
if (opts.printWorkerOptions) {
  // Plain data: strings, numbers, booleans, arrays and objects (undefined fields are dropped,
  // which Miniflare reads as absent). Writes to a pipe are synchronous in Node on Linux.
  process.stdout.write(JSON.stringify(workerOptions) + "\n");
  process.exit(0);
}

const persist = opts.persistTo ? resolve(opts.persistTo, "v3") : undefined;
const mf = new Miniflare({
  ...workerOptions,
  ...(opts.durableObjects ? { durableObjects: opts.durableObjects } : {}),
  compatibilityDate: workerOptions.compatibilityDate ??
    opts.compatibilityDate ?? "2026-04-20",
  compatibilityFlags: workerOptions.compatibilityFlags ??
    opts.compatibilityFlags ??
    ["nodejs_compat"],
  modules: true,
  scriptPath: resolve(opts.script),
  bindings: { ...(workerOptions.bindings ?? {}), ...(opts.bindings ?? {}) },
  host: opts.host ?? "127.0.0.1",
  port: opts.port ?? 8787,
  durableObjectsPersist: persist ? resolve(persist, "do") : false,
  cachePersist: persist ? resolve(persist, "cache") : false,
  // R2 buckets of wrangler.toml ([[r2_buckets]]), simulated locally where `wrangler dev
  // --persist-to` keeps them.
  r2Persist: persist ? resolve(persist, "r2") : false,
  log: new Log(LogLevel.WARN),
  // No network: never fetch the `request.cf` placeholder from Cloudflare, use Miniflare's default.
  cf: false,
});

let closing = false;
async function close(code) {
  if (closing) return;
  closing = true;
  try {
    await mf.dispose();
  } catch (err) {
    process.stderr.write(
      `edge/serve: Cannot dispose workerd cleanly: ${err?.message ?? err}\n`,
    );
  }
  process.exit(code);
}
process.on("SIGINT", () => close(0));
process.on("SIGTERM", () => close(0));
process.stdin.on("end", () => close(0));
process.stdin.on("error", () => close(0));
process.stdin.resume();

try {
  const url = await mf.ready;
  process.stdout.write(`READY ${url.href}\n`);
} catch (err) {
  process.stderr.write(
    `edge/serve: Cannot start workerd: ${err?.stack ?? err}\n`,
  );
  await close(1);
}
