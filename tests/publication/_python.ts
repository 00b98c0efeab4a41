// The independent Python verifier of the tiled publication (conformance/python/jcverify/tiles.py),
// run as Debian's python3 over real HTTP, for the publication tests. A missing Debian package FAILS
// the test that calls it (exit 2 names it); its exit code must agree with its JSON answer.
import assert from "node:assert/strict";

const PY_DIR = new URL("../../conformance/python/", import.meta.url).pathname;

/** `python3 -m jcverify.tiles --url URL --vkey VKEY [extra]`: its JSON answer. */
export async function pyCheck(url: string, vkey: string, extra: string[] = []) {
  const out = await new Deno.Command("/usr/bin/python3", {
    args: ["-m", "jcverify.tiles", "--url", url, "--vkey", vkey, ...extra],
    cwd: PY_DIR,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.notEqual(out.code, 2, `jcverify.tiles: missing dependency: ${err}`);
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(out.code === 0, r.ok, `exit ${out.code} disagrees with ${JSON.stringify(r)}`);
  return r as { ok: boolean; error?: string; size?: number; records?: number; consistent?: number };
}
