// One envelope-input reader (issue 22; verify/envelope_input.ts): the same inputs fed to every
// entry that takes a submitted envelope — `deno task verify` (verify/cli.ts runCli), the client's
// envelope file (`submit`, client/envelope_file.ts) and `verify-proof` (client/main.ts), the page
// (web/app/ calls verify/mod.ts envelopeFromInput) and the API's verify and append routes
// (api/http/envelope_input.ts readEnvelope, the form declared by Content-Type) — read the same
// envelope or refuse for the same reason; and no other module parses the {"envelope": hex} wrapper.
import assert from "node:assert/strict";
import {
  entryLeafHash,
  type EnvelopeFault,
  envelopeFromInput,
  readEnvelopeInput,
  toHex,
} from "../verify/mod.ts";
import { type CliIo, runCli } from "../verify/cli.ts";
import { readEnvelopeFile } from "../client/envelope_file.ts";
import { main as client } from "../client/main.ts";
import { readEnvelope } from "../api/http/envelope_input.ts";
import { ApiError } from "../api/mod.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const env = await Deno.readFile(`${ROOT}examples/receipt.cose`);
const hex = toHex(env);
const text = (s: string) => new TextEncoder().encode(s);

/** An input, and what it holds: the envelope's bytes or the reason it holds none. */
interface Case {
  name: string;
  input: Uint8Array;
  want: Uint8Array | EnvelopeFault;
}

const CASES: Case[] = [
  { name: "raw COSE_Sign1", input: env, want: env },
  {
    name: "tagged COSE_Sign1",
    input: new Uint8Array([0xd2, ...env]),
    want: new Uint8Array([0xd2, ...env]),
  },
  { name: "hex, whitespace around", input: text(`  ${hex}\n`), want: env },
  {
    name: "hex, upper case, broken lines",
    input: text(`${hex.slice(0, 40).toUpperCase()}\n${hex.slice(40)}`),
    want: env,
  },
  { name: "wrapper", input: text(JSON.stringify({ envelope: hex })), want: env },
  {
    name: "wrapper, whitespace around",
    input: text(`\n ${JSON.stringify({ envelope: hex })} \n`),
    want: env,
  },
  {
    name: "wrapper, upper-case hex",
    input: text(JSON.stringify({ envelope: hex.toUpperCase() })),
    want: "bad-hex",
  },
  { name: "wrapper, odd hex", input: text('{"envelope":"ABC"}'), want: "bad-hex" },
  { name: "wrapper, empty envelope", input: text('{"envelope":""}'), want: "empty" },
  { name: "JSON that does not parse", input: text("{"), want: "not-json" },
  { name: "JSON without envelope", input: text("{}"), want: "no-envelope" },
  { name: "wrapper, envelope not a string", input: text('{"envelope":5}'), want: "no-envelope" },
  { name: "nothing", input: new Uint8Array(0), want: "empty" },
  { name: "odd bare hex", input: text("abc\n"), want: "bad-hex" },
  { name: "prose", input: text("not a receipt\n"), want: "unknown-form" },
];

const accepted = (c: Case): c is Case & { want: Uint8Array } => c.want instanceof Uint8Array;

/** The message a command-line entry refuses with (what envelopeFromInput throws). */
function refusalMessage(input: Uint8Array): string {
  try {
    envelopeFromInput(input);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("accepted");
}

Deno.test("envelope input: the reader itself, and the page's entry (envelopeFromInput)", () => {
  for (const c of CASES) {
    const r = readEnvelopeInput(c.input);
    if (accepted(c)) {
      assert.ok(r.ok, c.name);
      assert.deepEqual(r.envelope, c.want, c.name);
      assert.deepEqual(envelopeFromInput(c.input), c.want, c.name);
    } else {
      assert.deepEqual(r.ok ? "accepted" : r.fault, c.want, c.name);
      assert.throws(() => envelopeFromInput(c.input), c.name);
    }
  }
});

Deno.test("envelope input: the page calls the one reader (web/app/ has no reader of its own)", async () => {
  for (const f of ["web/app/main.ts", "web/app/offline.ts"]) {
    const src = await Deno.readTextFile(`${ROOT}${f}`);
    assert.match(
      src,
      /import \{[^}]*\benvelopeFromInput\b[^}]*\} from "\.\.\/\.\.\/verify\/mod\.ts"/,
      f,
    );
    assert.match(src, /envelope = envelopeFromInput\(input\)/, f);
  }
});

Deno.test("envelope input: deno task verify reads what the reader reads, refuses what it refuses", async () => {
  for (const c of CASES) {
    const out: string[] = [], err: string[] = [];
    const io: CliIo = {
      readFile: () => Promise.resolve(c.input),
      readStdin: () => Promise.resolve(c.input),
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    };
    const code = await runCli(["receipt"], io);
    if (accepted(c)) {
      assert.notEqual(code, 2, `${c.name}: ${err.join("")}`);
      assert.equal(JSON.parse(out.join("")).leaf_hash, toHex(entryLeafHash(c.want)), c.name);
    } else {
      assert.equal(code, 2, c.name);
      assert.ok(err.join("").startsWith(refusalMessage(c.input)), `${c.name}: ${err.join("")}`);
    }
  }
});

Deno.test({
  name: "envelope input: the client's submit file and verify-proof read the same",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-envelope-input-" });
    const quiet = console.error;
    try {
      const proof = `${dir}/proof`;
      await Deno.writeTextFile(proof, "not a proof\n");
      for (const [i, c] of CASES.entries()) {
        const file = `${dir}/in-${i}`;
        await Deno.writeFile(file, c.input);
        // submit (and verify-proof, --policy or not) read the file through readEnvelopeFile
        if (accepted(c)) assert.deepEqual(await readEnvelopeFile(file), c.want, c.name);
        else {
          await assert.rejects(
            () => readEnvelopeFile(file),
            (e: Error) => e.message === `${file}: ${refusalMessage(c.input)}`,
            c.name,
          );
        }
        // verify-proof: a refused receipt is a usage error (2) before the proof is read; an
        // accepted one goes on to the proof (this one is not a proof: some other refusal)
        const said: string[] = [];
        console.error = (...a: unknown[]) => said.push(a.join(" "));
        const code = await client(["verify-proof", file, proof, "--log-key", "x+0+AA"], {
          env: {},
          cwd: dir,
        });
        console.error = quiet;
        if (accepted(c)) {
          assert.notEqual(code, 2, `${c.name}: ${said.join("\n")}`);
        } else {
          assert.equal(code, 2, `${c.name}: ${said.join("\n")}`);
          assert.match(said.join("\n"), new RegExp(`in-${i}: Cannot (read envelope|decode hex)`));
        }
      }
    } finally {
      console.error = quiet;
      await Deno.remove(dir, { recursive: true });
    }
  },
});

// The API's media type declares the form: application/cose takes the bytes as they are, and
// application/json is the wrapper; within a form the rules are the reader's, each refusal its code.
const API_CODE: Record<EnvelopeFault, string> = {
  "empty": "empty-body",
  "not-json": "bad-request",
  "no-envelope": "bad-request",
  "bad-hex": "bad-envelope-encoding",
  "unknown-form": "(not answered for a declared form)",
};

Deno.test("envelope input: the API reads the raw and wrapper forms by the reader's rules", async () => {
  const post = (body: Uint8Array, type: string) =>
    readEnvelope(
      new Request("http://x/v1/verify", {
        method: "POST",
        headers: { "content-type": type },
        body: body.slice(),
      }),
      1 << 20,
    );
  for (const c of CASES) {
    const json = new TextDecoder().decode(c.input).trim().startsWith("{");
    const raw = c.input[0] === 0x84 || c.input[0] === 0xd2; // a COSE_Sign1's bytes themselves
    if (!json && !raw && c.input.length > 0) continue; // hex text and prose: no media type of theirs
    const type = json ? "application/json" : "application/cose";
    if (accepted(c)) assert.deepEqual(await post(c.input, type), c.want, c.name);
    else {
      await assert.rejects(
        () => post(c.input, type),
        (e: unknown) => e instanceof ApiError && e.code === API_CODE[c.want as EnvelopeFault],
        c.name,
      );
    }
  }
});

Deno.test('envelope input: no other module reads the {"envelope": hex} wrapper', async () => {
  const own = new Set(["verify/envelope_input.ts"]);
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(`${ROOT}${dir}`)) {
      const p = `${dir}${e.name}`;
      if (e.isDirectory) {
        if (!["tests", "node_modules", ".git", "dist", "data", "upstream"].includes(e.name)) {
          await walk(`${p}/`);
        }
      } else if (
        p.endsWith(".ts") && !p.endsWith("_test.ts") && !own.has(p) && p !== "web/assets_gen.ts"
      ) {
        if (/\{\s*envelope\?:\s*unknown\s*\}/.test(await Deno.readTextFile(`${ROOT}${p}`))) {
          found.push(p);
        }
      }
    }
  };
  await walk("");
  assert.deepEqual(found, []);
});
