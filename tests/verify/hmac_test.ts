// Tool-receipt HMAC (JCR-1 §5): the exact NUL-delimited payload, tags cross-checked with Python's
// hmac module (an independent HMAC-SHA-256), and every refusal.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  computeToolReceiptHmac,
  toHex,
  toolReceiptHmacPayload,
  VerifyInputError,
  verifyToolReceipt,
  verifyToolReceiptHmac,
} from "../../verify/mod.ts";
import type { ToolReceiptHmacFields } from "../../verify/mod.ts";
import { runPython } from "./_python.ts";

const key = new TextEncoder().encode("gateway secret of gw-edge-7");
const fields: ToolReceiptHmacFields = {
  tool_id: "iac:aws.ec2.describe",
  joules_uj: 4200,
  energy_provenance: "HwShunt",
  minted_at: "2026-05-31T18:04:22Z",
  gateway_id: "gw-edge-7",
};

async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    if (e instanceof VerifyInputError) return e.code;
    throw e;
  }
  return "accepted";
}

Deno.test("hmac: the payload is exactly tool_id ‖ 0 ‖ joules ‖ 0 ‖ prov ‖ 0 ‖ minted_at ‖ 0 ‖ gateway_id", () => {
  assert.equal(
    new TextDecoder().decode(toolReceiptHmacPayload(fields)),
    "iac:aws.ec2.describe\u00004200\u0000HwShunt\u00002026-05-31T18:04:22Z\u0000gw-edge-7",
  );
  const big = toolReceiptHmacPayload({ ...fields, joules_uj: 2n ** 64n - 1n, tool_id: "t\u00e9" });
  assert.equal(toHex(big.subarray(0, 4)), "74c3a900"); // UTF-8 of the tool id, then NUL
  assert.ok(new TextDecoder().decode(big).includes("\u000018446744073709551615\u0000"));
  assert.ok(
    new TextDecoder().decode(toolReceiptHmacPayload({ ...fields, joules_uj: 0 })).includes(
      "\u00000\u0000",
    ),
  );
});

const PY_HMAC = `
import json, sys, hmac, hashlib
out = []
for c in json.load(sys.stdin):
    p = b"\\0".join([c["tool_id"].encode(), str(int(c["joules_uj"])).encode(), c["energy_provenance"].encode(), c["minted_at"].encode(), c["gateway_id"].encode()])
    out.append(hmac.new(bytes.fromhex(c["key"]), p, hashlib.sha256).hexdigest())
print(json.dumps(out))
`;

Deno.test("hmac: tags equal Python's hmac/hashlib and verify; any other tag does not", async () => {
  const arbField = fc.string({ unit: "binary", maxLength: 20 }).filter((s) =>
    !s.includes("\0") && s.isWellFormed()
  );
  const cases = fc.sample(
    fc.record({
      key: fc.uint8Array({ minLength: 1, maxLength: 80 }),
      tool_id: arbField,
      joules_uj: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      energy_provenance: fc.constantFrom("HwShunt", "ModelBased", "Estimator"),
      minted_at: arbField,
      gateway_id: arbField,
    }),
    60,
  );
  const theirs = (await runPython(
    PY_HMAC,
    cases.map((c) => ({ ...c, key: toHex(c.key), joules_uj: c.joules_uj.toString() })),
  )) as string[];
  for (const [i, c] of cases.entries()) {
    const tag = await computeToolReceiptHmac(c.key, c);
    assert.equal(tag, theirs[i], `case ${i}`);
    assert.ok(await verifyToolReceiptHmac(c.key, c, tag));
    assert.ok(await verifyToolReceipt({ ...c, hmac_sha256_hex: tag }, c.key));
    const flipped = tag.slice(0, 63) + (tag[63] === "0" ? "1" : "0");
    assert.equal(await verifyToolReceiptHmac(c.key, c, flipped), false);
    assert.equal(
      await verifyToolReceiptHmac(c.key, { ...c, joules_uj: c.joules_uj ^ 1n }, tag),
      false,
    );
    const otherKey = c.key.slice();
    otherKey[0] ^= 1; // (appending 0x00 would NOT change the key: HMAC zero-pads short keys)
    assert.equal(await verifyToolReceiptHmac(otherKey, c, tag), false);
  }
});

Deno.test("hmac: malformed fields, tags and keys are refused with their codes", async () => {
  const tag = await computeToolReceiptHmac(key, fields);
  for (const f of ["tool_id", "energy_provenance", "minted_at", "gateway_id"] as const) {
    assert.equal(
      await codeOf(() => toolReceiptHmacPayload({ ...fields, [f]: "a\u0000b" })),
      "hmac-field-nul",
      f,
    );
  }
  for (const j of [-1, 1.5, 2 ** 53, NaN, 2n ** 64n, -1n, "4200" as unknown as number]) {
    assert.equal(
      await codeOf(() => toolReceiptHmacPayload({ ...fields, joules_uj: j })),
      "hmac-bad-joules",
      String(j),
    );
  }
  for (const p of ["hwshunt", "HwShunt ", "", "Unknown"]) {
    assert.equal(
      await codeOf(() => toolReceiptHmacPayload({ ...fields, energy_provenance: p })),
      "hmac-bad-provenance",
      p,
    );
  }
  for (const t of [tag.toUpperCase(), tag.slice(2), tag + "00", "g".repeat(64), ""]) {
    assert.equal(
      await codeOf(() => verifyToolReceiptHmac(key, fields, t)),
      "hmac-bad-tag-format",
      t,
    );
  }
  assert.equal(
    await codeOf(() => computeToolReceiptHmac(new Uint8Array(), fields)),
    "hmac-bad-key",
  );
});
