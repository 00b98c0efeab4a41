// The outcome-trace vectors (conformance/traces/outcome-traces.json, JCP §5.3) against the real
// log: each vector's envelopes appended in order to a fresh SQLite log (the service's store, its
// default stream facts), each answered "logged" or refused with exactly the expected code; and
// the Python verifier's replay (jcverify/outcomes.py) agrees on every vector (python_test.ts).
import assert from "node:assert/strict";
import { LogInputError } from "../log/mod.ts";
import { openSqliteLog } from "../log/sqlite/mod.ts";
import { fromHex } from "../verify/mod.ts";
import { traceFile } from "./gen/traces.ts";
import type { TraceVector } from "./gen/traces.ts";

const file = JSON.parse(
  await Deno.readTextFile(new URL("./traces/outcome-traces.json", import.meta.url)),
);

Deno.test("traces: the published file is the generator's", () => {
  assert.deepEqual(file, JSON.parse(JSON.stringify(traceFile())));
});

Deno.test("traces: every vector, appended to a real log, is answered as expected", async () => {
  const vectors: TraceVector[] = file.vectors;
  assert.ok(vectors.length >= 10);
  for (const v of vectors) {
    const dir = await Deno.makeTempDir({ prefix: "jc-traces-" });
    const log = await openSqliteLog({ dir, secretKey: new Uint8Array(32).fill(3), batchAgeMs: 1 });
    try {
      const got: string[] = [];
      for (const hex of v.entries) {
        try {
          await log.append(fromHex(hex));
          got.push("logged");
        } catch (e) {
          if (!(e instanceof LogInputError)) throw e;
          got.push(e.code);
        }
      }
      assert.deepEqual(got, v.expected, v.name);
    } finally {
      await log.close();
      await Deno.remove(dir, { recursive: true });
    }
  }
});
