// The Worker gives the same answers as the embedded default (issue 7 acceptance): one script of
// requests — submit, dedup, refusals, entries in every media type, proofs by index and by leaf
// hash, consistency, heads, verify, vocabulary files, API doc, discovery, problem+json errors — is
// sent to `deno task start` (fixtures/service.ts; SQLite store) and to the Worker under local
// workerd, both with one log key, and every answer is compared: status, media type, Cache-Control
// and body. The same entries must give the same indices, leaf hashes, roots and proof paths, and
// the same signer. Only what the clock decides (timestamps, hence signatures) and the listening
// origin are masked; each side's heads are verified under the signer instead. Documented differences (docs/EDGE.md) are asserted
// separately: the latest head's Cache-Control and SPARQL (refused at the edge).
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { badSignatureEnvelope, receiptCore, steward, validEnvelope } from "../../fixtures/app.ts";
import { startService } from "../../fixtures/service.ts";
import { initLogPin } from "../../log/sqlite/mod.ts";
import { entryLeafHash, fromHex, toHex } from "../../verify/mod.ts";
import {
  removeBundle,
  startWorker,
  TEST_LOG_KEY,
  TEST_OPERATOR_KEY,
} from "../../fixtures/worker.ts";

interface Step {
  name: string;
  /** For a conformance vector: whether it is expected to verify (else: refused 422). */
  valid?: boolean;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

interface Answer {
  status: number;
  type: string;
  cacheControl: string;
  body: unknown;
}

// integrated_at (jc:integratedAt) is the timestamp of the head that integrated the entry (issue 30)
const MASKED = new Set(["signature", "timestamp", "integrated_at"]);
/** jc:integratedAt in N-Quads and Turtle: a head's timestamp, like `timestamp` in JSON. */
const INTEGRATED_AT = /(integratedAt>? +)("\d+"(\^\^\S+)?|\d+)/g;
// The operator key of the shard directory (docs/SHARDS.md) is each deployment's own: not compared.
const DROPPED = new Set(["operator_vkey"]);
const cose = { "content-type": "application/cose", accept: "application/json" };

function mask(v: unknown, subst: (s: string) => string): unknown {
  if (typeof v === "string") return subst(v);
  if (Array.isArray(v)) return v.map((x) => mask(x, subst));
  if (v && typeof v === "object") {
    const kept = Object.entries(v).filter(([k]) => !DROPPED.has(k));
    return Object.fromEntries(
      kept.map(([k, x]) => [k, MASKED.has(k) ? `<${k}>` : mask(x, subst)]),
    );
  }
  return v;
}

async function ask(base: string, s: Step): Promise<Answer> {
  const res = await fetch(base + s.path, {
    method: s.method ?? "GET",
    headers: s.headers,
    body: typeof s.body === "string" ? s.body : s.body?.slice(),
  });
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim();
  const subst = (t: string) => t.replaceAll(base, "{BASE}");
  let body: unknown;
  if (/json/.test(type)) body = mask(await res.json(), subst);
  else if (/^text\/|n-quads|turtle/.test(type)) {
    body = subst(await res.text()).replace(INTEGRATED_AT, "$1<integrated_at>");
  } else body = toHex(new Uint8Array(await res.arrayBuffer()));
  return { status: res.status, type, cacheControl: res.headers.get("cache-control") ?? "", body };
}

const VECTORS = new URL("../../conformance/vectors/", import.meta.url);

/** Every conformance vector (positive and negative), in name order. */
async function vectorSteps(): Promise<Step[]> {
  const out: Step[] = [];
  for await (const e of Deno.readDir(VECTORS)) {
    if (!e.isFile || !e.name.endsWith(".json") || e.name === "operator-config.json") continue;
    const doc = JSON.parse(await Deno.readTextFile(new URL(e.name, VECTORS)));
    for (const v of doc.vectors ?? []) {
      if (typeof v.cose_sign1_hex !== "string") continue;
      out.push({
        name: `vector ${v.name}`,
        method: "POST",
        path: "/v1/log/entries",
        headers: cose,
        body: fromHex(v.cose_sign1_hex),
        // A meter reading is appended only through /v1/readings: on /v1/log/entries even a valid
        // one is refused (422 readings-route-only), by both deployments alike.
        valid: v.expected?.valid === true && v.schema !== "meter-reading/1",
      });
    }
  }
  return out.sort((a, b) => a.name < b.name ? -1 : 1);
}

function script(): Step[] {
  const envs = Array.from({ length: 10 }, (_, i) => validEnvelope(200 + i));
  const leaf = (i: number) => toHex(entryLeafHash(envs[i]));
  const steps: Step[] = [
    { name: "discovery (JSON-LD)", path: "/", headers: { accept: "application/ld+json" } },
    { name: "verification page", path: "/", headers: { accept: "text/html" } },
    { name: "page script", path: "/assets/app.js" },
    { name: "page style", path: "/assets/page.css" },
    { name: "offline verifier", path: "/verifier.html" },
    { name: "API doc", path: "/v1/api-doc" },
    { name: "vocab context", path: "/vocab/v1.jsonld" },
    { name: "vocab ontology", path: "/vocab/v1.ttl" },
    { name: "vocab shapes", path: "/vocab/v1.shapes.ttl" },
    { name: "vocab index", path: "/vocab/v1" },
    { name: "empty head", path: "/v1/log/tree-heads/0" },
    { name: "verify valid", method: "POST", path: "/v1/verify", headers: cose, body: envs[0] },
    {
      name: "verify bad signature",
      method: "POST",
      path: "/v1/verify",
      headers: cose,
      body: badSignatureEnvelope(1),
    },
    {
      name: "verify JSON body",
      method: "POST",
      path: "/v1/verify",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ envelope: toHex(envs[2]) }),
    },
    {
      name: "validate a receipt (SHACL)",
      method: "POST",
      path: "/v1/validate",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(receiptCore(steward().did, 1)),
    },
    {
      name: "validate a non-conforming receipt",
      method: "POST",
      path: "/v1/validate",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...receiptCore(steward().did, 2),
        joules_uj: "lots",
        tier: undefined,
      }),
    },
  ];
  envs.forEach((e, i) =>
    steps.push({
      name: `submit ${i}`,
      method: "POST",
      path: "/v1/log/entries",
      headers: cose,
      body: e,
    })
  );
  steps.push(
    { name: "resubmit 3", method: "POST", path: "/v1/log/entries", headers: cose, body: envs[3] },
    {
      name: "submit invalid (422 + report)",
      method: "POST",
      path: "/v1/log/entries",
      headers: cose,
      body: badSignatureEnvelope(9),
    },
    { name: "entry JSON", path: "/v1/log/entries/4" },
    { name: "entry COSE", path: "/v1/log/entries/4", headers: { accept: "application/cose" } },
    {
      name: "entry JSON-LD",
      path: "/v1/log/entries/4",
      headers: { accept: "application/ld+json" },
    },
    {
      name: "entry N-Quads",
      path: "/v1/log/entries/4",
      headers: { accept: "application/n-quads" },
    },
    { name: "entry Turtle", path: "/v1/log/entries/4", headers: { accept: "text/turtle" } },
    { name: "entries page", path: "/v1/log/entries?start=2&limit=4" },
    { name: "leaf index", path: `/v1/log/leaves/${leaf(6)}` },
    { name: "proof by index", path: "/v1/log/proof/inclusion?index=5&size=10" },
    { name: "proof by index, latest", path: "/v1/log/proof/inclusion?index=5" },
    { name: "proof by leaf hash", path: `/v1/log/proof/inclusion?leaf_hash=${leaf(7)}&size=9` },
    { name: "consistency", path: "/v1/log/proof/consistency?first=3&second=10" },
    { name: "consistency from 1", path: "/v1/log/proof/consistency?first=1&second=7" },
    { name: "head at 10", path: "/v1/log/tree-heads/10" },
    { name: "export N-Quads", path: "/v1/log/export?start=0&end=3" },
    { name: "health", path: "/healthz" },
    { name: "key", path: "/v1/log/key" },
    // The tiled publication (PUBLICATION.md): same checkpoints, tiles, bundles and tlog-proofs.
    ...(["blake3", "sha256"] as const).flatMap((v): Step[] => [
      { name: `${v} checkpoint`, path: `/log/${v}/checkpoint` },
      { name: `${v} level-0 tile`, path: `/log/${v}/tile/0/000.p/10` },
      { name: `${v} narrower partial tile`, path: `/log/${v}/tile/0/000.p/3` },
      { name: `${v} bundle`, path: `/log/${v}/tile/entries/000.p/10` },
      { name: `${v} tlog-proof`, path: `/v1/log/proof/tlog-proof?index=5&view=${v}` },
    ]),
    // problem+json answers
    { name: "bad index", path: "/v1/log/entries/abc" },
    { name: "absent index", path: "/v1/log/entries/999" },
    { name: "absent head", path: "/v1/log/tree-heads/999" },
    { name: "absent leaf", path: `/v1/log/leaves/${"00".repeat(32)}` },
    { name: "bad leaf hash", path: "/v1/log/leaves/xyz" },
    { name: "proof past the head", path: "/v1/log/proof/inclusion?index=1&size=99" },
    { name: "proof index past size", path: "/v1/log/proof/inclusion?index=9&size=5" },
    { name: "consistency reversed", path: "/v1/log/proof/consistency?first=9&second=3" },
    { name: "unknown route", path: "/v1/nope" },
    { name: "tile wider than the tree", path: "/log/sha256/tile/0/000" },
    { name: "tile beyond the tree", path: "/log/blake3/tile/1/000.p/1" },
    { name: "non-canonical tile path", path: "/log/sha256/tile/0/x000/000.p/10" },
    { name: "tile width 0", path: "/log/sha256/tile/entries/000.p/0" },
    { name: "unknown view", path: "/log/md5/checkpoint" },
    { name: "wrong method", method: "DELETE", path: "/v1/log/tree-head" },
    { name: "verify no body", method: "POST", path: "/v1/verify", headers: cose },
    {
      name: "verify wrong media type",
      method: "POST",
      path: "/v1/verify",
      headers: { "content-type": "text/plain" },
      body: "hello",
    },
    {
      name: "entry in an unsupported media type",
      path: "/v1/log/entries/1",
      headers: { accept: "image/png" },
    },
  );
  return steps;
}

Deno.test({
  name: "edge: the Worker answers a request script exactly as the embedded default does",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-parity-embedded-" });
    const state = await Deno.makeTempDir({ prefix: "jc-parity-edge-" });
    // The embedded default as shipped (SQLite store), with the Worker's log key.
    await Deno.writeTextFile(`${dataDir}/log-key.hex`, TEST_LOG_KEY + "\n", { mode: 0o600 });
    await initLogPin(`${dataDir}/log-key.hex`); // a key made beforehand: a new log explicitly
    // Issue 23: one operator key on both sides, so both log the same verifier-config/1 entry.
    await Deno.writeTextFile(`${dataDir}/operator-key.hex`, TEST_OPERATOR_KEY + "\n", {
      mode: 0o600,
    });
    // One operator configuration on both sides: a file for the embedded default, the JSON itself
    // in the Worker var.
    const opConfig = new URL("operator-config.json", VECTORS).pathname;
    const embedded = await startService({
      DATA_DIR: dataDir,
      JC_KEY_FILE: `${dataDir}/log-key.hex`,
      JC_OPERATOR_CONFIG: opConfig,
      JC_LOG_NAME: "parity.example/jc",
    });
    const worker = await startWorker(state, {
      JC_OPERATOR_CONFIG: await Deno.readTextFile(opConfig),
      JC_LOG_NAME: "parity.example/jc",
      JC_OPERATOR_KEY: TEST_OPERATOR_KEY,
    });
    try {
      const wBase = worker.url.href.replace(/\/$/, "");
      const wSigner = await new LogClient(wBase).signer();
      assert.equal(wSigner, embedded.signer, "one log key, one signer on both sides");
      const sides = [
        { name: "embedded", base: embedded.url, signer: embedded.signer },
        { name: "worker", base: wBase, signer: wSigner },
      ];
      const steps = script();
      const errorsFrom = steps.findIndex((x) => x.name === "bad index");
      const vectors = await vectorSteps();
      assert.ok(vectors.filter((v) => v.valid).length >= 10, "positive vectors");
      assert.ok(vectors.filter((v) => !v.valid).length >= 10, "negative vectors");
      for (const s of steps) {
        await t.step(s.name, async () => {
          const [a, b] = [
            await ask(sides[0].base, s),
            await ask(sides[1].base, s),
          ];
          assert.deepEqual(b, a, `${s.method ?? "GET"} ${s.path}`);
          // Not vacuous: the script's errors are errors and everything else succeeds.
          const wantError = steps.indexOf(s) >= errorsFrom;
          assert.equal(
            a.status >= 400,
            wantError || s.name.startsWith("submit invalid"),
            `${s.name}: ${a.status}`,
          );
          if (a.status >= 400) assert.equal(a.type, "application/problem+json", s.path);
        });
      }
      await t.step(
        `${vectors.length} conformance vectors: same verdicts, indices and proofs`,
        async () => {
          for (const v of vectors) {
            const [a, b] = [await ask(sides[0].base, v), await ask(sides[1].base, v)];
            assert.deepEqual(b, a, v.name);
            // A vector that verifies is appended (201, or 200 for bytes already logged); one that
            // does not is refused with its report (422).
            assert.equal(
              v.valid ? a.status === 201 || a.status === 200 : a.status === 422,
              true,
              `${v.name}: ${a.status}`,
            );
          }
        },
      );
      await t.step("each side's heads verify under its own signer, roots agree", async () => {
        const heads = [];
        for (const side of sides) {
          const c = new LogClient(side.base, side.signer);
          const h = await c.head(); // signature checked against the side's signer
          await c.checkConsistency(await c.headAt(3), h);
          heads.push(h);
        }
        assert.ok(heads[0].size > 10);
        assert.equal(heads[1].root, heads[0].root);
      });
      await t.step("documented differences: latest-head caching, SPARQL refused", async () => {
        const e = await fetch(embedded.url + "/v1/log/tree-head");
        const w = await fetch(wBase + "/v1/log/tree-head");
        assert.equal(e.headers.get("cache-control"), "no-cache");
        assert.equal(w.headers.get("cache-control"), "public, max-age=1");
        await Promise.all([e.body?.cancel(), w.body?.cancel()]);
        const q = "/v1/sparql?query=" + encodeURIComponent("ASK { ?s ?p ?o }");
        const ws = await fetch(wBase + q, {
          headers: { accept: "application/sparql-results+json" },
        });
        const body = await ws.json();
        assert.equal(ws.status, 501);
        assert.match(ws.headers.get("content-type") ?? "", /^application\/problem\+json/);
        assert.equal(body.code, "sparql-unavailable");
      });
    } finally {
      await worker.stop();
      await embedded.stop();
      await removeBundle();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
