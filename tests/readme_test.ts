// README "Try it in a minute", run as written: the commands of its code blocks, in order, in one
// shell, from a fresh directory (a fresh data directory and $HOME), each output checked. The runner
// and its only rewrites (this Deno for `npx -y deno@2.9.6 task`, a free port for 8080) are
// tests/_readme.ts; tests/readme_rotation_test.ts runs the same commands after a rotation.
// Also the `prove 000…0` regression (issue 17): 64 zeros are a leaf hash, never index 0.
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

const dec = new TextDecoder();

Deno.test({
  name: "README: Try it in a minute, as written, against a fresh data directory",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const q = await startQuickStart();
    try {
      const { work, home, deno } = q;
      const r = await q.run(q.rest);
      const expect: ((x: Ran) => void)[] = [
        ...verifyExamplesExpected,
        (x) => { // submit
          assert.equal(x.code, 0, x.err);
          assert.equal(json(x).index, 0);
          assert.equal(json(x).verified, true);
        },
        (x) => { // monitor: first head
          assert.equal(x.code, 0, x.err);
          assert.equal(json(x).ok, true);
          assert.equal(json(x).size, 1);
        },
        (x) => assert.equal(json(x).index, 1, x.err),
        (x) => assert.equal(json(x).index, 2, x.err),
        (x) => { // prove --index 0
          assert.equal(x.code, 0, x.err);
          assert.equal(json(x).index, 0);
          assert.equal(json(x).size, 3);
          assert.equal(json(x).verified, true);
        },
        (x) => { // monitor: consistency 1 → 3
          assert.equal(x.code, 0, x.err);
          // from the published tiles, both views (docs/PUBLICATION.md: prove and monitor use them
          // whenever the log publishes them)
          assert.equal(json(x).from, "tiles");
          assert.match(json(x).message, /blake3 3 extends 1; sha256 3 extends 1/);
        },
        refusedInvalid,
        ...makeYourOwnExpected,
      ];
      assert.equal(r.length, expect.length, `the README has ${r.length} commands to check`);
      r.forEach((x, i) => expect[i](x));
      // The files the commands wrote are in the caller's directory, the key 0600; the monitor's
      // state is in the user's state directory, not in the working tree.
      assert.equal((await Deno.stat(`${work}/my-steward.key`)).mode! & 0o777, 0o600);
      await Deno.stat(`${work}/my.cose`);
      await Deno.stat(`${home}/.local/state/jouleclaw/monitor.json`);
      await assert.rejects(Deno.stat(`${work}/.jc-monitor.json`));
      await assert.rejects(Deno.stat(`${ROOT}my.cose`));

      // Regression: `prove 000…0` (64 zeros) is a leaf hash the log does not have, never index 0.
      const [zeros, byLeaf] = await q.run([
        `${deno} -q client prove ${"0".repeat(64)}`,
        `${deno} -q client prove --leaf ${"0".repeat(64)}`,
      ]);
      for (const x of [zeros, byLeaf]) {
        assert.equal(x.code, 1, `${x.cmd}: ${x.out}`);
        assert.equal(x.out, "", "no proof is reported");
        assert.match(x.err, /HTTP 404 not-found .*no entry has leaf hash 0{64}/);
      }
      // `client submit` reads what `verify` reads: a {"envelope": hex} file is that envelope
      // (it used to be sent as is and refused `truncated`).
      const hex = Array.from(
        await Deno.readFile(`${ROOT}examples/policy.cose`),
        (b) => b.toString(16).padStart(2, "0"),
      ).join("");
      await Deno.writeTextFile(`${work}/policy.json`, JSON.stringify({ envelope: hex }));
      const [asJson] = await q.run([`${deno} -q client submit policy.json`]);
      assert.equal(asJson.code, 0, asJson.err);
      assert.equal(json(asJson).index, 1, "the logged policy.cose, not a new entry");
      assert.equal(json(asJson).created, false);

      // README "Static tiled publication": its curl examples, as written, on the log the quick
      // start left (3 entries; they asked for a 5-wide tile and entry 3, and got 404s).
      const [c2sp] = sectionBlocks(
        await Deno.readTextFile(`${ROOT}README.md`),
        "## Static tiled publication (C2SP)",
      );
      assert.equal(c2sp.length, 3, c2sp.join("\n"));
      const [checkpoint, tile, tlogProof] = await q.run(c2sp);
      assert.match(
        checkpoint.out,
        /^jouleclaw\.invalid\/[0-9a-f]{16}\/sha256\n3\n[A-Za-z0-9+/=]{44}\n\n/,
      );
      const lines = tile.out.trim().split("\n");
      assert.equal(lines.length, 6, `3 hashes of 32 bytes: 6 lines of xxd\n${tile.out}`);
      assert.match(lines[0], /^00000000: [0-9a-f ]{39}/);
      assert.doesNotMatch(tile.out, /not-found|problem/);
      assert.match(tlogProof.out, /^c2sp\.org\/tlog-proof@v1\n/);
      assert.match(tlogProof.out, /\nindex 2\n/);
      // The README's steward key lands in the caller's directory: git ignores it there (in the
      // repository root too, where the README's commands run), so a secret is never committed.
      const ignored = await new Deno.Command("git", {
        args: ["check-ignore", "--no-index", "my-steward.key", "any/dir/other.key"],
        cwd: ROOT,
        stdout: "piped",
      }).output();
      assert.equal(ignored.code, 0, ".gitignore covers *.key");
      assert.equal(dec.decode(ignored.stdout), "my-steward.key\nany/dir/other.key\n");
    } finally {
      await q.stop();
    }
  },
});
