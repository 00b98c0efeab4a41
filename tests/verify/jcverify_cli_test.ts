// `python3 -m jcverify` as a user runs it (conformance/python/, README "Verifying"): one receipt
// in each form `deno task verify` reads (raw, hex, {"envelope": hex}, stdin) gets a JSON report and
// the same exit status as `deno task verify` (0 valid, 1 invalid, 2 unusable); --help is usage on
// stdout (0); a missing file, garbage, an unknown option or a schema it does not implement is a
// message and exit 2 — never a traceback (it used to end in one on a receipt or --help); vector
// folders are still re-verified.
import assert from "node:assert/strict";
import { ROOT } from "../../fixtures/service.ts";
import { toHex } from "../../verify/mod.ts";

const PY = "/usr/bin/python3";
const dec = new TextDecoder();

async function jcverify(args: string[], stdin?: Uint8Array) {
  const child = new Deno.Command(PY, {
    args: ["-m", "jcverify", ...args],
    cwd: `${ROOT}conformance/python`,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const o = await child.output();
  const r = { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
  assert.doesNotMatch(r.out + r.err, /Traceback/, `${args.join(" ")}: ${r.err}`);
  return r;
}

async function denoVerify(file: string): Promise<number> {
  return (await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "verify", "--compact", file],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).output()).code;
}

Deno.test("python3 -m jcverify: a receipt in every form, usage, and unusable input, never a traceback", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-pyverify-" });
  try {
    const help = await jcverify(["--help"]);
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^usage: python3 -m jcverify /);
    assert.match(help.out, /Exit status: 0 valid/);

    const ex = (n: string) => `${ROOT}examples/${n}`;
    for (
      const [name, valid] of [["receipt.cose", true], ["policy.cose", true], ["jcp2.cose", true], [
        "invalid-joules-below-tools.cose",
        false,
      ]] as const
    ) {
      const bytes = await Deno.readFile(ex(name));
      await Deno.writeTextFile(`${tmp}/${name}.hex`, toHex(bytes) + "\n");
      await Deno.writeTextFile(`${tmp}/${name}.json`, JSON.stringify({ envelope: toHex(bytes) }));
      const want = valid ? 0 : 1;
      assert.equal(await denoVerify(ex(name)), want, `deno task verify ${name}`);
      for (const f of [ex(name), `${tmp}/${name}.hex`, `${tmp}/${name}.json`]) {
        const r = await jcverify([f, "--compact"]);
        assert.equal(r.code, want, `${f}: ${r.out}${r.err}`);
        const report = JSON.parse(r.out);
        assert.equal(report.valid, valid);
        // JCR-1 §6: no reference vectors given, so a cascade receipt is joule-unverified
        const verdict = !valid ? "invalid" : name === "receipt.cose" ? "joule-unverified" : "valid";
        assert.equal(report.verdict, verdict, `${f}: ${r.out}`);
        if (!valid) assert.deepEqual(report.codes, ["joules-below-tools"]);
      }
      const piped = await jcverify(["-"], bytes);
      assert.equal(piped.code, want, piped.err);
    }

    // SPEC §6: out of band under the operator's reference vector is an alert, exit 0, as verify/'s
    const vectors = `${ROOT}conformance/vectors/`;
    const alertHex = JSON.parse(await Deno.readTextFile(`${vectors}jcr1.json`)).vectors
      .find((v: { name: string }) => v.name === "jcr1-13-alert-out-of-band").cose_sign1_hex;
    await Deno.writeTextFile(`${tmp}/alert.hex`, alertHex);
    const al = await jcverify([`${tmp}/alert.hex`, "--config", `${vectors}operator-config.json`]);
    assert.equal(al.code, 0, al.out + al.err);
    assert.deepEqual(
      (({ valid, verdict, codes }) => ({ valid, verdict, codes }))(JSON.parse(al.out)),
      { valid: true, verdict: "alert", codes: ["out-of-band"] },
    );

    // unusable: a missing file, garbage, bad JSON, an unknown option, two receipts
    await Deno.writeTextFile(`${tmp}/garbage.txt`, "hello, not a receipt\n");
    await Deno.writeTextFile(`${tmp}/bad.json`, '{"envelope": 42}');
    for (
      const [args, said] of [
        [[`${tmp}/missing.cose`], /Cannot read .*missing\.cose: No such file/],
        [[`${tmp}/garbage.txt`], /neither a COSE_Sign1, hex, nor/],
        [[`${tmp}/bad.json`], /must be \{"envelope": "<hex>"\}/],
        [["--bogus", ex("receipt.cose")], /unrecognized arguments: --bogus/],
        [[ex("receipt.cose"), ex("policy.cose")], /one receipt file, or only folders/],
        [[], /the following arguments are required/],
      ] as const
    ) {
      const r = await jcverify([...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}${r.err}`);
      assert.match(r.err, said);
      assert.equal(r.out, "");
    }

    // meter-reading/1 is judged here too (issue 26): a valid reading exit 0, a stale one exit 1
    const readings = JSON.parse(
      await Deno.readTextFile(`${ROOT}conformance/vectors/meter-reading.json`),
    ).vectors as { name: string; cose_sign1_hex: string; expected: { valid: boolean } }[];
    const meter = readings.find((v) => v.expected.valid)!;
    await Deno.writeTextFile(`${tmp}/meter.hex`, meter.cose_sign1_hex);
    const m = await jcverify([`${tmp}/meter.hex`, "--compact"]);
    assert.equal(m.code, 0, m.out + m.err);
    assert.match(m.out, /"valid":true/);
    const stale = readings.find((v) => v.name === "neg-reading-stale-evidence")!;
    await Deno.writeTextFile(`${tmp}/stale.hex`, stale.cose_sign1_hex);
    const s = await jcverify([`${tmp}/stale.hex`, "--compact"]);
    assert.equal(s.code, 1, s.out + s.err);
    assert.match(s.out, /"codes":\["reading-stale-evidence"\]/);

    // vector folders as before
    const v = await jcverify([`${ROOT}conformance/vectors`]);
    assert.equal(v.code, 0, v.err);
    assert.match(v.out, /checked \d+ vectors, 0 disagreements/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
