// verify/ is pure (ARCHITECTURE "Layout"): web-standard APIs only, so it runs unchanged in Deno,
// workerd, browsers and Node 20. Checked two ways: a static scan of every module reachable from
// verify/mod.ts, and a browser-platform bundle of verify/mod.ts executed by Node 20 (/usr/bin/node),
// Ed25519 and ES256 (@noble/curves bundled in) alike.
import assert from "node:assert/strict";
import { assertWebOnly, reachable } from "../_pure_scan.ts";

const root = new URL("../../verify/", import.meta.url);

Deno.test("verify/: every module reachable from mod.ts uses web-standard APIs only", async () => {
  const mods = await reachable(new URL("mod.ts", root));
  assert.ok(mods.size >= 10);
  assertWebOnly(mods);
});

const SMOKE = `
const v = await import(process.argv[2]);
const sk = new Uint8Array(32).fill(5);
const pub = v.ed25519PublicKey(sk);
const env = v.coseSign1(v.encodeCbor({ a: 1, b: 2n ** 60n }), sk, v.didKeyFromPublicKey(pub));
const p = v.parseCoseSign1(env);
const tbs = v.coseSigStructure(p.protectedBytes, p.payload);
const identity = v.fromHex("01" + "00".repeat(31));
const forged = new Uint8Array(64); forged.set(identity);
let code = null; try { v.decodeCbor(v.fromHex("a2616201616102")); } catch (e) { code = e.code; }
const tag = await v.computeToolReceiptHmac(new Uint8Array([1]), { tool_id: "t", joules_uj: 1n, energy_provenance: "HwShunt", minted_at: "m", gateway_id: "g" });
const pk = new Uint8Array(32).fill(6);
const did256 = v.didKeyFromP256PublicKey(v.p256PublicKey(pk));
const env256 = v.coseSign1Es256(v.encodeCbor({ a: 1 }), pk, did256);
const e256 = v.parseCoseSign1(env256);
const tbs256 = v.coseSigStructure(e256.protectedBytes, e256.payload);
const key256 = v.resolveDidKey(did256);
console.log(JSON.stringify({
  es256: [
    await v.es256Verify(e256.signature, tbs256, key256.pub),
    v.es256VerifyPure(e256.signature, tbs256, key256.pub),
    await v.es256Verify(v.es256Malleate(e256.signature), tbs256, key256.pub),
    await v.es256Verify(e256.signature, tbs, key256.pub),
    v.es256Backend(),
    key256.alg,
    v.toHex(v.envelopeContentId(env256)) === v.toHex(v.envelopeContentId(new Uint8Array([0xd2, ...env256]))),
  ],
  ok: await v.ed25519Verify(p.signature, tbs, pub),
  pureOk: v.ed25519VerifyPure(p.signature, tbs, pub),
  forged: await v.ed25519Verify(forged, tbs, identity),
  backend: v.ed25519Backend(),
  core: v.toJson(v.decodeCbor(p.payload)),
  code, tag,
  leaf: v.toHex(v.entryLeafHash(env)).length,
  b3: v.toHex(v.blake3(new Uint8Array(1023).map((_, i) => i % 251))),
  proto: (() => {
    const m = new Map([["__proto__", new Map([["x", 1]])], ["toString", 2]]);
    const j = v.toJson(v.decodeCbor(v.encodeCbor(m)));
    return [Object.getPrototypeOf(j) === Object.prototype, Object.hasOwn(j, "__proto__"), j.toString, JSON.stringify(j)];
  })(),
}));
`;

Deno.test("verify/mod.ts bundled for the browser platform runs unchanged in Node 20", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bundle = `${dir}/verify.mjs`;
    const b = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform=browser",
        new URL("mod.ts", root).pathname,
        "-o",
        bundle,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(b.success, `deno bundle failed: ${new TextDecoder().decode(b.stderr)}`);
    await Deno.writeTextFile(`${dir}/smoke.mjs`, SMOKE);
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("/usr/bin/node", {
        args: [`${dir}/smoke.mjs`, bundle],
        stdout: "piped",
        stderr: "piped",
      })
        .output();
    } catch (e) {
      throw new Error(`Cannot run Node 20 at /usr/bin/node for the portability check: ${e}`);
    }
    assert.ok(out.success, `node failed: ${new TextDecoder().decode(out.stderr)}`);
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    const tag = await (await import("../../verify/mod.ts")).computeToolReceiptHmac(
      new Uint8Array([1]),
      {
        tool_id: "t",
        joules_uj: 1n,
        energy_provenance: "HwShunt",
        minted_at: "m",
        gateway_id: "g",
      },
    );
    assert.deepEqual(r, {
      es256: [true, true, true, false, "webcrypto", -7, true],
      ok: true,
      pureOk: true,
      forged: false,
      backend: "webcrypto",
      core: { a: 1, b: "1152921504606846976" },
      code: "unsorted-keys",
      tag,
      leaf: 64,
      // the official BLAKE3 vector for 1023 bytes (the last single-chunk length)
      b3: "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11",
      // where __proto__ is a live accessor (Node, browsers, workerd) the projection keeps it data
      proto: [true, true, 2, '{"toString":2,"__proto__":{"x":1}}'],
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
