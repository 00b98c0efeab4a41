// The spool's stash (meter-agent/src/spool.ts): spans metered while the chain head is unknown are
// kept unsigned, durably, in order; once signed, a span whose stash a crash left behind is known
// by its end (chain.json's, or the last pending reading's) and is not signed a second time.
import assert from "node:assert/strict";
import { Spool } from "../../meter-agent/src/spool.ts";
import type { GradedSpan } from "../../meter-agent/src/meter.ts";
import {
  GENESIS,
  identityFromSecret,
  readingCore,
  signReading,
} from "../../meter-agent/src/reading.ts";

const id = identityFromSecret(new Uint8Array(32).fill(5));

function span(start: number): GradedSpan {
  return {
    counter: "rapl",
    domain: "package",
    start,
    end: start + 400,
    energy_uj: 10_000,
    energy_provenance: "HwShunt",
    resolution_uj: 1,
    declined: [],
  } as unknown as GradedSpan;
}

Deno.test("meter-agent spool: stashed spans come back in order and survive a new Spool", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spool-stash-" });
  try {
    const s = new Spool(dir);
    for (const t of [1000, 1400, 1800]) s.stash(span(t));
    assert.equal(s.isFresh(), true, "stashed spans are not a chain");
    const again = new Spool(dir).stashed();
    assert.deepEqual(again.map((x) => x.span.start), [1000, 1400, 1800]);
    s.unstash(again[0].n);
    s.stash(span(2200)); // numbered after the last one left
    assert.deepEqual(new Spool(dir).stashed().map((x) => x.span.start), [1400, 1800, 2200]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("meter-agent spool: a span signed before a crash is known by its end, not signed again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spool-stash-" });
  try {
    const s = new Spool(dir);
    s.stash(span(1000));
    s.stash(span(1400));
    assert.equal(s.signedEnd(), -Infinity);
    s.resume(id.did, GENESIS);
    const [a] = s.stashed();
    const env = signReading(readingCore(a.span, id, "h", GENESIS), id);
    const head = s.append(id.did, GENESIS, env);
    assert.equal(head.end, a.span.end, "the head keeps the span's end");
    // crash here: the stash of span 0 is still on disk
    const r = new Spool(dir);
    assert.equal(r.signedEnd(), 1400);
    assert.deepEqual(
      r.stashed().filter((x) => x.span.end > r.signedEnd()).map((x) => x.span.start),
      [1400],
    );
    // a crash between the pending reading and chain.json: the reading's own end decides
    r.resume(id.did, { seq: head.seq, prev: head.prev }); // chain.json without an end
    assert.equal(new Spool(dir).signedEnd(), 1400);
    assert.deepEqual(new Spool(dir).open(id.did), { seq: head.seq, prev: head.prev });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
