// Every stable code that verify/ can raise is in the ONE table, verify/codes.ts. Scans the sources
// for the places codes are raised, so a new code cannot ship without its one-line meaning.
import assert from "node:assert/strict";
import { isReasonCode, REASON_CODES } from "../../verify/mod.ts";

const root = new URL("../../verify/", import.meta.url);

async function* sources(dir: URL): AsyncGenerator<[string, string]> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* sources(new URL(`${e.name}/`, dir));
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
      const u = new URL(e.name, dir);
      yield [u.pathname, await Deno.readTextFile(u)];
    }
  }
}

// `new VerifyInputError("code"`, `new CborError("code"` anywhere in verify/; plus the local
// raise helpers of the primitives (fail/bad/refuse/dirError in cbor_*, cose, key_directory).
const RAISE = /(?:new (?:VerifyInputError|CborError)|\b(?:fail|bad|refuse))\(\s*"([a-z0-9-]+)"/g;

Deno.test("codes: every code raised in verify/ is in REASON_CODES", async () => {
  const seen = new Set<string>();
  for await (const [path, src] of sources(root)) {
    for (const m of src.matchAll(RAISE)) {
      seen.add(m[1]);
      assert.ok(
        isReasonCode(m[1]),
        `${path} raises "${m[1]}", which verify/codes.ts does not list`,
      );
    }
  }
  // the primitives' codes are all found by the scan (guards against the regex silently matching nothing)
  for (
    const c of [
      "unsorted-keys",
      "cose-bad-alg",
      "bad-did-key",
      "hmac-field-nul",
      "bad-hex",
      "p256-key-encoding",
    ]
  ) {
    assert.ok(seen.has(c), c);
  }
  for (const [code, meaning] of Object.entries(REASON_CODES)) {
    assert.ok(typeof meaning === "string" && meaning.length > 10, `${code} has a one-line meaning`);
    assert.ok(!meaning.includes("\n"), `${code}: one line`);
  }
});
