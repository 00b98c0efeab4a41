// issue 27 over real HTTP against the real service (fixtures/service.ts): every IRI and URL the
// service publishes (SPARQL graph IRIs, entry RDF views, the export, the entries collection,
// /v1/log/policy, the Hydra entry point and ApiDocumentation, OpenAPI servers, a shard's policy)
// is under the configured public URL whatever Host a request carries — the first SPARQL query
// with a forged Host included — and identical to the answer with the right Host, before and
// after; a malformed Host is 400 `bad-host` on every route (never a 500); every route family
// answers nosniff; every HTML page has a CSP with frame-ancestors 'none' and X-Frame-Options;
// percent-encoded aliases of a path are 404; after two rotations a frozen shard's 409 names the
// active shard. Raw TCP requests (tests/_raw_http.ts): fetch cannot send a Host of its own.
import assert from "node:assert/strict";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { type RawAnswer, rawRequest } from "../_raw_http.ts";
import { type Service, startService } from "../../fixtures/service.ts";

const PUBLIC = "https://log.example.test/jc";
const TOKEN = "test-admin-token-0123456789";
const S = steward(27);
const opts = { sanitizeResources: false, sanitizeOps: false };

const GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g";

/** What a client may be told, by path, and how to ask it (each answer must not depend on Host). */
const PUBLISHED: [string, Record<string, string>][] = [
  [`/v1/sparql?query=${encodeURIComponent(GRAPHS)}`, {
    accept: "application/sparql-results+json",
  }],
  ["/v1/sparql", { accept: "text/turtle" }],
  ["/v1/log/entries/0", { accept: "application/n-quads" }],
  ["/v1/log/entries/1", { accept: "application/ld+json" }],
  ["/v1/log/entries/2", { accept: "text/turtle" }],
  ["/v1/log/entries?start=0&limit=2", { accept: "application/json" }],
  ["/v1/log/export", {}],
  ["/v1/log/policy", {}],
  ["/", { accept: "application/ld+json" }],
  ["/v1/api-doc", {}],
  ["/v1/openapi.json", {}],
];

async function get(
  svc: Service,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const h = { host: new URL(svc.url).host, ...headers };
  for (let tries = 0;; tries++) {
    const res = await rawRequest(svc.url, path, h);
    // the SPARQL store loads the log in the background on its first query (503 meanwhile)
    if (res.status !== 503 || !res.body.includes("sparql-loading") || tries > 100) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function appendAt(url: string, prefix: string, n: number): Promise<Response> {
  return await fetch(`${url}${prefix === "/" ? "" : prefix}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: validEnvelope(n, S),
  });
}

/** Every absolute http(s) URL in `text`. */
function urlsIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s"<>\\]+/g)].map((m) => m[0]);
}

Deno.test({
  ...opts,
  name: "public URL: a forged Host never changes a published IRI, before or after the right one",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-public-url-" });
    const svc = await startService({ DATA_DIR: dataDir, JC_PUBLIC_URL: PUBLIC });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await appendAt(svc.url, "/", i)).status, 201);
      const forged = { host: "evil.example:666" };
      // The forged Host comes first: the SPARQL store is loaded by this very query.
      const before: RawAnswer[] = [];
      for (const [path, h] of PUBLISHED) before.push(await get(svc, path, { ...h, ...forged }));
      const right: RawAnswer[] = [];
      for (const [path, h] of PUBLISHED) right.push(await get(svc, path, h));
      const after: RawAnswer[] = [];
      for (const [path, h] of PUBLISHED) after.push(await get(svc, path, { ...h, ...forged }));
      PUBLISHED.forEach(([path], i) => {
        assert.equal(right[i].status, 200, `${path}: ${right[i].body}`);
        assert.equal(before[i].body, right[i].body, `${path}: forged Host before`);
        assert.equal(after[i].body, right[i].body, `${path}: forged Host after`);
        assert.ok(!right[i].body.includes("evil.example"), path);
        const urls = urlsIn(right[i].body).filter((u) =>
          !/w3\.org|schema\.org|jouleclaw\.org/.test(u)
        );
        for (const u of urls) {
          if (u.startsWith("http://127.0.0.1")) assert.fail(`${path}: publishes ${u}`);
        }
      });
      const body = (p: string) => right[PUBLISHED.findIndex(([q]) => q === p)].body;
      const graphs = JSON.parse(body(PUBLISHED[0][0])).results.bindings.map(
        (b: { g: { value: string } }) => b.g.value,
      );
      assert.deepEqual(graphs, [0, 1, 2].map((i) => `${PUBLIC}/v1/log/entries/${i}`));
      assert.ok(body("/v1/sparql").includes(`<${PUBLIC}/v1/sparql>`));
      assert.ok(body("/v1/log/entries/0").includes(`<${PUBLIC}/v1/log/entries/0>`));
      assert.ok(body("/v1/log/entries/1").includes(`${PUBLIC}/v1/log/entries/1`));
      assert.ok(body("/v1/log/entries/2").includes(`${PUBLIC}/v1/log/entries/2`));
      const page = JSON.parse(body("/v1/log/entries?start=0&limit=2"));
      assert.equal(page["@id"], `${PUBLIC}/v1/log/entries`);
      assert.equal(page["hydra:member"][0]["@id"], `${PUBLIC}/v1/log/entries/0`);
      assert.ok(body("/v1/log/export").includes(`<${PUBLIC}/v1/log/entries/2>`));
      assert.match(body("/v1/log/policy"), new RegExp(`^log \\S+ ${PUBLIC}/log/sha256$`, "m"));
      assert.equal(JSON.parse(body("/"))["@id"], `${PUBLIC}/`);
      assert.equal(JSON.parse(body("/v1/api-doc"))["@id"], `${PUBLIC}/v1/api-doc`);
      assert.deepEqual(JSON.parse(body("/v1/openapi.json")).servers, [{ url: PUBLIC }]);
    } finally {
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name: "public URL: the default is the listen address; a malformed public_url stops the start",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-public-url-" });
    try {
      const svc = await startService({ DATA_DIR: dataDir });
      try {
        const res = await rawRequest(svc.url, "/v1/log/policy", { host: "evil.example" });
        assert.match(res.body, new RegExp(`^log \\S+ ${svc.url}/log/sha256$`, "m"));
      } finally {
        await svc.stop();
      }
      for (const bad of ["ftp://x.example", "https://x.example/?q", "https://x.example/#f", "x"]) {
        await assert.rejects(
          () => startService({ DATA_DIR: dataDir, JC_PUBLIC_URL: bad }),
          /public_url/,
          bad,
        );
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

/** One path of each route family (GET unless said), for the header checks. */
const FAMILIES: [string, Record<string, string>, string?][] = [
  ["/", { accept: "text/html" }],
  ["/", { accept: "application/ld+json" }],
  ["/healthz", {}],
  ["/metrics", {}],
  ["/v1/api-doc", {}],
  ["/v1/openapi.json", {}],
  ["/v1/log/tree-head", {}],
  ["/v1/log/key", {}],
  ["/v1/log/policy", {}],
  ["/v1/logs", {}],
  ["/v1/log/entries/0", {}],
  ["/v1/log/entries/0", { accept: "application/cose" }],
  ["/v1/log/entries", {}],
  ["/v1/log/export", {}],
  ["/log/blake3/checkpoint", {}],
  ["/log/sha256/tile/0/000.p/1", {}],
  ["/log/blake3/tile/entries/000.p/1", {}],
  ["/v1/sparql", {}],
  ["/vocab/v1", { accept: "text/html" }],
  ["/vocab/v1.ttl", {}],
  ["/assets/app.js", {}],
  ["/assets/page.css", {}],
  ["/verifier.html", {}],
  ["/no/such/path", {}], // 404 problem
  ["/v1/log/tree-head", {}, "DELETE"], // 405 problem
  ["/v1/log/entries", { "content-type": "text/plain" }, "POST"], // 415 problem
  ["/v1/log/tree-head", { origin: "https://a.example" }, "OPTIONS"],
  ["/shards/s1/v1/log/tree-head", {}],
];

const HTML_PAGES: [string, Record<string, string>][] = [
  ["/", { accept: "text/html" }],
  ["/vocab/v1", { accept: "text/html" }],
  ["/verifier.html", {}],
];

Deno.test({
  ...opts,
  name: "security headers and Host: nosniff everywhere, CSP and no framing on HTML, bad Host 400",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-public-url-" });
    const svc = await startService({ DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN });
    try {
      assert.equal((await appendAt(svc.url, "/", 0)).status, 201);
      const rot = await fetch(`${svc.url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200, await rot.text());
      for (const [path, h, method] of FAMILIES) {
        const res = await rawRequest(svc.url, path, { host: new URL(svc.url).host, ...h }, method);
        assert.ok(res.status < 500, `${method ?? "GET"} ${path}: ${res.status}`);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${path} ${res.status}`);
      }
      for (const [path, h] of HTML_PAGES) {
        const res = await get(svc, path, h);
        assert.equal(res.status, 200, path);
        assert.match(res.headers.get("content-type") ?? "", /^text\/html/, path);
        const csp = res.headers.get("content-security-policy") ?? "";
        assert.match(csp, /default-src 'none'/, path);
        assert.match(csp, /frame-ancestors 'none'/, path);
        assert.equal(res.headers.get("x-frame-options"), "DENY", path);
      }
      // RFC 3986 host: `^ < > |`, a space, a slash or a query in a Host are not a host
      for (const host of ["a^b", "a<b>", "a|b", "a b", "x/v1", "a?b", "[zz]", "a:port"]) {
        for (const [path, h, method] of FAMILIES) {
          const res = await rawRequest(svc.url, path, { ...h, host }, method);
          assert.equal(res.status, 400, `Host ${host}: ${method ?? "GET"} ${path}: ${res.body}`);
          assert.equal(JSON.parse(res.body).code, "bad-host");
          assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        }
      }
      // …while every valid form is served
      for (const host of ["log.example.test", "10.0.0.1:8080", "[::1]:8080", "[v1.x]", "a%41"]) {
        const res = await rawRequest(svc.url, "/v1/log/tree-head", { host });
        assert.equal(res.status, 200, `Host ${host}: ${res.body}`);
      }
      assert.equal((await rawRequest(svc.url, "/healthz", {})).status, 200, "no Host at all");
      assert.ok(!svc.stderr().includes("Cannot answer"), svc.stderr());
    } finally {
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name:
    "one canonical path: percent-encoded aliases 404; a frozen shard's 409 names the active one",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-public-url-" });
    const svc = await startService({ DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN });
    try {
      for (let i = 0; i < 2; i++) assert.equal((await appendAt(svc.url, "/", i)).status, 201);
      for (
        const path of [
          "/log/blake3/%63heckpoint",
          "/log/%62lake3/checkpoint",
          "/v1/log/entries/%30",
          "/v1/log/entries/%31",
          "/v1/log/tree-%68ead",
          "/v1/log/tree%2Dhead",
          "/v1%2Flog/tree-head",
          "/v1/log/%6Bey",
          "/%76ocab/v1",
          "/log/blake3/tile/entries/%30%30%30.p/1",
        ]
      ) {
        const res = await get(svc, path);
        assert.equal(res.status, 404, `${path}: ${res.status} ${res.body}`);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        const canonical = decodeURIComponent(path);
        if (!canonical.includes("%") && !path.includes("%2F")) {
          assert.equal((await get(svc, canonical)).status, 200, canonical);
        }
      }
      // two rotations: s0 and s1 frozen, s2 active; both name s2
      for (let i = 0; i < 2; i++) {
        const r = await fetch(`${svc.url}/v1/logs/rotate`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        assert.equal(r.status, 200, await r.text());
      }
      for (const prefix of ["/", "/shards/s1"]) {
        const res = await appendAt(svc.url, prefix, 3);
        assert.equal(res.status, 409, prefix);
        const p = await res.json();
        assert.equal(p.code, "shard-frozen");
        assert.deepEqual(p.active, { id: "s2", prefix: "/shards/s2" }, prefix);
      }
      assert.equal((await appendAt(svc.url, "/shards/s2", 3)).status, 201);
      // /shards/s2's own encoded alias is no resource either
      assert.equal((await get(svc, "/shards/s2/v1/log/tree-%68ead")).status, 404);
    } finally {
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
