// The runner of the README's commands "as written" (tests/readme_test.ts, and after a rotation
// tests/readme_rotation_test.ts): the commands of a section's ```sh blocks, in order, in one shell,
// from a fresh directory (a fresh data directory and $HOME). The only rewrites: `npx -y
// deno@2.9.6 task` becomes this Deno's `deno task --cwd <repo>` (the same version, no download;
// `--cwd` keeps the caller's directory in INIT_CWD, as running from the repository root would),
// and the service's port is a free one instead of 8080 (other tests run at the same time) — the
// start line says which, and JC_URL tells the client.
import assert from "node:assert/strict";
import { ROOT } from "../fixtures/service.ts";

export const NPX_DENO = "npx -y deno@2.9.6 task";

/** The commands of the "Try it in a minute" section's ```sh blocks (comments stripped), in order. */
export function tryItCommands(readme: string): string[] {
  return sectionCommands(readme, "## Try it in a minute");
}

/** The commands of each ```sh block of the section under `heading`, comments stripped. */
export function sectionBlocks(readme: string, heading: string): string[][] {
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has a section ${heading}`);
  const end = readme.indexOf("\n## ", start + 5);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    block[1].split("\n")
      .map((line) => line.replace(/\s{2,}#.*$/, "").trim()) // comments: two spaces, then #
      .filter((cmd) => cmd !== "")
  );
}

/** The commands of the ```sh blocks of the section under `heading`, comments stripped, in order. */
export function sectionCommands(readme: string, heading: string): string[] {
  return sectionBlocks(readme, heading).flat();
}

export interface Ran {
  cmd: string;
  code: number;
  out: string;
  err: string;
}

/** The last line of a command's stdout, as JSON. */
export const json = (r: Ran) => JSON.parse(r.out.trim().split("\n").at(-1)!);

/** Runs `cmds` in one bash, in `cwd`, returning each command's status and output. */
export async function runInOneShell(
  cmds: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Ran[]> {
  const script = cmds.map((c, i) =>
    `echo "::begin ${i}"; echo "::begin ${i}" >&2\n${c}\necho "::rc ${i} $?"`
  ).join("\n");
  const o = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const split = (text: string) => text.split(/^::begin \d+\n/m).slice(1);
  const outs = split(new TextDecoder().decode(o.stdout));
  const errs = split(new TextDecoder().decode(o.stderr));
  return cmds.map((cmd, i) => {
    const m = /::rc (\d+) (\d+)\n?$/.exec(outs[i] ?? "");
    assert.ok(m, `command ${i} (${cmd}) ran to its end:\n${outs[i]}\n${errs[i]}`);
    return { cmd, code: Number(m[2]), out: outs[i].slice(0, m.index), err: errs[i] ?? "" };
  });
}

/** The quick start's service, started by the README's first command in a fresh directory. */
export interface QuickStart {
  /** The README's "Try it in a minute" commands after the start line, as written. */
  rest: string[];
  /** The service's URL (the start line's `listening`). */
  url: string;
  /** The caller's directory (examples/ linked in) and its $HOME. */
  work: string;
  home: string;
  /** The environment of the commands, JC_URL set. */
  env: Record<string, string>;
  /** This Deno's `deno task --cwd <repo>`, what `npx -y deno@2.9.6 task` becomes. */
  deno: string;
  /** Runs README commands (of any section) as written: only the two rewrites. */
  run(cmds: string[]): Promise<Ran[]>;
  /** SIGTERM, wait, remove the directory; asserts stderr carried no install noise. */
  stop(): Promise<void>;
}

/**
 * Starts the service as "Try it in a minute" does (its first command), from a fresh directory,
 * `extraEnv` added to the service's environment only (what an operator sets before starting).
 */
export async function startQuickStart(extraEnv: Record<string, string> = {}): Promise<QuickStart> {
  const cmds = tryItCommands(await Deno.readTextFile(`${ROOT}README.md`));
  assert.ok(cmds.every((c) => c.includes(NPX_DENO) || c.startsWith("sed ")), cmds.join("\n"));
  const dir = await Deno.makeTempDir({ prefix: "jc-readme-" });
  const home = `${dir}/home`;
  const work = `${dir}/work`;
  await Deno.mkdir(home);
  await Deno.mkdir(work);
  await Deno.symlink(`${ROOT}examples`, `${work}/examples`);
  const deno = `${Deno.execPath()} task --cwd ${ROOT}`;
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    NO_COLOR: "1",
    PORT: "0", // a free port; the README's 8080 is substituted below
    HOST: "127.0.0.1",
    JC_RATE_READ: "0",
    JC_RATE_WRITE: "0",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
  };
  // The first command starts the service (the README runs it in its own terminal).
  assert.equal(cmds[0], `${NPX_DENO} -q start`);
  const svc = new Deno.Command("bash", {
    args: ["-c", `exec ${cmds[0].replace(NPX_DENO, deno)}`],
    cwd: work,
    env: { ...env, ...extraEnv },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = svc.stdout.getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    first += new TextDecoder().decode(value);
  }
  const errText = new Response(svc.stderr).text();
  const stop = async () => {
    Deno.kill(svc.pid, "SIGTERM");
    await svc.status;
    await reader.cancel().catch(() => {});
    const said = await errText;
    await Deno.remove(dir, { recursive: true });
    // One start line on stdout; on stderr nothing but the drain on SIGTERM (and deno task's
    // own "Task start" line): no install noise, no koffi warning, no "Initialize" lines.
    assert.doesNotMatch(said, /Initialize|approve-scripts|koffi|Warning/i, said);
  };
  try {
    const hello = JSON.parse(first.split("\n")[0]);
    assert.deepEqual(Object.keys(hello), ["listening", "signer", "pid"]);
    assert.match(hello.listening, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(hello.signer, /^did:key:z6Mk/);
    const url: string = hello.listening;
    await Deno.stat(`${work}/data/log-key.hex`); // the fresh data dir is the caller's ./data
    const host = url.replace(/^http:\/\//, "");
    const rewrite = (c: string) =>
      c.replaceAll(NPX_DENO, deno).replaceAll("http://127.0.0.1:8080", url)
        .replaceAll("localhost:8080", host);
    const cenv = { ...env, JC_URL: url };
    return {
      rest: cmds.slice(1),
      url,
      work,
      home,
      env: cenv,
      deno,
      run: (c) => runInOneShell(c.map(rewrite), work, cenv),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** What "Make your own receipt" prints, the same before and after a rotation (no log involved). */
export const makeYourOwnExpected: ((x: Ran) => void)[] = [
  (x) => assert.equal(x.code, 0, x.err), // keygen into a variable
  (x) => assert.equal(x.code, 0, x.err), // sed
  (x) => { // seal
    assert.equal(x.code, 0, x.err);
    assert.equal(json(x).valid, true);
    assert.equal(json(x).schema, "1");
  },
  (x) => { // verify my.cose
    assert.equal(x.code, 0, x.err);
    assert.equal(json(x).valid, true);
    assert.notEqual(
      json(x).steward,
      JSON.parse(Deno.readTextFileSync(`${ROOT}examples/receipt.core.json`)).steward,
    );
  },
];

/** What the two `verify` lines print (offline, the same before and after a rotation). */
export const verifyExamplesExpected: ((x: Ran) => void)[] = [
  (x) => { // verify a valid example
    assert.equal(x.code, 0, x.err);
    assert.equal(json(x).valid, true);
    assert.equal(json(x).schema, "1");
  },
  (x) => { // verify the invalid example
    assert.equal(x.code, 1, x.err);
    assert.equal(json(x).valid, false);
    assert.match(x.out, /"joules-below-tools"/);
  },
];

/** The invalid receipt's `submit` is refused, nothing appended. */
export function refusedInvalid(x: Ran): void {
  assert.equal(x.code, 1);
  assert.match(x.err, /HTTP 422 joules-below-tools/);
}
