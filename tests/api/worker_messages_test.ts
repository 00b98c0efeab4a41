// Every Worker of the service (api/services/verify_pool_worker.ts, api/services/off_loop_worker.ts through its two
// jobs api/services/validate_pool_worker.ts and api/services/sparql_worker_thread.ts), sent messages it does not
// expect — null, a string, an array, an object without its fields, fields of the wrong type —
// answers each with the stable code `worker-message-unexpected` and stays up (no error event:
// the verifier worker once threw `Cannot use 'in' operator to search for 'config' in null`);
// then it still does its work. Real Workers, spawned as the pools spawn them.
import assert from "node:assert/strict";
import { resolveConfig } from "../../api/services/config.ts";
import { UNEXPECTED_MESSAGE } from "../../api/services/worker_message.ts";

const api = (f: string) => new URL(`../../api/services/${f}`, import.meta.url);

/** A real module Worker: each `send` resolves with its next answer; error events are kept. */
function spawn(file: string) {
  const w = new Worker(api(file), { type: "module" });
  const errors: string[] = [];
  const waiting: ((m: unknown) => void)[] = [];
  w.onmessage = (ev) => waiting.shift()?.(ev.data);
  w.onerror = (ev) => {
    ev.preventDefault();
    errors.push(ev.message);
    waiting.shift()?.({ thrown: ev.message });
  };
  const send = (m: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer to ${Deno.inspect(m)}`)), 10_000);
      waiting.push((a) => (clearTimeout(t), resolve(a as Record<string, unknown>)));
      w.postMessage(m);
    });
  return { send, errors, close: () => w.terminate() };
}

const STRANGE: unknown[] = [null, "config", 42, [1, 2], {}, { config: null }, { id: "1" }];

// deno-lint-ignore no-explicit-any
const codeOf = (a: any): unknown => a.unexpected?.code ?? a.error?.code;

Deno.test("verify pool worker: unexpected messages are answered with a code, then it verifies", async () => {
  const w = spawn("verify_pool_worker.ts");
  try {
    const malformed = [
      ...STRANGE,
      { ids: [1], bytes: "00", ends: [1] },
      { ids: [1, 2], bytes: new Uint8Array(4), ends: [4] },
      { ids: [1], bytes: new Uint8Array(4), ends: [5] },
      { ids: [1, 2], bytes: new Uint8Array(4), ends: [3, 2] },
    ];
    for (const m of malformed) {
      const a = await w.send(m);
      assert.equal(codeOf(a), UNEXPECTED_MESSAGE, `${Deno.inspect(m)} → ${Deno.inspect(a)}`);
      assert.match(String((a.unexpected as { message: string }).message), /^Cannot handle/);
    }
    assert.deepEqual(await w.send({ config: resolveConfig({}, {}) }), { ready: true });
    const env = await Deno.readFile(new URL("../../examples/receipt.cose", import.meta.url));
    const a = await w.send({ ids: [7], bytes: env, ends: [env.length] });
    assert.deepEqual(a.ids, [7]);
    // deno-lint-ignore no-explicit-any
    assert.equal((a.outcomes as any)[0].report.valid, true, Deno.inspect(a));
    assert.deepEqual(w.errors, []);
  } finally {
    w.close();
  }
});

for (
  const [file, init, job, check] of [
    [
      "validate_pool_worker.ts",
      { maxNodes: 10_000 },
      { text: '{"@context": {}}' },
      (v: unknown) => assert.equal(typeof v, "object"),
    ],
    [
      "sparql_worker_thread.ts",
      { maxMemoryBytes: 256 * 1024 * 1024 },
      { query: "ASK { ?s ?p ?o }", mediaType: "application/sparql-results+json", maxBytes: 1e6 },
      (v: unknown) => assert.ok((v as { size: number }).size >= 0),
    ],
  ] as const
) {
  Deno.test(`${file}: unexpected messages, inits and jobs are answered with a code`, async () => {
    const w = spawn(file);
    try {
      for (const m of STRANGE) {
        const a = await w.send(m);
        assert.equal(codeOf(a), UNEXPECTED_MESSAGE, `${Deno.inspect(m)} → ${Deno.inspect(a)}`);
      }
      // an init without its fields: refused (failed), naming the code; then a proper one
      const bad = await w.send({ init: { nothing: 1 } });
      assert.match(String(bad.failed), /Cannot handle a message of fields nothing/);
      assert.deepEqual(await w.send({ init }), { ready: true });
      for (const msg of [null, "x", {}, { text: 1 }, { load: { start: "0" } }, { query: 1 }]) {
        const a = await w.send({ id: 3, msg });
        assert.equal(a.id, 3);
        assert.equal(codeOf(a), UNEXPECTED_MESSAGE, `${Deno.inspect(msg)} → ${Deno.inspect(a)}`);
      }
      const a = await w.send({ id: 4, msg: job });
      assert.equal(a.id, 4, Deno.inspect(a));
      check(a.value);
      assert.deepEqual(w.errors, []);
    } finally {
      w.close();
    }
  });
}
