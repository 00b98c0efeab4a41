// issue 27 on the edge deployment, in real local workerd (fixtures/worker.ts): every IRI the
// Worker publishes (an entry's RDF views, the export, the entries collection, /v1/log/policy of
// the root and of a shard, the Hydra entry point, OpenAPI servers) is under JC_PUBLIC_URL whatever
// Host a request carries; without JC_PUBLIC_URL the Worker refuses to serve (500 edge-config);
// a malformed Host never reaches a route (workerd refuses it before the Worker); every answer carries nosniff and every HTML page a CSP
// with frame-ancestors 'none' and X-Frame-Options; percent-encoded aliases are 404; after two
// rotations both frozen shards' 409s name the active shard.
import assert from "node:assert/strict";
import { validEnvelope } from "../../fixtures/app.ts";
import { postEntry, removeBundle, startWorker } from "../../fixtures/worker.ts";
import { type RawAnswer, rawRequest } from "../_raw_http.ts";
import type { EdgeRuntime } from "../../edge/mod.ts";

const PUBLIC = "https://edge.example.test";
const ADMIN = "edge-admin-token-for-tests";

/** Published answers, by path and how they are asked for. */
const PUBLISHED: [string, Record<string, string>][] = [
  ["/v1/log/entries/0", { accept: "application/n-quads" }],
  ["/v1/log/entries/1", { accept: "application/ld+json" }],
  ["/v1/log/entries?start=0&limit=2", { accept: "application/json" }],
  ["/v1/log/export", {}],
  ["/v1/log/policy", {}],
  ["/shards/s1/v1/log/policy", {}],
  ["/", { accept: "application/ld+json" }],
  ["/v1/openapi.json", {}],
];

const FAMILIES: [string, Record<string, string>, string?][] = [
  ["/", { accept: "text/html" }],
  ["/healthz", {}],
  ["/v1/log/tree-head", {}],
  ["/v1/log/key", {}],
  ["/v1/logs", {}],
  ["/v1/log/entries/0", {}],
  ["/log/blake3/checkpoint", {}],
  ["/log/blake3/tile/entries/000.p/2", {}],
  ["/vocab/v1", { accept: "text/html" }],
  ["/assets/app.js", {}],
  ["/verifier.html", {}],
  ["/no/such/path", {}],
  ["/v1/log/tree-head", {}, "DELETE"],
  ["/shards/s1/v1/log/tree-head", {}],
  ["/shards/s9/v1/log/tree-head", {}],
];

function host(rt: EdgeRuntime): string {
  return rt.url.host;
}

Deno.test({
  name: "edge public URL: published IRIs, bad Host, security headers, aliases, two-rotation 409",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-public-url-" });
    let rt: EdgeRuntime | undefined;
    try {
      await t.step("no JC_PUBLIC_URL: the Worker refuses to serve, naming it", async () => {
        rt = await startWorker(state, { JC_PUBLIC_URL: "" });
        const res = await fetch(new URL("/v1/log/tree-head", rt.url));
        const p = await res.json();
        assert.equal(res.status, 500);
        assert.equal(p.code, "edge-config");
        assert.match(p.detail, /JC_PUBLIC_URL/);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        await rt.stop();
      });
      rt = await startWorker(state, { JC_PUBLIC_URL: PUBLIC, JC_ADMIN_TOKEN: ADMIN });
      const base = rt.url;
      for (let i = 0; i < 2; i++) {
        assert.equal((await postEntry(base, validEnvelope(i))).status, 201);
      }
      const rotate = async () => {
        const r = await fetch(new URL("/v1/logs/rotate", base), {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN}` },
        });
        assert.equal(r.status, 200, await r.text());
      };
      await rotate();

      await t.step("a forged Host never changes a published IRI", async () => {
        const ask = async (h: Record<string, string>) => {
          const out: RawAnswer[] = [];
          for (const [path, hs] of PUBLISHED) {
            out.push(await rawRequest(`${base}`, path, { ...hs, ...h }));
          }
          return out;
        };
        const before = await ask({ host: "evil.example" });
        const right = await ask({ host: host(rt!) });
        const after = await ask({ host: "evil.example:8443" });
        PUBLISHED.forEach(([path], i) => {
          assert.equal(right[i].status, 200, `${path}: ${right[i].body}`);
          assert.equal(before[i].body, right[i].body, path);
          assert.equal(after[i].body, right[i].body, path);
          assert.ok(!right[i].body.includes("evil.example"), path);
          assert.ok(!right[i].body.includes(host(rt!)), `${path} publishes the listen address`);
        });
        const body = (p: string) => right[PUBLISHED.findIndex(([q]) => q === p)].body;
        assert.ok(body("/v1/log/entries/0").includes(`<${PUBLIC}/v1/log/entries/0>`));
        assert.ok(body("/v1/log/export").includes(`<${PUBLIC}/v1/log/entries/1>`));
        assert.match(body("/v1/log/policy"), new RegExp(`^log \\S+ ${PUBLIC}/log/sha256$`, "m"));
        assert.match(
          body("/shards/s1/v1/log/policy"),
          new RegExp(`^log \\S+ ${PUBLIC}/shards/s1/log/sha256$`, "m"),
        );
        assert.equal(JSON.parse(body("/"))["@id"], `${PUBLIC}/`);
        assert.deepEqual(JSON.parse(body("/v1/openapi.json")).servers, [{ url: PUBLIC }]);
      });

      await t.step(
        "security headers on every route family; CSP and no framing on HTML",
        async () => {
          for (const [path, h, method] of FAMILIES) {
            const res = await rawRequest(`${base}`, path, { host: host(rt!), ...h }, method);
            assert.ok(res.status < 500, `${path}: ${res.status} ${res.body}`);
            assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
            if ((res.headers.get("content-type") ?? "").startsWith("text/html")) {
              assert.match(
                res.headers.get("content-security-policy") ?? "",
                /frame-ancestors 'none'/,
              );
              assert.equal(res.headers.get("x-frame-options"), "DENY", path);
            }
          }
        },
      );

      await t.step("a malformed Host never reaches the Worker's routes", async () => {
        // workerd refuses a Host that is no URL host before any Worker code runs ("invalid
        // hostname when stringifying URL": its own 500, locally; Cloudflare's front routes by
        // Host and never forwards one). The Worker's own check (edge/worker/worker.ts, 400 bad-host) is
        // the embedded default's, for a runtime that would let one through. Nothing is served.
        for (const bad of ["a^b", "a|b", "x/v1", "a{b}", 'a"b', "a?b"]) {
          for (const [path, h, method] of FAMILIES) {
            const res = await rawRequest(`${base}`, path, { ...h, host: bad }, method);
            assert.ok(res.status >= 400, `Host ${bad}: ${path}: ${res.status} ${res.body}`);
            if (res.headers.get("content-type") === "application/problem+json") {
              assert.equal(JSON.parse(res.body).code, "bad-host", `${bad} ${path}`);
            } else {
              assert.equal(res.body.trim(), "Internal Server Error", `${bad} ${path}`);
              // workerd writes its log a few ms after its answer: wait for the line (≤ 2 s)
              for (
                let i = 0;
                i < 40 && !/invalid hostname when stringifying URL/.test(rt!.logTail());
                i++
              ) {
                await new Promise((r) => setTimeout(r, 50));
              }
              assert.match(rt!.logTail(), /invalid hostname when stringifying URL/);
            }
          }
        }
      });

      await t.step("percent-encoded aliases are 404", async () => {
        for (
          const path of [
            "/v1/%6Cogs",
            "/log/blake3/%63heckpoint",
            "/v1/log/entries/%31",
            "/v1/log/tree-%68ead",
            "/shards/s1/v1/log/tree-%68ead",
            "/shards/%731/v1/log/tree-head",
          ]
        ) {
          const res = await rawRequest(`${base}`, path, { host: host(rt!) });
          assert.equal(res.status, 404, `${path}: ${res.status} ${res.body}`);
          assert.equal((await fetch(new URL(decodeURIComponent(path), base))).status, 200, path);
        }
      });

      await t.step("after two rotations both frozen shards' 409s name the active one", async () => {
        await rotate();
        await new Promise((r) => setTimeout(r, 1100)); // past the Worker's directory cache
        for (const prefix of ["/", "/shards/s1"]) {
          const a = await postEntry(base, validEnvelope(7), prefix);
          assert.equal(a.status, 409, `${prefix}: ${JSON.stringify(a.body)}`);
          assert.equal(a.body.code, "shard-frozen");
          assert.deepEqual(a.body.active, { id: "s2", prefix: "/shards/s2" }, prefix);
        }
        assert.equal((await postEntry(base, validEnvelope(7), "/shards/s2")).status, 201);
      });
    } finally {
      await rt?.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
