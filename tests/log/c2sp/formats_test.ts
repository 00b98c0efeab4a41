// C2SP tlog-checkpoint, entry bundles and tlog-proof: round trips, the spec's example checkpoint
// text, every refusal code, and a tlog-proof verified offline with cosignatures and a quorum.
import assert from "node:assert/strict";
import fc from "fast-check";
import { blake3Hasher, c2sp, inclusionProof, type NodeId, sha256Hasher } from "../../../log/mod.ts";
import { codeOf } from "./_codes.ts";

const {
  C2spError,
  cosignatureSigner,
  cosignatureVkey,
  ed25519Vkey,
  encodeBundle,
  formatCheckpoint,
  formatTlogProof,
  openCheckpoint,
  parseBundle,
  parseCheckpoint,
  parseTlogProof,
  signCheckpoint,
  verifyTlogProof,
} = c2sp;

const SECRET = new Uint8Array(32).map((_, i) => 0x40 + i);
const W1 = new Uint8Array(32).map((_, i) => 0x10 + i);
const W2 = new Uint8Array(32).map((_, i) => 0x90 + i);

Deno.test("checkpoint: the spec's example text parses and formats back byte for byte", () => {
  const text =
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
  const c = parseCheckpoint(text);
  assert.equal(c.origin, "example.com/behind-the-sofa");
  assert.equal(c.size, 20852163);
  assert.equal(formatCheckpoint(c), text);
  const ext = parseCheckpoint(text + "ext one\n");
  assert.deepEqual(ext.extensions, ["ext one"]);
  assert.equal(formatCheckpoint(ext), text + "ext one\n");
});

Deno.test("checkpoint: refusal codes", async () => {
  const root = "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=";
  const cases: [string, string][] = [
    [`o\n1\n${root}`, "checkpoint-malformed"],
    [`o\n1\n`, "checkpoint-malformed"],
    [`\n1\n${root}\n`, "checkpoint-bad-origin"],
    [`o\n01\n${root}\n`, "checkpoint-bad-size"],
    [`o\n-1\n${root}\n`, "checkpoint-bad-size"],
    [`o\n1.0\n${root}\n`, "checkpoint-bad-size"],
    [`o\n9007199254740992\n${root}\n`, "checkpoint-bad-size"],
    [`o\n1\n${root.slice(4)}\n`, "checkpoint-bad-root"],
    [`o\n1\n${root.replace("=", "")}\n`, "checkpoint-bad-root"],
    [`o\n1\n${root}\n\n`, "checkpoint-bad-extension"],
  ];
  for (const [t, code] of cases) assert.equal(await codeOf(() => parseCheckpoint(t)), code, t);
  const note = signCheckpoint(
    { origin: "example.org/l/sha256", size: 3, root: new Uint8Array(32) },
    SECRET,
  );
  const vkey = ed25519Vkey("example.org/l/sha256", SECRET);
  const o = await openCheckpoint(note, vkey);
  assert.equal(o.checkpoint.size, 3);
  assert.equal(
    await codeOf(() => openCheckpoint(note, vkey, { origin: "example.org/l/blake3" })),
    "checkpoint-wrong-origin",
  );
  // Signed under another name than the origin: the vkey's name is expected as origin.
  const other = signCheckpoint(
    { origin: "example.org/x", size: 3, root: new Uint8Array(32) },
    SECRET,
    {
      name: "example.org/l/sha256",
    },
  );
  assert.equal(await codeOf(() => openCheckpoint(other, vkey)), "checkpoint-wrong-origin");
});

Deno.test("bundles: encode/parse round trip; truncated, overlong and wrong-width refused", async () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 256 }),
      (es) => {
        const b = encodeBundle(es);
        assert.deepEqual(parseBundle(b, es.length).map((x) => x.slice()), es);
        if (b.length > 0) {
          assert.notEqual(
            (() => {
              try {
                return parseBundle(b.subarray(0, b.length - 1), es.length).length;
              } catch (e) {
                return (e as InstanceType<typeof C2spError>).code;
              }
            })(),
            es.length,
          );
        }
      },
    ),
    { numRuns: 200 },
  );
  assert.equal(await codeOf(() => parseBundle(new Uint8Array(0))), "bundle-bad-width");
  assert.equal(await codeOf(() => parseBundle(Uint8Array.of(0, 5, 1))), "bundle-truncated");
  assert.equal(await codeOf(() => parseBundle(Uint8Array.of(0))), "bundle-truncated");
  assert.equal(await codeOf(() => parseBundle(Uint8Array.of(0, 0), 2)), "bundle-bad-width");
  assert.equal(await codeOf(() => parseBundle(new Uint8Array(257 * 2))), "bundle-bad-width");
  assert.equal(
    await codeOf(() => encodeBundle([new Uint8Array(65_536)])),
    "bundle-entry-too-large",
  );
  assert.equal(await codeOf(() => encodeBundle([])), "bundle-bad-width");
  assert.equal(parseBundle(encodeBundle([new Uint8Array(65_535)]))[0].length, 65_535);
});

Deno.test("tlog-proof: format/parse round trip, offline verification with a witness quorum", async () => {
  for (const [view, h] of [["sha256", sha256Hasher], ["blake3", blake3Hasher]] as const) {
    const origin = `example.org/log/${view}`;
    const entries = Array.from({ length: 300 }, (_, i) => new TextEncoder().encode(`e${i}`));
    const leaves = entries.map((e) => h.leaf(e));
    const levels = c2sp.buildTileLevels(h, leaves);
    const read = (ids: NodeId[]) =>
      Promise.resolve(ids.map((id) => {
        let x = leaves.slice(id.index * 2 ** id.level, (id.index + 1) * 2 ** id.level);
        while (x.length > 1) x = x.flatMap((_, k) => (k % 2 ? [] : [h.node(x[k], x[k + 1])]));
        return x[0];
      }));
    const { treeRoot } = await import("../../../log/mod.ts");
    const root = await treeRoot(h, 300, read);
    assert.ok(levels.levels.length === 2);
    const note = signCheckpoint({ origin, size: 300, root }, SECRET, {
      extra: [
        cosignatureSigner("w1.example", W1, () => 1700000000),
        cosignatureSigner("w2.example", W2, () => 1700000001),
      ],
    });
    const proof = formatTlogProof({
      extra: Uint8Array.of(1, 2, 3),
      index: 123,
      proof: await inclusionProof(h, 123, 300, read),
      checkpoint: note,
    });
    const p = parseTlogProof(proof);
    assert.equal(formatTlogProof(p), proof);
    const policy = {
      hasher: h,
      leafHash: leaves[123],
      logKeys: [ed25519Vkey(origin, SECRET)],
      witnesses: [cosignatureVkey("w1.example", W1), cosignatureVkey("w2.example", W2)],
      quorum: 2,
    };
    const ok = await verifyTlogProof(proof, policy);
    assert.deepEqual(ok.cosigners, ["w1.example", "w2.example"]);
    assert.equal(ok.checkpoint.size, 300);
    assert.equal(
      await codeOf(() => verifyTlogProof(proof, { ...policy, quorum: 3 })),
      "tlog-proof-quorum",
    );
    assert.equal(
      await codeOf(() => verifyTlogProof(proof, { ...policy, leafHash: leaves[124] })),
      "tlog-proof-bad-inclusion",
    );
    assert.equal(
      await codeOf(() => verifyTlogProof(proof.replace("index 123", "index 124"), policy)),
      "tlog-proof-bad-inclusion",
    );
    // A witness key alone does not make a log signature.
    assert.equal(
      await codeOf(() => verifyTlogProof(proof, { ...policy, logKeys: [ed25519Vkey(origin, W1)] })),
      "note-unverified",
    );
    const bad: [string, string][] = [
      [proof.replace("c2sp.org/tlog-proof@v1", "c2sp.org/tlog-proof@v2"), "tlog-proof-malformed"],
      [proof.replace("index 123", "index 0123"), "tlog-proof-bad-index"],
      [proof.replace("index 123\n", "index 123\nAAAA\n"), "tlog-proof-bad-hash"],
      [proof.replace("extra AQID", "extra AQI"), "tlog-proof-bad-extra"],
      [proof.replace("\n\n", "\n"), "tlog-proof-bad-hash"],
      ["x".repeat(100_000), "tlog-proof-too-large"],
    ];
    for (const [t, code] of bad) {
      assert.equal(await codeOf(() => verifyTlogProof(t, policy)), code, code);
    }
  }
});
