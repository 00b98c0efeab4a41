// Shared by the key-event tests over real HTTP (issue 25): the independent Python key-event
// builder and resolver (conformance/python/jckeys, written from JCP §2.1's text), a POST of an
// envelope to a route, and the log's entries read back.
import assert from "node:assert/strict";
import { fromHex, toHex } from "../../verify/mod.ts";
import { ROOT } from "../../fixtures/service.ts";

/** Runs `python3 -m jckeys args...` (stdin: `input` as JSON); its JSON answer. */
export async function pyKeys(args: string[], input?: unknown): Promise<Record<string, unknown>> {
  const child = new Deno.Command("/usr/bin/python3", {
    args: ["-m", "jckeys", ...args],
    cwd: `${ROOT}conformance/python`,
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(JSON.stringify(input)));
    await w.close();
  }
  const out = await child.output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** POSTs an envelope (hex or bytes) as application/cose to `path`; the status and JSON answer. */
export async function postTo(
  url: string,
  path: string,
  env: string | Uint8Array,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const bytes = typeof env === "string" ? fromHex(env) : env;
  const r = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: bytes.slice() as Uint8Array<ArrayBuffer>,
  });
  return { status: r.status, body: await r.json() };
}

/** Every entry of the log, in log order, as hex. */
export async function logEntries(url: string): Promise<string[]> {
  const head = await (await fetch(`${url}/v1/log/tree-head`)).json();
  const out: string[] = [];
  for (let i = 0; i < head.size; i++) {
    const r = await fetch(`${url}/v1/log/entries/${i}`, {
      headers: { accept: "application/cose" },
    });
    out.push(toHex(new Uint8Array(await r.arrayBuffer())));
  }
  return out;
}

/**
 * The log's entries replayed by the Python resolver: it finds no entry the log should have
 * refused, and its state of each identity is what GET /v1/keys/{identity} answers.
 */
export async function replayMatches(url: string, identities: string[]): Promise<void> {
  const entries = await logEntries(url);
  const r = await pyKeys(["replay"], { entries }) as {
    states: Record<string, { seq: number; current: string; next_hash: string; events: number[] }>;
    wrong: unknown[];
  };
  assert.deepEqual(r.wrong, [], "the log admitted an entry the Python resolver refuses");
  for (const id of identities) {
    const got = await (await fetch(`${url}/v1/keys/${id}`)).json();
    const want = r.states[id];
    assert.ok(want, `the Python resolver has no chain for ${id}`);
    assert.deepEqual(
      { seq: got.seq, current: got.current, next_hash: got.next_hash, events: got.events },
      want &&
        { seq: want.seq, current: want.current, next_hash: want.next_hash, events: want.events },
    );
  }
}
