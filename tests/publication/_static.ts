// Static tiled logs on disk, served by `python3 -m http.server` (not our code) on 127.0.0.1 with a
// free port: the fixtures of the publication tests (Go's x/mod, the Python verifier, the client,
// the mirror). The files come from log/c2sp's pure builder.
import { blake3Hasher, c2sp, sha256Hasher } from "../../log/mod.ts";

/** The fixed test key of the static logs (never a production key). */
export const STATIC_SECRET = new Uint8Array(32).map((_, i) => 0x21 + i);
export const STATIC_NAME = "static.example/jc";
export const vkeyOf = (view: "blake3" | "sha256", secret = STATIC_SECRET, name = STATIC_NAME) =>
  c2sp.ed25519Vkey(`${name}/${view}`, secret);

/** Entry i of the static logs. */
export const entryOf = (i: number) =>
  new TextEncoder().encode(`static entry ${i} `.repeat(1 + (i % 3)));

/** The files of a static log with `n` entries and checkpoints at `sizes` (default [n]). */
export function staticLog(
  n: number,
  sizes?: number[],
  secret = STATIC_SECRET,
  entries?: Uint8Array[],
): Map<string, Uint8Array> {
  const es = entries ?? Array.from({ length: n }, (_, i) => entryOf(i));
  return c2sp.staticLogFiles({ blake3: blake3Hasher, sha256: sha256Hasher }, {
    name: STATIC_NAME,
    secret,
    entries: es,
    sizes,
  });
}

/** Writes `files` under `dir` (creating folders). */
export async function writeFiles(dir: string, files: Map<string, Uint8Array>): Promise<void> {
  const made = new Set<string>();
  for (const [path, bytes] of files) {
    const d = `${dir}/${path.slice(0, path.lastIndexOf("/"))}`;
    if (!made.has(d)) {
      await Deno.mkdir(d, { recursive: true });
      made.add(d);
    }
    await Deno.writeFile(`${dir}/${path}`, bytes);
  }
}

/** A running `python3 -m http.server` over a directory. */
export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `dir` with Python's http.server on 127.0.0.1, a free port. */
export async function serveDir(dir: string): Promise<StaticServer> {
  const child = new Deno.Command("/usr/bin/python3", {
    args: ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, "0"],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + 20_000;
  let port: string | undefined;
  while (!port) {
    if (Date.now() > deadline) throw new Error("Cannot start python3 -m http.server: no port");
    const { value, done } = await reader.read();
    if (done) throw new Error(`Cannot start python3 -m http.server: ${seen}`);
    seen += value;
    port = /port (\d+)/.exec(seen)?.[1];
  }
  // Keep draining stdout so the server never blocks on a full pipe.
  (async () => {
    try {
      while (!(await reader.read()).done);
    } catch { /* closed */ }
  })();
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}
