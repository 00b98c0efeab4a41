// api/http/errors.ts maps an escaped error by its kind (net/error.ts CodedError), never by its class
// name (issue 22: it was a three-name allowlist): every coded error of the lower layers answers as
// before, a new input error needs no entry anywhere, and a look-alike by name is not trusted.
import assert from "node:assert/strict";
import { problemResponse } from "../../api/http/errors.ts";
import { CodedError } from "../../net/mod.ts";
import { CborError, VerifyInputError } from "../../verify/mod.ts";
import { LogInputError, LogStateError, LogStorageError } from "../../log/mod.ts";
import { C2spError } from "../../log/c2sp/mod.ts";

async function answer(e: unknown): Promise<[number, string]> {
  const r = problemResponse(e);
  return [r.status, (await r.json()).code];
}

Deno.test("errors: escaped coded errors answer by kind", async () => {
  assert.deepEqual(await answer(new VerifyInputError("bad-hex", "x")), [400, "bad-hex"]);
  assert.deepEqual(await answer(new CborError("cbor-trailing", "x")), [400, "cbor-trailing"]);
  assert.deepEqual(await answer(new LogInputError("index-out-of-range", "x")), [
    400,
    "index-out-of-range",
  ]);
  assert.deepEqual(await answer(new LogStorageError("io", "x")), [503, "storage-unavailable"]);
  assert.deepEqual(await answer(new LogStateError("key-missing", "x")), [500, "internal"]);
  assert.deepEqual(await answer(new C2spError("bad-note", "x")), [500, "internal"]);
  // A new input error of any name: its code, as a 400, with no list to extend.
  class ThingError extends CodedError {}
  assert.deepEqual(await answer(new ThingError("bad-thing", "x", "input")), [400, "bad-thing"]);
  // A plain Error that only looks like one by name and code is an internal fault.
  const fake = Object.assign(new Error("x"), { name: "LogInputError", code: "bad" });
  assert.deepEqual(await answer(fake), [500, "internal"]);
});
