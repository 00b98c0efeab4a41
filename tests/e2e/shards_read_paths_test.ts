// Issue 28, after a shard rotation the whole service follows the directory (docs/SHARDS.md
// "Service-level read paths"): against the real service (`deno task start`, SQLite) rotated by
// command, with an entry in s0 and two in s1 — `/healthz` and `/metrics` report both shards and
// their sum; the operator's default policy names both shards' logs and `client monitor --policy`
// with it (or with the one fetched before the rotation) exits 0; `client prove --index N` without
// `--shard` proves in the active shard; SPARQL holds every shard's entries under their
// shard-qualified IRIs; each shard's export names its entries so.
import assert from "node:assert/strict";
import { c2sp } from "../../log/mod.ts";
import { openDirectory } from "../../log/shards/mod.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { ROOT, type Service, startService } from "../../fixtures/service.ts";

const TOKEN = "test-admin-token-0123456789";
const S = steward(11);
const opts = { sanitizeResources: false, sanitizeOps: false };

async function append(url: string, n: number): Promise<{ index: number; leaf_hash: string }> {
  const res = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: validEnvelope(n, S),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

async function client(args: string[], stateHome: string) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${ROOT}client/main.ts`, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", XDG_STATE_HOME: stateHome },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  const stdout = dec.decode(o.stdout), stderr = dec.decode(o.stderr);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch { /* not JSON */ }
  return { code: o.code, json, what: `exit ${o.code}\n${stderr}${stdout}` };
}

/** A SELECT's bindings of `?g`, waiting out 503 sparql-loading. */
async function graphs(url: string): Promise<string[]> {
  const q = "SELECT ?g WHERE { GRAPH ?g { ?g <https://jouleclaw.transaction.science/vocab/v1#" +
    "logIndex> ?i } } ORDER BY ?g";
  const until = Date.now() + 30_000;
  for (;;) {
    const r = await fetch(`${url}/v1/sparql?query=${encodeURIComponent(q)}`, {
      headers: { accept: "application/sparql-results+json" },
    });
    if (r.status === 200) {
      const doc = await r.json();
      const gs = doc.results.bindings.map((b: { g: { value: string } }) => b.g.value);
      if (gs.length >= 3 || Date.now() > until) return gs;
    } else {
      assert.equal(r.status, 503, await r.text());
      assert.ok(Date.now() < until, "SPARQL still loading");
    }
    await new Promise((res) => setTimeout(res, 200));
  }
}

Deno.test({
  ...opts,
  name: "shards: healthz, metrics, policy, monitor, prove, SPARQL and export follow a rotation",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-shards-read-" });
    const home = await Deno.makeTempDir({ prefix: "jc-shards-read-home-" });
    let svc: Service | undefined;
    try {
      svc = await startService({ DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN });
      const url = svc.url;
      await append(url, 1);
      const before = await (await fetch(`${url}/v1/log/policy`)).text();
      await Deno.writeTextFile(`${home}/before.policy`, before);
      const rot = await fetch(`${url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200, await rot.clone().text());
      const key = await (await fetch(`${url}/v1/log/key`)).json();
      const d = await openDirectory((await rot.json()).note, key.operator_vkey);
      const s1 = `${url}/shards/s1`;
      assert.equal((await append(s1, 2)).index, 0);
      assert.equal((await append(s1, 3)).index, 1);

      // /healthz: the sum and each shard's size.
      const h = await (await fetch(`${url}/healthz`)).json();
      assert.equal(h.tree_size, 3, JSON.stringify(h));
      assert.deepEqual(h.shards, [{ id: "s0", tree_size: 1 }, { id: "s1", tree_size: 2 }]);
      // /metrics: the sum and a gauge per shard.
      const m = await (await fetch(`${url}/metrics`)).text();
      assert.match(m, /^jc_tree_size 3$/m);
      assert.match(m, /^jc_shard_tree_size\{shard="s0"\} 1$/m);
      assert.match(m, /^jc_shard_tree_size\{shard="s1"\} 2$/m);

      // The operator's default policy names every shard's SHA-256 log, at every prefix.
      const text = await (await fetch(`${url}/v1/log/policy`)).text();
      assert.equal(await (await fetch(`${s1}/v1/log/policy`)).text(), text);
      const policy = c2sp.parsePolicy(new TextEncoder().encode(text));
      assert.deepEqual(
        policy.logs.map((l) => [l.vkey, l.url]),
        d.shards.map((
          s,
        ) => [s.vkeys.sha256, `${url}${s.prefix === "/" ? "" : s.prefix}/log/sha256`]),
      );
      assert.equal(policy.quorum, "none");
      await Deno.writeTextFile(`${home}/after.policy`, text);

      // client monitor --policy with the operator's default policy: no false alarm, whether
      // fetched after the rotation or before it (a later shard is held to its quorum).
      for (const f of ["after", "before"]) {
        const mon = await client(
          ["monitor", url, "--once", "--policy", `${home}/${f}.policy`],
          home,
        );
        assert.equal(mon.code, 0, `${f}: ${mon.what}`);
      }

      // client prove --index N without --shard: the active shard's entry N.
      const p = await client(["prove", "--index", "1", "--url", url], home);
      assert.equal(p.code, 0, p.what);
      assert.equal(p.json.shard, "s1");
      assert.equal(p.json.index ?? (p.json.views as { index?: number })?.index ?? 1, 1);

      // SPARQL: every shard's entries, each under its shard-qualified IRI.
      assert.deepEqual(await graphs(url), [
        `${url}/shards/s1/v1/log/entries/0`,
        `${url}/shards/s1/v1/log/entries/1`,
        `${url}/v1/log/entries/0`,
      ]);

      // The export: each shard's own entries, under the same IRIs.
      const e1 = await (await fetch(`${s1}/v1/log/export`)).text();
      assert.ok(e1.includes(`<${url}/shards/s1/v1/log/entries/1>`), e1.slice(0, 400));
      assert.ok(!e1.includes(`<${url}/v1/log/entries/`));
      // blank nodes are the shard's own (one store with both shards merges none of them)
      const bnodes = e1.match(/_:[A-Za-z0-9_]+/g) ?? [];
      assert.ok(bnodes.length > 0 && bnodes.every((b) => b.startsWith("_:s1_e")), bnodes.join(" "));
      const e0 = await (await fetch(`${url}/v1/log/export`)).text();
      assert.ok(e0.includes(`<${url}/v1/log/entries/0>`));
      assert.ok(!e0.includes("/shards/"));
    } finally {
      await svc?.stop();
      await Deno.remove(dataDir, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});
