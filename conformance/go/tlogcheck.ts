// Builds and runs conformance/go/tlogcheck (Go's golang.org/x/mod/sumdb/note and sumdb/tlog,
// Debian golang-go + golang-golang-x-mod-dev, GOPATH mode, offline) against a log's SHA-256 view.
// The publication tests use it over static directories; the service's tests over the live routes.
// A missing toolchain FAILS, naming the Debian packages.

const SRC = new URL("./tlogcheck/", import.meta.url).pathname;
let built: Promise<string> | undefined;

/** The path of the built checker (built once per process, in a temporary directory). */
export function buildTlogcheck(): Promise<string> {
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "jc-tlogcheck-" });
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("go", {
        args: ["build", "-o", `${dir}/tlogcheck`, "."],
        cwd: SRC,
        env: {
          GO111MODULE: "off",
          GOPATH: "/usr/share/gocode",
          GOCACHE: `${dir}/cache`,
          GOFLAGS: "",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (e) {
      throw new Error(
        `Cannot build the Go checker: no \`go\` (install Debian golang-go and golang-golang-x-mod-dev): ${e}`,
      );
    }
    if (!out.success) {
      throw new Error(
        `Cannot build the Go checker (Debian golang-golang-x-mod-dev installed?): ${
          new TextDecoder().decode(out.stderr)
        }`,
      );
    }
    return `${dir}/tlogcheck`;
  })();
  return built;
}

/** What the checker reports. */
export interface TlogcheckResult {
  ok: boolean;
  error?: string;
  size?: number;
  records?: number;
  consistent?: number;
  tile_reads?: number;
  tiles?: string[];
}

/** Runs the checker with `args`; its JSON line, `ok` false when it exits non-zero. */
export async function runTlogcheck(args: string[]): Promise<TlogcheckResult> {
  const bin = await buildTlogcheck();
  const out = await new Deno.Command(bin, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  let r: TlogcheckResult;
  try {
    r = JSON.parse(text);
  } catch {
    throw new Error(
      `Cannot read the Go checker's answer: ${text} ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  if (out.success !== r.ok) throw new Error(`Go checker: exit status and answer disagree: ${text}`);
  return r;
}
