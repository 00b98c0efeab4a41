// C2SP signed-note and tlog-cosignature: the spec's own example vkey and note, sign/open round
// trips, the limits checked before work, every refusal code, and single-bit flips refused.
import assert from "node:assert/strict";
import fc from "fast-check";
import { c2sp } from "../../../log/mod.ts";
import { codeOf } from "./_codes.ts";

const {
  C2spError,
  cosignatureSigner,
  cosignatureVerifier,
  cosignatureVkey,
  ed25519NoteSigner,
  ed25519Vkey,
  encodeVkey,
  keyIdOf,
  openNote,
  parseNote,
  parseVkey,
  signNote,
  verifierFromVkey,
} = c2sp;

const SECRET = new Uint8Array(32).map((_, i) => i + 1);
const OTHER = new Uint8Array(32).map((_, i) => 200 - i);

Deno.test("signed-note: the spec's example vkey verifies the spec's example note", async () => {
  const vkey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
  const note = "This is an example message.\n\n— example.com/foo " +
    "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
  const k = parseVkey(vkey);
  assert.equal(k.keyId, 0x530d903a);
  assert.equal(encodeVkey(k.name, k.type, k.publicKey), vkey);
  const opened = await openNote(note, [verifierFromVkey(vkey)]);
  assert.equal(opened.text, "This is an example message.\n");
  assert.equal(opened.verified.length, 1);
  // One altered character of the text: the known key's signature fails, the note is rejected.
  assert.equal(
    await codeOf(() =>
      openNote(note.replace("example message", "example massage"), [verifierFromVkey(vkey)])
    ),
    "note-bad-signature",
  );
});

Deno.test("signed-note: sign then open, unknown keys ignored, a lone name or ID match unknown", async () => {
  const text = "example.org/log\n12\nsome text\n";
  const a = ed25519NoteSigner("example.org/log", SECRET);
  const b = ed25519NoteSigner("example.org/other", OTHER);
  const note = signNote(text, [a, b]);
  const va = verifierFromVkey(ed25519Vkey("example.org/log", SECRET));
  const o = await openNote(note, [va]);
  assert.equal(o.text, text);
  assert.equal(o.verified.length, 1);
  assert.equal(o.unknown.length, 1);
  // Same name, other key: a different key ID, so unknown; alone it leaves the note unverified.
  const sameName = verifierFromVkey(ed25519Vkey("example.org/log", OTHER));
  assert.equal(await codeOf(() => openNote(signNote(text, [a]), [sameName])), "note-unverified");
  // Same key ID, other name: unknown too.
  const forged = { ...va, name: "example.org/forged" };
  assert.equal(await codeOf(() => openNote(signNote(text, [a]), [forged])), "note-unverified");
});

Deno.test("signed-note: every single-bit flip of a signed note is refused or changes nothing signed", async () => {
  const note = signNote("example.org/log\n1\nabc\n", [
    ed25519NoteSigner("example.org/log", SECRET),
  ]);
  const v = verifierFromVkey(ed25519Vkey("example.org/log", SECRET));
  const bytes = new TextEncoder().encode(note);
  await fc.assert(
    fc.asyncProperty(fc.nat(bytes.length * 8 - 1), async (bit) => {
      const b = bytes.slice();
      b[bit >> 3] ^= 1 << (bit & 7);
      const code = await codeOf(() => openNote(b, [v]));
      assert.notEqual(code, "ok", `bit ${bit} accepted`);
    }),
    { numRuns: 300 },
  );
});

Deno.test("signed-note: limits and line rules, with their codes", async () => {
  const s = ed25519NoteSigner("k", SECRET);
  const good = signNote("hello\n", [s]);
  const sigLine = good.slice(good.indexOf("\u2014"));
  const cases: [string | Uint8Array, string][] = [
    ["hello\n", "note-no-signatures"],
    ["hello\n\n", "note-no-signatures"],
    [good.slice(0, -1), "note-no-signatures"],
    ["hel\x01lo\n\n" + sigLine, "note-control-char"],
    ["hello\r\n\n" + sigLine, "note-control-char"],
    [Uint8Array.of(0xff, 0x0a, 0x0a), "note-not-utf8"],
    ["hello\n\n- k AAAAAAA=\n", "note-bad-signature-line"],
    ["hello\n\n\u2014 k\n", "note-bad-signature-line"],
    ["hello\n\n\u2014 a+b AAAAAAA=\n", "note-bad-signature-line"],
    ["hello\n\n\u2014 k AAAA\n", "note-bad-signature-line"], // 3 bytes: no room for a key ID
    ["hello\n\n\u2014 k AAAAAAA\n", "note-bad-signature-line"], // missing padding
    ["hello\n\n\u2014 k AAAAAAB=\n", "note-bad-signature-line"], // non-zero pad bits
    ["x".repeat(70_000), "note-too-large"],
    ["hello\n\n" + sigLine.repeat(65), "note-too-many-signatures"],
  ];
  for (const [input, code] of cases) {
    assert.equal(await codeOf(() => parseNote(input)), code, JSON.stringify(input).slice(0, 60));
  }
  // 16 signatures must be accepted (signed-note §Signatures).
  assert.equal(parseNote("hello\n\n" + sigLine.repeat(16)).signatures.length, 16);
  // The byte limit is checked on bytes, before decoding.
  assert.equal(await codeOf(() => parseNote(new Uint8Array(70_000))), "note-too-large");
});

Deno.test("vkey: codes for every malformed vkey; key ID must be the recommended one", () => {
  const good = ed25519Vkey("example.org/log", SECRET);
  const p1 = good.indexOf("+"), p2 = good.indexOf("+", p1 + 1);
  const [name, id, b64] = [good.slice(0, p1), good.slice(p1 + 1, p2), good.slice(p2 + 1)];
  const bad: [string, string][] = [
    ["nope", "vkey-malformed"],
    [`${name}+${id}`, "vkey-malformed"],
    [`+${id}+${b64}`, "vkey-bad-name"],
    [`${name}+${id.toUpperCase()}+${b64}`, id === id.toUpperCase() ? "ok" : "vkey-bad-key-id"],
    [`${name}+00000000+${b64}`, "vkey-bad-key-id"],
    [`${name}+${id}+${b64.slice(0, -4)}`, "vkey-bad-key"],
    [`${name}+${id}+AwAA`, "vkey-unknown-type"],
    [`${name}+${id}+${b64}=`, "vkey-malformed"],
  ];
  for (const [v, code] of bad) {
    let got = "ok";
    try {
      parseVkey(v);
    } catch (e) {
      got = (e as InstanceType<typeof C2spError>).code;
    }
    assert.equal(got, code, v);
  }
  assert.equal(parseVkey(good).keyId, keyIdOf("example.org/log", 0x01, parseVkey(good).publicKey));
});

Deno.test("cosignature/v1: sign and verify; the message is header, time line, then the text", async () => {
  const text = "example.org/log\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
  const w = cosignatureSigner("witness.example/w1", OTHER, () => 1679315147);
  const vkey = cosignatureVkey("witness.example/w1", OTHER);
  assert.equal(parseVkey(vkey).type, 0x04);
  const note = signNote(text, [ed25519NoteSigner("example.org/log", SECRET), w]);
  const o = await openNote(note, [
    verifierFromVkey(ed25519Vkey("example.org/log", SECRET)),
    verifierFromVkey(vkey),
  ]);
  assert.equal(o.verified.length, 2);
  const sig = o.verified[1].signature.sig;
  assert.equal(sig.length, 72);
  assert.equal(c2sp.cosignatureTimestamp(sig), 1679315147n);
  // The signature covers exactly "cosignature/v1\ntime 1679315147\n" || text.
  const msg = new TextEncoder().encode(`cosignature/v1\ntime 1679315147\n${text}`);
  const { ed25519Verify, ed25519PublicKey } = await import("../../../verify/mod.ts");
  assert.ok(await ed25519Verify(sig.slice(8), msg, ed25519PublicKey(OTHER)));
  // A type-0x04 key does not verify a plain Ed25519 note signature by the same key and name.
  const plain = signNote(text, [ed25519NoteSigner("witness.example/w1", OTHER)]);
  assert.equal(
    await codeOf(() =>
      openNote(plain, [cosignatureVerifier("witness.example/w1", ed25519PublicKey(OTHER))])
    ),
    "note-unverified",
  );
  // A changed timestamp fails.
  const t2 = sig.slice();
  t2[7] ^= 1;
  assert.equal(
    await cosignatureVerifier("witness.example/w1", ed25519PublicKey(OTHER)).verify(
      new TextEncoder().encode(text),
      t2,
    ),
    false,
  );
});
