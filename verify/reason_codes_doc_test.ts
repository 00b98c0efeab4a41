import assert from "node:assert/strict";
import { renderReasonCodes } from "./reason_codes_doc.ts";
import {
  ALERT_CODES,
  INFORMATIONAL_CODES,
  NOT_VERIFICATION_OUTCOMES,
  REASON_CODES,
} from "./codes.ts";

Deno.test("docs/REASON-CODES.md is generated from verify/codes.ts and up to date", async () => {
  const onDisk = await Deno.readTextFile(new URL("../docs/REASON-CODES.md", import.meta.url));
  assert.ok(
    onDisk === renderReasonCodes(),
    "docs/REASON-CODES.md is stale: run `deno task docs:codes`",
  );
  for (const code of Object.keys(REASON_CODES)) {
    assert.ok(onDisk.includes(`- \`${code}\` — `), code);
  }
});

Deno.test("reason codes: the marks name only codes of the table, and no code is marked twice", () => {
  for (const c of Object.keys(NOT_VERIFICATION_OUTCOMES)) {
    assert.ok(Object.hasOwn(REASON_CODES, c), c);
  }
  for (const c of INFORMATIONAL_CODES) {
    assert.ok(Object.hasOwn(REASON_CODES, c), c);
    assert.ok(
      !Object.hasOwn(NOT_VERIFICATION_OUTCOMES, c),
      `${c} marked both informational and not an outcome`,
    );
  }
  for (const c of ALERT_CODES) {
    assert.ok(Object.hasOwn(REASON_CODES, c), c);
    assert.ok(!INFORMATIONAL_CODES.has(c) && !Object.hasOwn(NOT_VERIFICATION_OUTCOMES, c), c);
  }
  for (const code of Object.keys(REASON_CODES)) {
    assert.match(code, /^[a-z0-9]+(-[a-z0-9]+)*$/, code);
  }
});
