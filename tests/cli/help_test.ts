// Every command line answers --help with its usage on stdout (exit 0) and an unknown option with
// the usage on stderr (exit 2), run as a user runs them (`deno task …`, issue 17); file arguments
// resolve against the caller's directory, not the project root where `deno task` runs.
import assert from "node:assert/strict";
import { main as agentMain } from "../../meter-agent/src/cli.ts";
import { ROOT } from "../../fixtures/service.ts";

/** The environment of a shell: `deno task` keeps an INIT_CWD it inherits (as npm does), so the
 * one `deno task test` set for this process must not leak into the commands run here. */
function shellEnv(): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  return { ...env, NO_COLOR: "1" };
}

async function task(args: string[], cwd = ROOT) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "--cwd", ROOT, ...args],
    cwd,
    env: shellEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

const COMMANDS: string[][] = [
  ["verify"],
  ["fsck"],
  ["client"],
  ["client", "submit"],
  ["client", "prove"],
  ["client", "get"],
  ["client", "head"],
  ["client", "monitor"],
  ["client", "mirror"],
  ["client", "verify-proof"],
  ["client", "keygen"],
  ["client", "seal"],
  ["rdf:sync"],
  ["backup"],
  ["restore"],
  ["start"], // the service and the edge runtime: usage and exit, never a server (issue 28)
  ["edge"],
];

Deno.test("cli: every deno task command answers --help (stdout, 0) and an unknown option (stderr, 2)", async () => {
  const results = await Promise.all(COMMANDS.flatMap((c) => [
    task([...c, "--help"]).then((r) => ({ c, kind: "help", r })),
    task([...c, "--no-such-option"]).then((r) => ({ c, kind: "bad", r })),
  ]));
  for (const { c, kind, r } of results) {
    const name = c.join(" ");
    if (kind === "help") {
      assert.equal(r.code, 0, `${name} --help: exit ${r.code} ${r.err}`);
      assert.match(r.out, new RegExp(`^Usage: deno task ${name}`), `${name} --help on stdout`);
      assert.equal(r.err, "", `${name} --help: nothing on stderr`);
    } else {
      assert.equal(r.code, 2, `${name} --no-such-option: exit ${r.code}`);
      assert.equal(r.out, "", `${name} --no-such-option: nothing on stdout`);
      assert.match(r.err, /unknown option --no-such-option/, name);
      assert.match(r.err, /Usage: deno task /, `${name}: usage on stderr`);
    }
  }
});

Deno.test("cli: the meter agent answers --help and an unknown option the same way", async () => {
  let out = "";
  assert.equal(await agentMain(["--help"], (s) => out += s), 0);
  assert.match(out, /^Usage: node meter-agent\/dist\/meter-agent\.mjs/);
  assert.match(out, /--quiet/);
  assert.match(out, /--timeout S/);
  const err = console.error;
  let said = "";
  console.error = (s: string) => said += s;
  try {
    assert.equal(await agentMain(["--help-me"]), 2);
  } finally {
    console.error = err;
  }
  assert.match(said, /unknown option --help-me/);
  assert.match(said, /Usage: node meter-agent/);
});

Deno.test("cli: file arguments are the caller's (INIT_CWD), and a network error names the URL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-cwd-" });
  try {
    const k = await task(["client", "keygen", "--out", "steward.key"], dir);
    assert.equal(k.code, 0, k.err);
    assert.match(k.out.trim(), /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    const st = await Deno.stat(`${dir}/steward.key`);
    assert.equal(st.mode! & 0o777, 0o600, "the key file is 0600");
    // never over an existing key
    const again = await task(["client", "keygen", "--out", "steward.key"], dir);
    assert.equal(again.code, 1);
    assert.match(again.err, /exists/);
    await Deno.copyFile(`${ROOT}examples/receipt.cose`, `${dir}/r.cose`);
    const v = await task(["verify", "--compact", "r.cose"], dir);
    assert.equal(v.code, 0, v.err);
    assert.equal(JSON.parse(v.out).valid, true);
    // a port nothing listens on (bound, then closed)
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}`;
    l.close();
    const h = await task(["client", "head", "--url", url]);
    assert.equal(h.code, 4, h.err); // a transport failure (docs/CLIENTS.md)
    // (its first request: the shard directory, GET /v1/logs; docs/CLIENTS.md "Shards")
    assert.match(h.err, new RegExp(`NET net-connect: Cannot fetch ${url}/v1/log`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
