// README "Try it in a minute", run as written (tests/_readme.ts: the same runner and rewrites as
// tests/readme_test.ts), against a service that has ROTATED before the commands run (issue 28:
// rotation is documented, so users turn it on). The operator turns rotation on the documented way
// (docs/SHARDS.md "Lifecycle": `admin_token`, then `POST /v1/logs/rotate`) after two entries, so
// s0 is frozen holding them and s1 is active and empty. Then each command's outcome is what a user
// expects: appends, proofs and the monitor are the active shard's (its indexes from 0, the shard
// named), verify/keygen/seal unchanged; `client get` defaults to the active shard as `prove` does;
// the README's tiled-publication curl examples: the root ones show s0's frozen log, the README's
// active-shard ones (`/shards/s1/…`) the quick start's three entries.
import assert from "node:assert/strict";
import { ROOT } from "../fixtures/service.ts";
import {
  json,
  makeYourOwnExpected,
  type Ran,
  refusedInvalid,
  sectionBlocks,
  startQuickStart,
  verifyExamplesExpected,
} from "./_readme.ts";

const TOKEN = "readme-rotation-admin-token";

Deno.test({
  name: "README: Try it in a minute, as written, after a rotation (s0 frozen with 2, s1 active)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const q = await startQuickStart({ JC_ADMIN_TOKEN: TOKEN });
    try {
      // Before the quick start: two entries in s0 (not the quick start's first receipt, so an
      // entry's bytes say which shard it came from), then the rotation.
      for (const f of ["jcp2.cose", "policy.cose"]) {
        const r = await fetch(`${q.url}/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: await Deno.readFile(`${ROOT}examples/${f}`),
        });
        const said = await r.text();
        assert.ok(r.ok, `${f}: ${r.status} ${said}`);
      }
      const rot = await fetch(`${q.url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const rotated = await rot.text();
      assert.equal(rot.status, 200, rotated);
      const logs = await (await fetch(`${q.url}/v1/logs`)).json();
      assert.deepEqual(
        logs.directory.shards.map((s: { id: string; state: string; size: number }) => [
          s.id,
          s.state,
          s.size,
        ]),
        [["s0", "frozen", 2], ["s1", "active", 0]],
      );

      const r = await q.run(q.rest);
      const inS1 = (x: Ran, index: number) => {
        assert.equal(x.code, 0, x.err);
        assert.equal(json(x).index, index, x.out);
        assert.equal(json(x).shard, "s1", x.out);
        assert.equal(json(x).verified, true);
      };
      const monitored = (x: Ran, size: number) => {
        assert.equal(x.code, 0, x.err);
        const m = json(x);
        assert.equal(m.ok, true);
        assert.equal(m.shard, "s1");
        assert.equal(m.size, size);
        assert.equal(m.from, "tiles");
        assert.deepEqual(
          m.shards.map((s: { id: string; state: string; size: number }) => [s.id, s.state, s.size]),
          [["s0", "frozen", 2], ["s1", "active", size]],
        );
      };
      const expect: ((x: Ran) => void)[] = [
        ...verifyExamplesExpected,
        (x) => { // submit: the active shard's first entry (s0's receipts are final: a new entry)
          inS1(x, 0);
          assert.equal(json(x).created, true);
        },
        (x) => { // monitor: the active shard's first head, s0 at its final size, no alarm
          monitored(x, 1);
          assert.match(json(x).message, /blake3: first checkpoint 1; sha256: first checkpoint 1/);
        },
        (x) => inS1(x, 1),
        (x) => inS1(x, 2),
        (x) => { // prove --index 0: in the active shard, without --shard
          inS1(x, 0);
          assert.equal(json(x).size, 3);
        },
        (x) => { // monitor: consistency 1 → 3 in the active shard, s0 still its final size
          monitored(x, 3);
          assert.match(json(x).message, /blake3 3 extends 1; sha256 3 extends 1/);
        },
        refusedInvalid,
        ...makeYourOwnExpected,
      ];
      assert.equal(r.length, expect.length, `the README has ${r.length} commands to check`);
      r.forEach((x, i) => expect[i](x));

      // `client get INDEX --out FILE`: the active shard's entry, as `prove --index` (its --shard
      // help: "default the active one"); --shard s0 the frozen one's.
      const [got, got0] = await q.run([
        `${q.deno} -q client get 0 --out got.cose`,
        `${q.deno} -q client get 0 --shard s0 --out got0.cose`,
      ]);
      assert.equal(got.code, 0, got.err);
      assert.equal(json(got).shard, "s1");
      assert.deepEqual(
        await Deno.readFile(`${q.work}/got.cose`),
        await Deno.readFile(`${ROOT}examples/receipt.cose`),
      );
      assert.equal(got0.code, 0, got0.err);
      assert.equal(json(got0).shard, "s0");
      assert.deepEqual(
        await Deno.readFile(`${q.work}/got0.cose`),
        await Deno.readFile(`${ROOT}examples/jcp2.cose`),
      );

      // README "Static tiled publication": the root examples are s0's, frozen at 2 entries (root
      // paths never change meaning); the README's active-shard examples give the quick start's 3.
      const blocks = sectionBlocks(
        await Deno.readTextFile(`${ROOT}README.md`),
        "## Static tiled publication (C2SP)",
      );
      assert.equal(blocks.length, 2, "the root examples, then the active shard's");
      const [root, active] = blocks;
      const [checkpoint0] = await q.run(root);
      assert.match(checkpoint0.out, /^jouleclaw\.invalid\/[0-9a-f]{16}\/sha256\n2\n/);
      const [which, checkpoint, tile, tlogProof] = await q.run(active);
      assert.equal(which.out, '"prefix":"/shards/s1","state":"active"\n');
      assert.match(
        checkpoint.out,
        /^jouleclaw\.invalid\/[0-9a-f]{16}\/s1\/sha256\n3\n[A-Za-z0-9+/=]{44}\n\n/,
      );
      const lines = tile.out.trim().split("\n");
      assert.equal(lines.length, 6, `3 hashes of 32 bytes: 6 lines of xxd\n${tile.out}`);
      assert.doesNotMatch(tile.out, /not-found|problem/);
      assert.match(tlogProof.out, /^c2sp\.org\/tlog-proof@v1\n/);
      assert.match(tlogProof.out, /\nindex 2\n/);
      assert.match(tlogProof.out, /jouleclaw\.invalid\/[0-9a-f]{16}\/s1\/sha256\n3\n/);
    } finally {
      await q.stop();
    }
  },
});
