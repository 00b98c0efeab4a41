// cli/args.ts, the one parser of every command line, and the client's `prove` target rule.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type CommandSpec,
  list,
  parseArgs,
  resolveFromCaller,
  UsageError,
  usageText,
} from "../../cli/mod.ts";
import { proveTarget } from "../../client/main.ts";

const SPEC: CommandSpec = {
  name: "t",
  args: "FILE",
  summary: "a test command",
  positionals: [1, 1],
  options: [
    { name: "key", value: "FILE", help: "k" },
    { name: "tag", value: "T", repeat: true, help: "t" },
    { name: "once", short: "1", help: "o" },
  ],
};

Deno.test("cli args: both value forms, repeats, --, and refusals", () => {
  const p = parseArgs(["--key", "a", "--tag=x", "--tag", "y", "-1", "f"], SPEC);
  assert.deepEqual(p.options, { key: "a", tag: ["x", "y"], once: true });
  assert.deepEqual(p.positional, ["f"]);
  assert.deepEqual(list(p, "tag"), ["x", "y"]);
  assert.deepEqual(parseArgs(["--", "--key"], SPEC).positional, ["--key"]);
  assert.equal(parseArgs(["--nope", "--help"], SPEC).help, true, "help wins");
  for (
    const bad of [
      ["--nope", "f"],
      ["--key"],
      ["--once=1", "f"],
      ["--key", "a", "--key", "b", "f"],
      [
        "f",
        "g",
      ],
      [],
    ]
  ) {
    assert.throws(() => parseArgs(bad, SPEC), UsageError, bad.join(" "));
  }
  const u = usageText(SPEC);
  for (const o of ["--key FILE", "--tag T", "-1, --once", "-h, --help"]) {
    assert.ok(u.includes(o), o);
  }
});

Deno.test("cli args: relative paths resolve against INIT_CWD, then the cwd; absolute ones stay", () => {
  assert.equal(resolveFromCaller("k.json", { INIT_CWD: "/home/u/x" }, "/repo"), "/home/u/x/k.json");
  assert.equal(resolveFromCaller("./d", {}, "/repo/"), "/repo/d");
  assert.equal(resolveFromCaller("/abs/k", { INIT_CWD: "/x" }, "/repo"), "/abs/k");
  assert.equal(resolveFromCaller("-", { INIT_CWD: "/x" }, "/repo"), "-");
});

const PROVE: CommandSpec = {
  ...SPEC,
  positionals: [0, 1],
  options: [{ name: "index", value: "N", help: "" }, { name: "leaf", value: "HEX", help: "" }],
};
const target = (args: string[]) => proveTarget(parseArgs(args, PROVE));

Deno.test("client prove: 64 hex digits are a leaf hash even when all digits; digits otherwise an index", () => {
  assert.equal(target(["0".repeat(64)]), "0".repeat(64), "64 zeros: a leaf hash, never index 0");
  assert.equal(target(["12"]), 12);
  assert.equal(target(["AB".repeat(32)]), "ab".repeat(32));
  fc.assert(fc.property(fc.stringMatching(/^[0-9]{64}$/), (s) => target([s]) === s));
  assert.equal(target(["--index", "7"]), 7);
  assert.equal(target(["--leaf", "1".repeat(64)]), "1".repeat(64));
  for (
    const bad of [["12x"], ["0".repeat(63) + "g"], ["012"], ["1".repeat(17)], [], [
      "--index",
      "1",
      "2",
    ], ["--leaf", "12"]]
  ) {
    assert.throws(() => target(bad), UsageError, JSON.stringify(bad));
  }
});
