// Shared by the streams tests over real HTTP (issue 24): the independent Python stream builder
// (conformance/python/jcstreams, written from JCP §8.1's text) and a POST of an envelope.
import assert from "node:assert/strict";
import { fromHex } from "../../verify/mod.ts";
import { ROOT } from "../../fixtures/service.ts";

/** One scenario's envelopes, as the Python implementation built them. */
export interface PyStream {
  steward: string;
  send: string[];
  content_ids: string[];
  order?: number[];
}

/** Runs `python3 -m jcstreams scenario seed [n]`. */
export async function pyStream(scenario: string, seed: number, n?: number): Promise<PyStream> {
  const out = await new Deno.Command("/usr/bin/python3", {
    args: ["-m", "jcstreams", scenario, String(seed), ...(n ? [String(n)] : [])],
    cwd: `${ROOT}conformance/python`,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** POSTs an envelope (hex) as application/cose; the status and the JSON answer. */
export async function post(
  url: string,
  hex: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: fromHex(hex).slice() as Uint8Array<ArrayBuffer>,
  });
  return { status: r.status, body: await r.json() };
}

/** POSTs envelopes as one bulk append (application/cbor-seq); each item's status, in order. */
export async function postBulk(url: string, hexes: string[]): Promise<number[]> {
  const parts = hexes.map((h) => fromHex(h));
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  // A connection of its own: local workerd resets a keep-alive connection reused after a request
  // of over ~20 s (docs/EDGE.md "Bulk appends"), which a loaded machine can reach.
  const client = Deno.createHttpClient({});
  let r: Response, answer;
  try {
    r = await fetch(`${url}/v1/log/entries`, {
      method: "POST",
      headers: { "content-type": "application/cbor-seq" },
      body,
      client,
    });
    answer = await r.json();
  } finally {
    client.close();
  }
  assert.equal(r.status, 200, JSON.stringify(answer).slice(0, 300));
  return (answer.results as { status: number }[]).map((x) => x.status);
}

/** A finding as the service answers it. */
export interface Finding {
  id: number;
  code: string;
  index: number;
  seq?: number;
  other?: number;
  cleared_by?: number;
}

/** The answers these tests read, as one loose shape (members by route). */
export interface Answer {
  code?: string;
  index: number;
  size: number;
  streams: { key: string; length: number; last_seq: number; findings: Finding[] }[];
  findings: Finding[];
  next: number | null;
  indices: number[];
  integrated_in: { size: number; timestamp: number };
  checkpoint: string;
  tree_head: { size: number; root: string };
  entries: { index: number; envelope: string; leaf_hash: string; inclusion_proof: string[] }[];
}

/** GETs JSON; the status and the body. */
export async function getJson(url: string): Promise<{ status: number; body: Answer }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.json() };
}

/** The codes of an append answer's findings. */
export function codesOf(body: Record<string, unknown>): string[] {
  return ((body.findings ?? []) as { code: string }[]).map((f) => f.code);
}
