// A checkpoint under a tlog-policy (log/c2sp/quorum.ts): signed by a listed log, cosignatures by
// listed witnesses counted by the policy's names; a bad signature by a listed key rejects the note;
// unknown cosigners are ignored; a tlog-proof under a policy binds the leaf.
import assert from "node:assert/strict";
import { sha256Hasher } from "../../log/mod.ts";
import { signCheckpoint } from "../../log/c2sp/checkpoint.ts";
import {
  cosignatureSigner,
  cosignatureVkey,
  ed25519Vkey,
  formatSignatureLine,
} from "../../log/c2sp/note.ts";
import { parsePolicy } from "../../log/c2sp/policy.ts";
import { openCheckpointWithPolicy, verifyTlogProofWithPolicy } from "../../log/c2sp/quorum.ts";
import { formatTlogProof } from "../../log/c2sp/tlog_proof.ts";
import { inclusionProof, type NodeId, referenceRoot } from "../../log/mod.ts";

const enc = new TextEncoder();
const key = (b: number) => new Uint8Array(32).fill(b);
const ORIGIN = "q.example/log/sha256";
const W = [1, 2, 3].map((i) => ({ name: `w${i}.example`, secret: key(10 + i) }));

function cosign(note: string, w: { name: string; secret: Uint8Array }) {
  const text = note.slice(0, note.lastIndexOf("\n\n") + 1);
  const s = cosignatureSigner(w.name, w.secret, () => 1_700_000_000);
  return formatSignatureLine({ name: s.name, keyId: s.keyId, sig: s.sign(enc.encode(text)) });
}

const policy = parsePolicy(enc.encode(
  `log ${ed25519Vkey(ORIGIN, key(1))}\n` +
    W.map((w, i) => `witness W${i + 1} ${cosignatureVkey(w.name, w.secret)}\n`).join("") +
    `group two 2 W1 W2 W3\nquorum two\n`,
));

const root = sha256Hasher.leaf(enc.encode("only"));
const note = signCheckpoint({ origin: ORIGIN, size: 1, root }, key(1));

Deno.test("quorum: 2 of 3 listed witnesses; unknown cosigners ignored; names from the policy", async () => {
  const ok = await openCheckpointWithPolicy(note + cosign(note, W[0]) + cosign(note, W[2]), policy);
  assert.deepEqual(ok.cosigners, ["W1", "W3"]);
  const stranger = { name: "stranger.example", secret: key(99) };
  await assert.rejects(
    openCheckpointWithPolicy(note + cosign(note, W[0]) + cosign(note, stranger), policy),
    /below the policy's quorum "two" \(cosigned by W1\)/,
  );
  await assert.rejects(openCheckpointWithPolicy(note, policy), /cosigned by no listed witness/);
});

Deno.test("quorum: a bad cosignature by a listed key, or an unlisted log, is refused", async () => {
  const good = cosign(note, W[1]);
  const bad = good.slice(0, -6) + (good.at(-6) === "A" ? "B" : "A") + good.slice(-5);
  await assert.rejects(
    openCheckpointWithPolicy(note + cosign(note, W[0]) + bad, policy),
    (e: Error & { code?: string }) => e.code === "note-bad-signature",
  );
  const other = signCheckpoint({ origin: ORIGIN, size: 1, root }, key(2));
  await assert.rejects(
    openCheckpointWithPolicy(other + cosign(other, W[0]) + cosign(other, W[1]), policy),
  );
});

Deno.test("quorum: a tlog-proof under the policy binds its leaf", async () => {
  const leaves = Array.from({ length: 7 }, (_, i) => sha256Hasher.leaf(enc.encode(`e${i}`)));
  const read = (ids: NodeId[]) =>
    Promise.resolve(
      ids.map(({ level, index }) =>
        referenceRoot(sha256Hasher, leaves.slice(index * 2 ** level, (index + 1) * 2 ** level))
      ),
    );
  const r7 = referenceRoot(sha256Hasher, leaves);
  const cp = signCheckpoint({ origin: ORIGIN, size: 7, root: r7 }, key(1));
  const cosigned = cp + cosign(cp, W[0]) + cosign(cp, W[1]);
  const text = formatTlogProof({
    index: 3,
    proof: await inclusionProof(sha256Hasher, 3, 7, read),
    checkpoint: cosigned,
  });
  const v = await verifyTlogProofWithPolicy(text, policy, sha256Hasher, leaves[3]);
  assert.deepEqual(v.policyCosigners, ["W1", "W2"]);
  await assert.rejects(verifyTlogProofWithPolicy(text, policy, sha256Hasher, leaves[4]));
});
