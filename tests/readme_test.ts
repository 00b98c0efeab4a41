// README "Try it in a minute", run as written: the commands of its code blocks, in order, in one
// shell, from a fresh directory (a fresh data directory and $HOME), each output checked. The only
// rewrites: `npx -y deno@2.9.6 task` becomes this Deno's `deno task --cwd <repo>` (the same
// version, no download; `--cwd` keeps the caller's directory in INIT_CWD, as running from the
// repository root would), and the service's port is a free one instead of 8080 (other tests run
// at the same time) — the start line says which, and JC_URL tells the client.
// Also the `prove 000…0` regression (issue 17): 64 zeros are a leaf hash, never index 0.
import assert from "node:assert/strict";
import { ROOT } from "./e2e/_service.ts";

const NPX_DENO = "npx -y deno@2.9.6 task";
const dec = new TextDecoder();

/** The commands of the "Try it in a minute" section's ```sh blocks (comments stripped), in order. */
export function tryItCommands(readme: string): string[] {
  return sectionCommands(readme, "## Try it in a minute");
}

/** The commands of the ```sh blocks of the section under `heading`, comments stripped, in order. */
export function sectionCommands(readme: string, heading: string): string[] {
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has a section ${heading}`);
  const end = readme.indexOf("\n## ", start + 5);
  const section = readme.slice(start, end);
  const cmds: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1].split("\n")) {
      const cmd = line.replace(/\s{2,}#.*$/, "").trim(); // comments: two spaces, then #
      if (cmd) cmds.push(cmd);
    }
  }
  return cmds;
}

interface Ran {
  cmd: string;
  code: number;
  out: string;
  err: string;
}

/** Runs `cmds` in one bash, in `cwd`, returning each command's status and output. */
async function runInOneShell(
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

const json = (r: Ran) => JSON.parse(r.out.trim().split("\n").at(-1)!);

Deno.test({
  name: "README: Try it in a minute, as written, against a fresh data directory",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cmds = tryItCommands(await Deno.readTextFile(`${ROOT}README.md`));
    assert.ok(cmds.every((c) => c.includes(NPX_DENO) || c.startsWith("sed ")), cmds.join("\n"));
    const dir = await Deno.makeTempDir({ prefix: "jc-readme-" });
    const home = `${dir}/home`;
    const work = `${dir}/work`;
    await Deno.mkdir(home);
    await Deno.mkdir(work);
    await Deno.symlink(`${ROOT}examples`, `${work}/examples`);
    const deno = `${Deno.execPath()} task --cwd ${ROOT}`;
    const env = {
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
      env,
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
    try {
      const hello = JSON.parse(first.split("\n")[0]);
      assert.deepEqual(Object.keys(hello), ["listening", "signer", "pid"]);
      assert.match(hello.listening, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(hello.signer, /^did:key:z6Mk/);
      const url: string = hello.listening;
      await Deno.stat(`${work}/data/log-key.hex`); // the fresh data dir is the caller's ./data

      const rest = cmds.slice(1).map((c) =>
        c.replaceAll(NPX_DENO, deno).replaceAll("http://127.0.0.1:8080", url)
      );
      const r = await runInOneShell(rest, work, { ...env, JC_URL: url });
      const expect: ((x: Ran) => void)[] = [
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
        (x) => { // submit
          assert.equal(x.code, 0, x.err);
          assert.equal(json(x).index, 0);
          assert.equal(json(x).verified, true);
        },
        (x) => { // monitor: first head
          assert.equal(x.code, 0, x.err);
          assert.equal(json(x).ok, true);
          assert.equal(json(x).size, 1);
        },
        (x) => assert.equal(json(x).index, 1, x.err),
        (x) => assert.equal(json(x).index, 2, x.err),
        (x) => { // prove --index 0
          assert.equal(x.code, 0, x.err);
          assert.equal(json(x).index, 0);
          assert.equal(json(x).size, 3);
          assert.equal(json(x).verified, true);
        },
        (x) => { // monitor: consistency 1 → 3
          assert.equal(x.code, 0, x.err);
          // from the published tiles, both views (docs/PUBLICATION.md: prove and monitor use them
          // whenever the log publishes them)
          assert.equal(json(x).from, "tiles");
          assert.match(json(x).message, /blake3 3 extends 1; sha256 3 extends 1/);
        },
        (x) => { // the invalid receipt is refused
          assert.equal(x.code, 1);
          assert.match(x.err, /HTTP 422 joules-below-tools/);
        },
        (x) => { // keygen into a variable
          assert.equal(x.code, 0, x.err);
        },
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
            JSON.parse(
              Deno.readTextFileSync(`${ROOT}examples/receipt.core.json`),
            ).steward,
          );
        },
      ];
      assert.equal(r.length, expect.length, `the README has ${r.length} commands to check`);
      r.forEach((x, i) => expect[i](x));
      // The files the commands wrote are in the caller's directory, the key 0600; the monitor's
      // state is in the user's state directory, not in the working tree.
      assert.equal((await Deno.stat(`${work}/my-steward.key`)).mode! & 0o777, 0o600);
      await Deno.stat(`${work}/my.cose`);
      await Deno.stat(`${home}/.local/state/jouleclaw/monitor.json`);
      await assert.rejects(Deno.stat(`${work}/.jc-monitor.json`));
      await assert.rejects(Deno.stat(`${ROOT}my.cose`));

      // Regression: `prove 000…0` (64 zeros) is a leaf hash the log does not have, never index 0.
      const [zeros, byLeaf] = await runInOneShell(
        [
          `${deno} -q client prove ${"0".repeat(64)}`,
          `${deno} -q client prove --leaf ${"0".repeat(64)}`,
        ],
        work,
        { ...env, JC_URL: url },
      );
      for (const x of [zeros, byLeaf]) {
        assert.equal(x.code, 1, `${x.cmd}: ${x.out}`);
        assert.equal(x.out, "", "no proof is reported");
        assert.match(x.err, /HTTP 404 not-found .*no entry has leaf hash 0{64}/);
      }
      // `client submit` reads what `verify` reads: a {"envelope": hex} file is that envelope
      // (it used to be sent as is and refused `truncated`).
      const hex = Array.from(
        await Deno.readFile(`${ROOT}examples/policy.cose`),
        (b) => b.toString(16).padStart(2, "0"),
      ).join("");
      await Deno.writeTextFile(`${work}/policy.json`, JSON.stringify({ envelope: hex }));
      const [asJson] = await runInOneShell([`${deno} -q client submit policy.json`], work, {
        ...env,
        JC_URL: url,
      });
      assert.equal(asJson.code, 0, asJson.err);
      assert.equal(json(asJson).index, 1, "the logged policy.cose, not a new entry");
      assert.equal(json(asJson).created, false);

      // README "Static tiled publication": its curl examples, as written, on the log the quick
      // start left (3 entries; they asked for a 5-wide tile and entry 3, and got 404s).
      const c2sp = sectionCommands(
        await Deno.readTextFile(`${ROOT}README.md`),
        "## Static tiled publication (C2SP)",
      );
      assert.equal(c2sp.length, 3, c2sp.join("\n"));
      const host = url.replace(/^http:\/\//, "");
      const [checkpoint, tile, tlogProof] = await runInOneShell(
        c2sp.map((c) => c.replaceAll("localhost:8080", host)),
        work,
        env,
      );
      assert.match(
        checkpoint.out,
        /^jouleclaw\.invalid\/[0-9a-f]{16}\/sha256\n3\n[A-Za-z0-9+/=]{44}\n\n/,
      );
      const lines = tile.out.trim().split("\n");
      assert.equal(lines.length, 6, `3 hashes of 32 bytes: 6 lines of xxd\n${tile.out}`);
      assert.match(lines[0], /^00000000: [0-9a-f ]{39}/);
      assert.doesNotMatch(tile.out, /not-found|problem/);
      assert.match(tlogProof.out, /^c2sp\.org\/tlog-proof@v1\n/);
      assert.match(tlogProof.out, /\nindex 2\n/);
      // The README's steward key lands in the caller's directory: git ignores it there (in the
      // repository root too, where the README's commands run), so a secret is never committed.
      const ignored = await new Deno.Command("git", {
        args: ["check-ignore", "--no-index", "my-steward.key", "any/dir/other.key"],
        cwd: ROOT,
        stdout: "piped",
      }).output();
      assert.equal(ignored.code, 0, ".gitignore covers *.key");
      assert.equal(dec.decode(ignored.stdout), "my-steward.key\nany/dir/other.key\n");
    } finally {
      Deno.kill(svc.pid, "SIGTERM");
      await svc.status;
      await reader.cancel().catch(() => {});
      const said = await errText;
      await Deno.remove(dir, { recursive: true });
      // One start line on stdout; on stderr nothing but the drain on SIGTERM (and deno task's
      // own "Task start" line): no install noise, no koffi warning, no "Initialize" lines.
      assert.doesNotMatch(said, /Initialize|approve-scripts|koffi|Warning/i, said);
    }
  },
});
