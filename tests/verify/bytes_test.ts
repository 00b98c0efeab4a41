// verify/bytes.ts: strict lowercase hex, BLAKE3 against the official vectors, and the JouleClaw
// SPEC §22.1 leaf hash against an independent BLAKE3 (the b3sum CLI).
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import {
  blake3,
  bytesEqual,
  compareBytes,
  constantTimeEqual,
  entryLeafHash,
  fromHex,
  includesAscii,
  toHex,
} from "../../verify/mod.ts";
import { codeOf } from "./_arb.ts";

Deno.test("hex: round trip, and every malformed string is refused with bad-hex", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (b) => assert.deepEqual(fromHex(toHex(b)), b)),
  );
  assert.equal(toHex(new Uint8Array([0, 1, 0xab, 0xff])), "0001abff");
  for (const s of ["0", "abc", "0g", "AB", "aB", " 00", "00 ", "0x00", "\u0660\u0660", "+1"]) {
    assert.equal(codeOf(() => fromHex(s)), "bad-hex", JSON.stringify(s));
  }
  assert.equal(codeOf(() => fromHex(7 as unknown as string)), "bad-hex");
  assert.deepEqual(fromHex(""), new Uint8Array());
});

Deno.test("blake3: the official test vectors (hash mode, first 32 bytes)", async () => {
  const v = JSON.parse(
    await Deno.readTextFile(
      new URL("../../conformance/upstream/blake3/blake3.json", import.meta.url),
    ),
  );
  assert.ok(v.cases.length >= 30);
  for (const c of v.cases) {
    const input = new Uint8Array(c.input_len).map((_, i) => i % 251);
    assert.equal(toHex(blake3(input)), c.hash.slice(0, 64), `blake3.json input_len ${c.input_len}`);
  }
});

Deno.test("entryLeafHash = BLAKE3(0x00 || entry), cross-checked with b3sum", async () => {
  const entries = [
    new Uint8Array(),
    new TextEncoder().encode("abc"),
    new Uint8Array(3000).map((_, i) => i * 7),
  ];
  for (const e of entries) {
    let out: Deno.CommandOutput;
    try {
      const child = new Deno.Command("b3sum", {
        args: ["--no-names"],
        stdin: "piped",
        stdout: "piped",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(new Uint8Array([0, ...e]));
      await w.close();
      out = await child.output();
    } catch (err) {
      throw new Error(`Cannot run b3sum for the cross-check (install the b3sum package): ${err}`);
    }
    assert.ok(out.success, "b3sum failed");
    assert.equal(
      toHex(entryLeafHash(e)),
      new TextDecoder().decode(out.stdout).trim(),
      `entry of ${e.length} bytes`,
    );
    assert.notDeepEqual(entryLeafHash(e), blake3(e), "domain separated from a plain hash");
  }
});

Deno.test("byte comparisons: bytewise order, equality, constant-time equality", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 6 }), fc.uint8Array({ maxLength: 6 }), (a, b) => {
      const ref = Buffer.compare(a, b); // Node's independent implementation
      assert.equal(Math.sign(compareBytes(a, b)), ref);
      assert.equal(bytesEqual(a, b), ref === 0);
      assert.equal(constantTimeEqual(a, b), ref === 0);
    }),
  );
});

Deno.test("includesAscii: whether the text's bytes occur, as Buffer.includes says (issue 29)", () => {
  const enc = new TextEncoder();
  assert.ok(includesAscii(enc.encode("xxjc_configyy"), "jc_config"));
  assert.ok(includesAscii(enc.encode("jc_config"), "jc_config"));
  assert.ok(!includesAscii(enc.encode("jc_confi"), "jc_config"));
  assert.ok(!includesAscii(enc.encode("jc_conjc_confiG"), "jc_config"));
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(97, 98, 99), { maxLength: 24 }),
      fc.stringMatching(/^[abc]{1,4}$/),
      (b, t) => assert.equal(includesAscii(new Uint8Array(b), t), Buffer.from(b).includes(t)),
    ),
  );
});
