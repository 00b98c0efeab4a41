// tests/run.ts: the failure digest that is printed again at the end of `deno task test` (CI keeps
// only the tail of the output), and the file discovery that decides what runs.
import assert from "node:assert/strict";
import { FailureDigest, SERIAL, testFiles } from "./run.ts";

Deno.test("run.ts: the digest keeps deno test's ERRORS and FAILURES, however the output is cut", () => {
  const out = [
    "running 2 tests from ./tests/a_test.ts",
    "a ... \x1b[32mok\x1b[0m",
    'error: Uncaught (in worker "") Error: drill: crash',
    "b ... \x1b[31mFAILED\x1b[0m",
    "",
    " \x1b[31mERRORS\x1b[0m ",
    "",
    "b => ./tests/a_test.ts:9:6",
    "error: AssertionError: 1 !== 2",
    "",
    " \x1b[31mFAILURES\x1b[0m ",
    "",
    "b => ./tests/a_test.ts:9:6",
    "",
    "FAILED | 1 passed | 1 failed (3s)",
    "",
  ].join("\n");
  for (const cut of [1, 3, 7, 64, out.length]) {
    const d = new FailureDigest();
    for (let i = 0; i < out.length; i += cut) d.push(out.slice(i, i + cut));
    const text = d.text();
    assert.match(text, /^error: Uncaught \(in worker ""\) Error: drill: crash$/m, `cut ${cut}`);
    assert.match(text, /ERRORS[\s\S]*AssertionError: 1 !== 2[\s\S]*FAILURES[\s\S]*b => /);
    assert.match(text, /FAILED \| 1 passed \| 1 failed/);
    // deno-lint-ignore no-control-regex -- ANSI colour codes, on purpose
    assert.doesNotMatch(text, /\x1b\[/, "colours stripped");
    assert.doesNotMatch(text, /a \.\.\. ok/, "passing lines are not repeated");
  }
});

Deno.test("run.ts: a huge ERRORS section is cut before FAILURES, which is kept whole", () => {
  const d = new FailureDigest();
  d.push(" ERRORS \n" + "x".repeat(100).concat("\n").repeat(500));
  d.push(" FAILURES \n\nt1 => ./a_test.ts:1:1\nt2 => ./b_test.ts:2:2\n");
  const text = d.text();
  assert.ok(text.length <= FailureDigest.MAX_CHARS + 100, `${text.length} chars`);
  assert.match(text, /\[\.\.\. cut \.\.\.\]/);
  assert.match(text, /FAILURES \n\nt1 => \.\/a_test\.ts:1:1\nt2 => \.\/b_test\.ts:2:2/);
});

Deno.test("run.ts: every SERIAL file is a test file the discovery finds; this file is found", async () => {
  const all = await testFiles();
  assert.ok(all.includes("tests/run_test.ts"));
  for (const f of Object.keys(SERIAL)) assert.ok(all.includes(f), f);
  assert.ok(!all.some((f) => f.includes("node_modules/")));
});
