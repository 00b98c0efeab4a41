// SPEC §13 / issue: the JSON-LD processor never touches the network. A subprocess with no
// --allow-net converts and validates every document; a remote @context is refused by the
// in-memory loader before any request (checked in the same network-less subprocess).
import assert from "node:assert/strict";
import { allDocs } from "./_docs.ts";

Deno.test("offline: every document converts and validates with network access denied", async () => {
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--no-prompt",
      "--allow-read",
      "--allow-env",
      new URL("./offline_check.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(r.stdout);
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  assert.deepEqual(JSON.parse(out), {
    converted: allDocs().length,
    refused: "context-not-available",
  });
});
