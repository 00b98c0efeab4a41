// Tests for `deno task verify`: exit statuses 0/1/2 through the real process, and every input form
// and operator flag in-process through runCli.
import assert from "node:assert/strict";
import { type CliIo, envelopeFromInput, HELP, runCli, VERIFY } from "./cli.ts";
import { fromHex, toHex } from "./bytes.ts";
import { coseSign1Es256, encodeCbor, p256PublicKey } from "./mod.ts";

const vdir = new URL("../conformance/vectors/", import.meta.url);
const CONFIG = new URL("operator-config.json", vdir).pathname;
const config = JSON.parse(await Deno.readTextFile(CONFIG));
type V = { name: string; cose_sign1_hex: string; json: Record<string, unknown> };
const all: V[] = [];
for (const f of ["jcr1.json", "siblings.json", "negative.json"]) {
  all.push(...JSON.parse(await Deno.readTextFile(new URL(f, vdir))).vectors);
}
const byName = (n: string) => all.find((v) => v.name === n)!;

function memIo(files: Record<string, Uint8Array | string>, stdin: Uint8Array = new Uint8Array()) {
  const out: string[] = [], err: string[] = [];
  const io: CliIo = {
    readFile: (p) => {
      if (Object.hasOwn(files, p)) {
        const f = files[p];
        return Promise.resolve(typeof f === "string" ? new TextEncoder().encode(f) : f);
      }
      if (p === CONFIG) return Deno.readFile(p);
      return Promise.reject(new Deno.errors.NotFound(`No such file: ${p}`));
    },
    readStdin: () => Promise.resolve(stdin),
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  };
  return { io, out, err, report: () => JSON.parse(out.join("")) };
}

async function run(
  args: string[],
  files: Record<string, Uint8Array | string> = {},
  stdin?: Uint8Array,
) {
  const m = memIo(files, stdin);
  const code = await runCli(args, m.io);
  return { code, ...m };
}

Deno.test("cli: the real process exits 0 valid, 1 invalid, 2 unusable", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const good = `${dir}/good.cose`, bad = `${dir}/bad.hex`;
    await Deno.writeFile(good, fromHex(byName("jcr1-02-l1-deterministic").cose_sign1_hex));
    await Deno.writeTextFile(bad, byName("neg-bad-signature").cose_sign1_hex + "\n");
    const cli = new URL("./cli.ts", import.meta.url).pathname;
    const exec = async (args: string[], stdin?: string) => {
      const p = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", cli, ...args],
        stdin: stdin === undefined ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      if (stdin !== undefined) {
        const w = p.stdin.getWriter();
        await w.write(new TextEncoder().encode(stdin));
        await w.close();
      }
      const o = await p.output();
      return {
        code: o.code,
        out: new TextDecoder().decode(o.stdout),
        err: new TextDecoder().decode(o.stderr),
      };
    };
    const ok = await exec(["--config", CONFIG, good]);
    assert.equal(ok.code, 0, ok.err);
    assert.equal(JSON.parse(ok.out).valid, true);
    const no = await exec([bad]);
    assert.equal(no.code, 1, no.err);
    assert.equal(JSON.parse(no.out).steps[2].code, "bad-signature");
    const junk = await exec(["-"], "this is not an envelope");
    assert.equal(junk.code, 2);
    assert.match(junk.err, /^Cannot read envelope: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: raw bytes, hex (any case, wrapped) and JSON {envelope} give the same report", async () => {
  const hex = byName("jcr1-04-l2-retrieval-grounded").cose_sign1_hex;
  const raw = await run(["f"], { f: fromHex(hex) });
  const wrapped = await run(
    ["-"],
    {},
    new TextEncoder().encode(hex.toUpperCase().replace(/(.{64})/g, "$1\n")),
  );
  const json = await run(["f"], { f: JSON.stringify({ envelope: hex }) });
  assert.equal(raw.code, 0);
  assert.deepEqual(wrapped.report(), raw.report());
  assert.deepEqual(json.report(), raw.report());
  assert.equal(raw.report().leaf_hash.length, 64);
});

Deno.test("cli: unusable input and bad flags exit 2 with a Cannot … message, and print no report", async () => {
  const cases: [string[], Record<string, string | Uint8Array>, RegExp][] = [
    [[], {}, /no input given/],
    [["a", "b"], { a: "x", b: "y" }, /exactly one input/],
    [["--frobnicate", "f"], { f: "x" }, /unknown option --frobnicate/],
    [["missing.cose"], {}, /Cannot read input/],
    [["f"], { f: "" }, /the input is empty/],
    [["f"], { f: "{not json" }, /does not parse/],
    [["f"], { f: '{"env": "00"}' }, /must be \{"envelope"/],
    [["f"], { f: "abc" }, /odd length.*\[bad-hex\]/],
    [["f"], { f: new Uint8Array([0x01, 0x02]) }, /neither a COSE_Sign1/],
    [["--config", "c", "f"], { c: "[]", f: "00" }, /\[bad-config\]/],
    [["--config", "c", "f"], { c: '{"gateway_keys": {"g": "zz"}}', f: "00" }, /\[bad-hex\]/],
    [
      ["--config", "c", "f"],
      { c: '{"keys": {"did:key:z6Mk": "00"}}', f: "00" },
      /\[bad-key-directory\]/,
    ],
    [["--config", "c", "f"], { c: '{"gateway_key": {}}', f: "00" }, /unknown member/],
    [["--policy", "p", "f"], { p: '{"rules": 3}', f: "00" }, /\[bad-policy\]/],
    [["--reference", "abc=5", "f"], { f: "00" }, /not a 64-hex input_hash/],
    [["--reference", `${"a".repeat(64)}=-5`, "f"], { f: "00" }, /not a u64/],
    [["--gateway-key", "novalue", "f"], { f: "00" }, /expected NAME=VALUE/],
    [["--key"], {}, /option --key needs a value/],
  ];
  for (const [args, files, re] of cases) {
    const r = await run(args, files);
    assert.equal(r.code, 2, `${args.join(" ")}: exit ${r.code}, out ${r.out.join("")}`);
    assert.deepEqual(r.out, []);
    assert.match(r.err.join(""), re, args.join(" "));
    assert.match(r.err.join(""), /^Cannot /);
  }
});

Deno.test("cli: --help documents every flag and exits 0", async () => {
  const r = await run(["--help"]);
  assert.equal(r.code, 0);
  for (
    const flag of [
      "--config",
      "--gateway-key",
      "--key",
      "--reference",
      "--policy",
      "--pure-ed25519",
      "--compact",
    ]
  ) {
    assert.ok(HELP.includes(flag), flag);
  }
  // every option the parser takes is in the help (and the parser's list is the one in VERIFY)
  for (const o of VERIFY.options) assert.ok(HELP.includes(`--${o.name}`), o.name);
});

Deno.test("cli: operator flags do what the config file does", async () => {
  const nine = { f: fromHex(byName("jcr1-09-gateway-tool-receipt-hmac").cose_sign1_hex) };
  assert.equal((await run(["f"], nine)).report().steps[3].code, "unknown-gateway");
  const gw = Object.entries(config.gateway_keys as Record<string, string>).flatMap((
    [id, k],
  ) => ["--gateway-key", `${id}=${k}`]);
  assert.equal((await run([...gw, "f"], nine)).code, 0);
  assert.equal((await run(["--config", CONFIG, "f"], nine)).code, 0);

  const keri = { f: fromHex(byName("jcr1-03-l1-iac-tool-only").cose_sign1_hex) };
  assert.equal((await run(["f"], keri)).report().steps[2].code, "unknown-kid");
  const [[kid, pub]] = Object.entries(config.keys as Record<string, string>);
  assert.equal((await run(["--key", `${kid}=${pub}`, "f"], keri)).code, 0);

  const five = byName("jcr1-05-l3-local-model");
  const f5 = { f: fromHex(five.cose_sign1_hex) };
  const h = five.json.input_hash as string;
  assert.equal(
    (await run([`--reference=${h}=3400000`, "f"], f5)).report().steps[5].code,
    "within-band",
  );
  const out = await run(["--reference", `${h}=1000000`, "f"], f5);
  // SPEC §6: out of band is an alert, not a refusal (exit 0, verdict alert, the figures)
  assert.equal(out.code, 0);
  assert.equal(out.report().steps[5].code, "out-of-band");
  assert.equal(out.report().verdict, "alert");
  assert.deepEqual(out.report().drift_alert, {
    input_hash: h,
    provenance: "ModelBased",
    joules_uj: 3_500_000,
    reference_uj: 1_000_000,
    band_percent: 35,
    low_uj: 650_000,
    high_uj: 1_350_000,
  });
  assert.equal((await run(["f"], f5)).report().verdict, "joule-unverified");
  // a flag overrides the config file's entry for the same input_hash
  const drift = await run(["--config", CONFIG, "--reference", `${h}=1000000`, "f"], f5);
  assert.equal(drift.report().steps[5].code, "out-of-band");

  const p4 = {
    f: fromHex(byName("policy-4-allow-with-digest").cose_sign1_hex),
    p: JSON.stringify(config.policies[0]),
  };
  assert.equal((await run(["f"], p4)).report().steps[4].code, "policy-unchecked");
  assert.equal((await run(["--policy", "p", "f"], p4)).report().steps[4].code, "policy-bound");
  const other = { ...p4, p: JSON.stringify({ rules: [] }) };
  assert.equal(
    (await run(["--policy", "p", "f"], other)).report().steps[4].code,
    "policy-digest-mismatch",
  );

  const pure = await run(["--pure-ed25519", "--compact", "f"], {
    f: fromHex(byName("jcp2-1-allow").cose_sign1_hex),
  });
  assert.equal(pure.code, 0);
  assert.equal(pure.out.join("").trim().split("\n").length, 1);
});

Deno.test("cli: envelopeFromInput never confuses the three forms", () => {
  const env = fromHex(byName("verdict-1").cose_sign1_hex);
  assert.deepEqual(envelopeFromInput(env), env);
  assert.deepEqual(envelopeFromInput(new TextEncoder().encode(`  ${toHex(env)}\n`)), env);
  assert.deepEqual(
    envelopeFromInput(new TextEncoder().encode(JSON.stringify({ envelope: toHex(env) }))),
    env,
  );
  const tagged = new Uint8Array([0xd2, ...env]);
  assert.deepEqual(envelopeFromInput(tagged), tagged);
});

Deno.test("cli: ES256 envelopes on both paths; a P-256 --key for a directory kid", async () => {
  const es = JSON.parse(await Deno.readTextFile(new URL("es256.json", vdir))).vectors as V[];
  const env = fromHex(es.find((v) => v.name === "es256-jcr1-l1-deterministic")!.cose_sign1_hex);
  for (const flags of [[], ["--pure-es256"]]) {
    const r = await run([...flags, "f"], { f: env });
    assert.equal(r.code, 0, r.out.join(""));
  }
  const bad = fromHex(es.find((v) => v.name === "neg-es256-s-zero")!.cose_sign1_hex);
  const r = await run(["--pure-es256", "f"], { f: bad });
  assert.equal(r.code, 1);
  assert.equal(r.report().steps[2].code, "es256-s-range");
  // a directory kid with a P-256 key given as 66 hex digits (the key of the es256 steward)
  const sk = new Uint8Array(32).fill(9);
  const core = { ...es.find((v) => v.name === "es256-jcr1-l1-deterministic")!.json };
  core.steward = "did:keri:EP256";
  const signed = coseSign1Es256(encodeCbor(core), sk, "did:keri:EP256");
  const unknown = await run(["f"], { f: signed });
  assert.equal(unknown.report().steps[2].code, "unknown-kid");
  const known = await run(["--key", `did:keri:EP256=${toHex(p256PublicKey(sk))}`, "f"], {
    f: signed,
  });
  assert.equal(known.code, 0, known.out.join(""));
});
