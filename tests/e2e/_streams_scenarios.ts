// The streams scenarios over real HTTP (issue 24), run against both deployments (tests/e2e/
// streams_python_test.ts: the Deno service; tests/edge/streams_edge_test.ts: workerd): streams
// built by the independent Python implementation (conformance/python/jcstreams, from JCP §8.1's
// text): a gap later filled, a fork (with its evidence bundle), a wrong prev, a reused receipt id,
// `n` links sent 16 at a time in bulk appends (out of order: their gaps clear), the lookups and the search; bad
// input is 400 with a code and writes nothing.
import assert from "node:assert/strict";
import { codesOf, getJson, post, postBulk, pyStream } from "./_streams_http.ts";
import { blake3, fromHex, toHex } from "../../verify/mod.ts";
import { blake3Hasher, verifyInclusion } from "../../log/mod.ts";

/** Runs every scenario against the service at `u` (no trailing slash). */
export async function exerciseStreams(u: string, N: number, CHUNK = 250): Promise<void> {
  const self = await pyStream("selftest", 1);
  assert.equal((self as unknown as { ok: boolean }).ok, true, "BLAKE3 agrees with b3sum");

  // a gap later filled
  const gap = await pyStream("gap", 11);
  const answers: Record<number, Record<string, unknown>> = {};
  for (const k of gap.order!) {
    const r = await post(u, gap.send[k]);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    answers[k] = r.body;
  }
  assert.deepEqual(codesOf(answers[3]), ["stream-gap"]);
  assert.deepEqual(codesOf(answers[2]), [], "the missing link arrives: no finding");
  let s = await getJson(`${u}/v1/streams?steward=${encodeURIComponent(gap.steward)}`);
  assert.equal(s.status, 200);
  assert.deepEqual(s.body.streams.map((x) => [x.key, x.length, x.last_seq]), [[
    "jcp",
    4,
    3,
  ]]);
  const g = s.body.streams[0].findings;
  assert.equal(g.length, 1);
  assert.equal(g[0].code, "stream-gap");
  assert.equal(g[0].cleared_by, answers[2].index, "cleared by the missing link");

  // a fork: both logged, the evidence bundle proves both under one head
  const fork = await pyStream("fork", 12);
  const fa = [];
  for (const e of fork.send) fa.push(await post(u, e));
  assert.ok(fa.every((r) => r.status === 201), "a finding never refuses an entry");
  assert.deepEqual(codesOf(fa[3].body), ["stream-fork"]);
  const ev = await getJson(`${u}/v1/log/entries/${fa[3].body.index}/evidence`);
  assert.equal(ev.status, 200);
  assert.equal(ev.body.entries.length, 2);
  assert.match(ev.body.checkpoint, /\n/);
  for (const e of ev.body.entries) {
    const leaf = fromHex(e.leaf_hash);
    assert.equal(toHex(blake3(new Uint8Array([0, ...fromHex(e.envelope)]))), e.leaf_hash);
    assert.ok(
      verifyInclusion(
        blake3Hasher,
        e.index,
        ev.body.tree_head.size,
        leaf,
        e.inclusion_proof.map(fromHex),
        fromHex(ev.body.tree_head.root),
      ),
      "each envelope is proven in the bundle's head",
    );
  }
  assert.deepEqual(ev.body.entries.map((e) => e.index), [
    fa[1].body.index,
    fa[3].body.index,
  ]);
  const noFork = await getJson(`${u}/v1/log/entries/${fa[0].body.index}/evidence`);
  assert.equal(noFork.status, 404);

  // a wrong prev
  const wp = await pyStream("wrong-prev", 13);
  const wa = [];
  for (const e of wp.send) wa.push(await post(u, e));
  assert.deepEqual(wa.map((r) => codesOf(r.body)), [[], [], ["stream-prev-mismatch"]]);

  // a reused receipt id
  const ri = await pyStream("reused-id", 14);
  const ra = [];
  for (const e of ri.send) ra.push(await post(u, e));
  assert.deepEqual(ra.map((r) => codesOf(r.body)), [[], ["receipt-id-reused"]]);
  const found = await getJson(
    `${u}/v1/log/search?steward=${encodeURIComponent(ri.steward)}&receipt_id=py-1`,
  );
  assert.deepEqual(found.body.indices, [ra[0].body.index, ra[1].body.index]);
  assert.equal(found.body.next, null);

  // lookups by content id (JCP §3, what prev names), integration time on the entry JSON
  const c = await getJson(`${u}/v1/log/content/${gap.content_ids[1]}`);
  assert.equal(c.status, 200);
  assert.equal(c.body.index, answers[1].index);
  const entry = await getJson(`${u}/v1/log/entries/${answers[1].index}`);
  assert.ok(entry.body.integrated_in.size > (answers[1].index as number));
  assert.equal(typeof entry.body.integrated_in.timestamp, "number");
  const miss = await getJson(`${u}/v1/log/content/${"0".repeat(64)}`);
  assert.equal(miss.status, 404);

  // bad input: 400 with a code, nothing written
  const size0 = (await getJson(`${u}/v1/log/tree-head`)).body.size;
  for (
    const [path, code] of [
      ["/v1/log/content/ABC", "bad-parameter"],
      [`/v1/log/content/${"a".repeat(63)}`, "bad-parameter"],
      ["/v1/log/search", "bad-parameter"],
      ["/v1/log/search?input_hash=xyz", "bad-parameter"],
      ["/v1/log/search?steward=nodid", "bad-parameter"],
      ["/v1/log/search?receipt_id=a&color=red", "unknown-query-parameter"],
      ["/v1/streams", "bad-parameter"],
      [`/v1/streams?steward=${gap.steward}&x=1`, "unknown-query-parameter"],
      [`/v1/streams?steward=${gap.steward}&after=-1`, "bad-parameter"],
    ]
  ) {
    const r = await getJson(`${u}${path}`);
    assert.equal(r.status, 400, path);
    assert.equal(r.body.code, code, path);
  }
  assert.equal((await getJson(`${u}/v1/log/tree-head`)).body.size, size0, "nothing written");

  // 10^4 links in bulk appends (application/cbor-seq, issue 29) of 250, 4 in flight at a time:
  // the chunks are sequenced out of order, so gaps open and all must clear
  const long = await pyStream("long", 15, N);
  let next = 0;
  const statuses: number[] = [];
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < long.send.length) {
      const k = next;
      next += CHUNK;
      const got = await postBulk(u, long.send.slice(k, k + CHUNK));
      got.forEach((st, j) => statuses[k + j] = st);
    }
  }));
  assert.equal(statuses.length, N);
  assert.ok(statuses.every((x) => x === 201));
  s = await getJson(`${u}/v1/streams?steward=${encodeURIComponent(long.steward)}&limit=1000`);
  assert.deepEqual(s.body.streams.map((x) => [x.length, x.last_seq]), [[N, N - 1]]);
  const open: unknown[] = [];
  let after = 0;
  for (;;) {
    const p = await getJson(
      `${u}/v1/streams?steward=${encodeURIComponent(long.steward)}&after=${after}&limit=1000`,
    );
    const fs = [...p.body.streams.flatMap((x) => x.findings), ...p.body.findings];
    open.push(...fs.filter((f) => f.code !== "stream-gap" || f.cleared_by === undefined));
    if (p.body.next === null) break;
    after = p.body.next;
  }
  assert.deepEqual(open, [], "every out-of-order gap cleared; no other finding");
  const last = await getJson(`${u}/v1/log/content/${long.content_ids[N - 1]}`);
  assert.equal(last.status, 200);
}
