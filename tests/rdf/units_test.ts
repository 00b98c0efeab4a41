// The small parts of issue 15 on their own: the WebAssembly memory cap (api/services/oxigraph_bounded.ts),
// the retyping of integers too wide for Virtuoso (rdfsync/entry_graph.ts), the Graph Store URL,
// and the off-loop Worker's time limit, replacement and queue bound (api/services/off_loop.ts).
import assert from "node:assert/strict";
import fc from "fast-check";
import { capWasmMemory } from "../../api/services/oxigraph_bounded.ts";
import { gspUrl, narrowIntegers } from "../../rdfsync/mod.ts";
import { JobQueueFullError, JobTimeoutError, OffLoopWorker } from "../../api/services/off_loop.ts";

// (module (memory (export "m") 1)) — a memory of 1 page, no maximum.
const MODULE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version
  0x05,
  0x03,
  0x01,
  0x00,
  0x01, // memory section: 1 memory, flags 0, initial 1
  0x07,
  0x05,
  0x01,
  0x01,
  0x6d,
  0x02,
  0x00, // export "m" memory 0
]);

Deno.test("capWasmMemory: the module's memory gets a maximum that grow() cannot pass", () => {
  const capped = capWasmMemory(MODULE, 3);
  const m = new WebAssembly.Instance(new WebAssembly.Module(capped.slice())).exports
    .m as WebAssembly.Memory;
  assert.equal(m.grow(2), 1); // 1 → 3 pages
  assert.throws(() => m.grow(1), RangeError);
  // Uncapped, the same grow succeeds.
  const free = new WebAssembly.Instance(new WebAssembly.Module(MODULE.slice())).exports
    .m as WebAssembly.Memory;
  assert.equal(free.grow(3), 1);
  // A cap above 127 pages takes a two-byte LEB128 and still validates.
  assert.ok(WebAssembly.validate(capWasmMemory(MODULE, 10_240).slice()));
});

Deno.test("narrowIntegers: only integers above 2^63-1 become xsd:decimal, digits unchanged", () => {
  const X = "http://www.w3.org/2001/XMLSchema#";
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (v) => {
    const line = `<s> <p> "${v}"^^<${X}nonNegativeInteger> .\n`;
    const out = narrowIntegers(line);
    if (v > 2n ** 63n - 1n) assert.equal(out, `<s> <p> "${v}"^^<${X}decimal> .\n`);
    else assert.equal(out, line);
  }));
  const s = `<s> <p> "18446744073709551615" .\n`; // a string stays a string
  assert.equal(narrowIntegers(s), s);
});

Deno.test("gspUrl: templated (Virtuoso) or ?graph= (Graph Store Protocol §4.2)", () => {
  const g = "http://x/v1/log/entries/7";
  assert.equal(
    gspUrl("http://h/sparql-graph-crud?graph-uri={graph}", g),
    `http://h/sparql-graph-crud?graph-uri=${encodeURIComponent(g)}`,
  );
  assert.equal(gspUrl("http://h/ds/data", g), `http://h/ds/data?graph=${encodeURIComponent(g)}`);
  assert.equal(gspUrl("http://h/d?x=1", g), `http://h/d?x=1&graph=${encodeURIComponent(g)}`);
});

Deno.test("OffLoopWorker: past the limit the Worker is replaced; the queue is bounded", async () => {
  const w = new OffLoopWorker({
    url: new URL("../../api/services/validate_pool_worker.ts", import.meta.url),
    init: { maxNodes: 1e9 },
    maxQueued: 2,
  });
  try {
    await w.ready;
    const big = JSON.stringify({
      "@context": "https://jouleclaw.transaction.science/vocab/v1.jsonld",
      "@graph": Array.from({ length: 3000 }, (_, i) => ({ "@id": `_:n${i}`, "@type": "Receipt" })),
    });
    const slow = w.run({ text: big }, 300);
    const queued = w.run({ text: "{}", cls: "TreeHead" }, 60_000);
    await assert.rejects(w.run({ text: "{}" }, 1000), JobQueueFullError);
    const e = await slow.then(() => undefined, (x) => x);
    assert.ok(e instanceof JobTimeoutError && e.started, String(e));
    assert.equal(w.starts, 2);
    // The queued job runs on the replacement.
    const a = await queued as { conforms: boolean };
    assert.equal(typeof a.conforms, "boolean");
  } finally {
    w.close();
  }
});

Deno.test("validation Worker: first-use costs are paid before it is ready; under a limit below them each replacement still validates", async () => {
  // 100 ms: above a warm validation of a small document (5-17 ms measured), below a fresh
  // Worker's first one without its warm-up (200-335 ms quiet): there every replacement's first
  // job was ended in turn, and the service never validated again (tests/rdf/hostile_test.ts).
  const LIMIT = 100;
  const w = new OffLoopWorker({
    url: new URL("../../api/services/validate_pool_worker.ts", import.meta.url),
    init: { maxNodes: 1e9 },
    maxQueued: 4,
  });
  const small = async () => {
    // a few tries: one past the limit ends the Worker (the next try gets a fresh one)
    for (let i = 0; i < 5; i++) {
      await w.ready;
      const a = await w.run({ text: JSON.stringify({ size: 1 }), cls: "TreeHead" }, LIMIT)
        .catch((e) => e);
      if (!(a instanceof JobTimeoutError)) return a as { conforms: boolean };
    }
    assert.fail(`5 fresh Workers in turn ran past ${LIMIT} ms on a small document`);
  };
  try {
    assert.equal(typeof (await small()).conforms, "boolean");
    const big = JSON.stringify({
      "@context": "https://jouleclaw.transaction.science/vocab/v1.jsonld",
      "@graph": Array.from({ length: 3000 }, (_, i) => ({ "@id": `_:n${i}`, "@type": "Receipt" })),
    });
    const starts = w.starts;
    const e = await w.run({ text: big }, LIMIT).then(() => undefined, (x) => x);
    assert.ok(e instanceof JobTimeoutError && e.started, String(e));
    assert.equal(w.starts, starts + 1, "the Worker was replaced");
    assert.equal(typeof (await small()).conforms, "boolean", "the replacement validates");
  } finally {
    w.close();
  }
});
