// tlog-cosignature's own example (no public key is published with it, so its signature cannot be
// checked): the example cosignature line is a type-0x04 signature of 4 + 8 + 64 bytes whose
// timestamp is the `time 1679315147` of the spec's signed-message example, read by both our
// parser and the Python one written from the spec.
import assert from "node:assert/strict";
import { cosignatureTimestamp, parseSignatureLine } from "../../log/c2sp/note.ts";
import { runPython } from "../verify/_python.ts";

const LINE =
  "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==";

Deno.test("tlog-cosignature example: 76 bytes, timestamp 1679315147 (TS and Python agree)", async () => {
  const s = parseSignatureLine(LINE);
  assert.equal(s.name, "witness.example.com/w1");
  assert.equal(s.sig.length, 72);
  assert.equal(cosignatureTimestamp(s.sig), 1679315147n);
  const py = await runPython(
    `import base64, json, sys
line = json.load(sys.stdin)
raw = base64.b64decode(line.split(" ")[2], validate=True)
print(json.dumps([len(raw), int.from_bytes(raw[4:12], "big")]))`,
    LINE,
  );
  assert.deepEqual(py, [76, 1679315147]);
});
