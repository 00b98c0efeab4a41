// tlog-witness add-checkpoint, the pure rules: body grammar (old line, <= 63 proof lines, blank
// line) and the consistency decision, each refusal with the status the spec assigns it.
import assert from "node:assert/strict";
import fc from "fast-check";
import { sha256Hasher } from "../../log/mod.ts";
import {
  checkAdvance,
  formatAddCheckpoint,
  parseAddCheckpoint,
  WitnessRefusal,
} from "../../log/c2sp/witness.ts";
import { testTree } from "./_tree.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const CP =
  "example.com/log\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n— example.com/log AAAA\n";
const H = "PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=";

function refused(fn: () => unknown, code: string, status: number) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof WitnessRefusal, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.status, status);
    return true;
  });
}

Deno.test("add-checkpoint body: the spec's grammar parses", () => {
  const r = parseAddCheckpoint(enc(`old 20852014\n${H}\n${H}\n\n${CP}`));
  assert.equal(r.oldSize, 20852014);
  assert.equal(r.proof.length, 2);
  assert.equal(new TextDecoder().decode(r.checkpoint), CP);
  const z = parseAddCheckpoint(enc(`old 0\n\n${CP}`));
  assert.equal(z.oldSize, 0);
  assert.deepEqual(z.proof, []);
  // 63 lines is the most a client may send
  assert.equal(parseAddCheckpoint(enc(`old 1\n${`${H}\n`.repeat(63)}\n${CP}`)).proof.length, 63);
});

Deno.test("add-checkpoint body: malformed bodies are 400 with their codes", () => {
  const bad = (s: string, code = "witness-bad-request") =>
    refused(() => parseAddCheckpoint(enc(s)), code, 400);
  bad("");
  bad("old 5"); // no newline
  bad(`old 05\n\n${CP}`); // leading zero
  bad(`old -1\n\n${CP}`);
  bad(`old  5\n\n${CP}`);
  bad(`Old 5\n\n${CP}`);
  bad(`old 5\n${H}\n${CP}`); // missing blank line: the checkpoint's origin is not base64
  bad(`old 5\n${H}\n`); // no blank line at all
  bad(`old 5\n\n`); // no checkpoint
  bad(`old 5\n${H.slice(1)}\n\n${CP}`); // short hash
  bad(`old 5\n!${H.slice(1)}\n\n${CP}`); // not base64
  bad(`old 5\n${H.slice(0, 42)}B=\n\n${CP}`); // non-canonical pad bits
  bad(`old 5\n ${H}\n\n${CP}`);
  bad(`old 5\r\n\n${CP}`);
  bad(`old 99999999999999999999\n\n${CP}`);
  bad(`old 1\n${`${H}\n`.repeat(64)}\n${CP}`, "witness-too-many-proof-lines");
  bad(`old 1\n\n${"x".repeat(70_000)}`);
});

Deno.test("add-checkpoint body: format then parse is the identity", async () => {
  const t = testTree(sha256Hasher);
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 300 }).chain((b) =>
        fc.tuple(fc.integer({ min: 1, max: b }), fc.constant(b))
      ),
      async ([a, b]) => {
        const proof = await t.proof(a, b);
        const r = parseAddCheckpoint(formatAddCheckpoint(a, proof, enc(CP)));
        assert.equal(r.oldSize, a);
        assert.deepEqual(r.proof, proof);
      },
    ),
    { numRuns: 50 },
  );
});

Deno.test("checkAdvance: every consistency rule and its status", async () => {
  const h = sha256Hasher;
  const t = testTree(h);
  const other = testTree(h, (i) => `other ${i}`);
  const at = (n: number) => ({ size: n, root: t.root(n) });
  // first checkpoint: old 0, no proof
  checkAdvance(h, { oldSize: 0, proof: [] }, at(10), undefined);
  checkAdvance(h, { oldSize: 0, proof: [] }, { size: 0, root: h.empty() }, undefined);
  refused(
    () => checkAdvance(h, { oldSize: 0, proof: [] }, { size: 0, root: t.root(1) }, undefined),
    "witness-empty-root",
    422,
  );
  refused(
    () => checkAdvance(h, { oldSize: 0, proof: [t.root(1)] }, at(10), undefined),
    "witness-proof-not-empty",
    422,
  );
  refused(
    () => checkAdvance(h, { oldSize: 11, proof: [] }, at(10), at(11)),
    "witness-old-size-too-large",
    400,
  );
  // 409 carries the stored size
  assert.throws(() => checkAdvance(h, { oldSize: 3, proof: [] }, at(10), at(5)), (e: unknown) => {
    assert.ok(e instanceof WitnessRefusal);
    assert.equal(e.status, 409);
    assert.equal(e.size, 5);
    return true;
  });
  refused(
    () => checkAdvance(h, { oldSize: 5, proof: [] }, at(10), undefined),
    "witness-old-size-mismatch",
    409,
  );
  // a good proof
  checkAdvance(h, { oldSize: 5, proof: await t.proof(5, 10) }, at(10), at(5));
  // same size, same root: fine; other root: 422
  checkAdvance(h, { oldSize: 10, proof: [] }, at(10), at(10));
  refused(
    () => checkAdvance(h, { oldSize: 10, proof: [] }, { size: 10, root: other.root(10) }, at(10)),
    "witness-root-mismatch",
    422,
  );
  // a proof for another tree, a truncated proof, a proof from another stored root
  refused(
    () => checkAdvance(h, { oldSize: 5, proof: [] }, at(10), at(5)),
    "witness-bad-proof",
    422,
  );
  const p = await t.proof(5, 10);
  const po = await other.proof(5, 10);
  refused(
    () => checkAdvance(h, { oldSize: 5, proof: p.slice(1) }, at(10), at(5)),
    "witness-bad-proof",
    422,
  );
  refused(
    () => checkAdvance(h, { oldSize: 5, proof: p }, { size: 10, root: other.root(10) }, at(5)),
    "witness-bad-proof",
    422,
  );
  refused(
    () =>
      checkAdvance(h, { oldSize: 5, proof: po }, {
        size: 10,
        root: other.root(10),
      }, at(5)),
    "witness-bad-proof",
    422,
  );
});
