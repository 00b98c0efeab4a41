// The repository's own checks run with the tests, so CI enforces them: `deno fmt --check` and
// `deno lint` over the project (deno.json names what they skip: vendored vectors, build output).
import assert from "node:assert/strict";

const root = new URL("..", import.meta.url).pathname;

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout) + dec.decode(r.stderr) };
}

Deno.test("style: deno fmt --check finds every file formatted", async () => {
  const r = await run(["fmt", "--check"]);
  assert.equal(r.code, 0, `run \`deno fmt\`:\n${r.out.slice(-4000)}`);
});

Deno.test("style: deno lint finds nothing", async () => {
  const r = await run(["lint"]);
  assert.equal(r.code, 0, r.out.slice(-4000));
});
