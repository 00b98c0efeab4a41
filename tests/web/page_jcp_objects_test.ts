// JCP objects on the page and at POST /v1/verify (issue 25; docs/GRANTS.md): a key event, a grant
// or a revocation is a log entry but no receipt. The explorer's list names its kind and main
// fields (not an empty schema cell); opening one (`/?index=N`) says it is a JCP object and which
// route judges it, with the code POST /v1/verify answers it; and POST /v1/verify answers 422 with
// that stable code, its `kind` and `route`, not a report of "not a receipt". Real service, real
// Chromium; grants and revocations by conformance/python/jcgrants, key events by jckeys.
import assert from "node:assert/strict";
import { launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";
import { postTo, pyKeys } from "../e2e/_keys_http.ts";
import { jcgrants } from "../e2e/_grants_python.ts";

const ROUTES: Record<string, [string, string, string]> = {
  "key-event": ["/v1/keys/events", "key-events-route-only", "Key event (JCP §2.1)"],
  grant: ["/v1/grants", "grants-route-only", "Grant (JCP §4)"],
  revocation: ["/v1/revocations", "revocations-route-only", "Revocation (JCP §4.3)"],
};

Deno.test({
  name: "page: a JCP object shows its kind, fields and route; POST /v1/verify names the route",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-page-jcp-" });
    const svc = await startService({ DATA_DIR: dataDir });
    const browser = await launchChromium();
    try {
      const run = await jcgrants(svc.url);
      assert.equal(run.code, 0, run.text + run.stderr);
      const doc = await pyKeys(["lifecycle", "5"]) as { steps: { name: string; hex: string }[] };
      const inception = doc.steps.find((s) => s.name === "inception")!.hex;
      assert.equal((await postTo(svc.url, "/v1/keys/events", inception)).status, 201);

      // the newest entries, as the explorer lists them, and one entry of each kind
      const head = await (await fetch(`${svc.url}/v1/log/tree-head`)).json();
      const start = Math.max(0, head.size - 20);
      const list = await (await fetch(`${svc.url}/v1/log/entries?start=${start}&limit=20`)).json();
      const members = list["hydra:member"] as Record<string, unknown>[];
      const byKind = new Map<string, Record<string, unknown>>();
      for (const m of members) if (typeof m.kind === "string") byKind.set(m.kind, m);
      const all = await (await fetch(`${svc.url}/v1/log/entries?start=0&limit=${head.size}`))
        .json();
      for (const m of all["hydra:member"] as Record<string, unknown>[]) {
        if (typeof m.kind === "string" && !byKind.has(m.kind)) byKind.set(m.kind, m);
      }
      assert.deepEqual([...byKind.keys()].sort(), ["grant", "key-event", "revocation"]);

      // over HTTP: POST /v1/verify of each kind is 422 with the code naming its route
      for (const [kind, m] of byKind) {
        const r = await postTo(svc.url, "/v1/verify", m.envelope as string);
        assert.equal(r.status, 422, JSON.stringify(r.body));
        assert.equal(r.body.code, ROUTES[kind][1]);
        assert.equal(r.body.kind, kind);
        assert.equal(r.body.route, ROUTES[kind][0]);
        assert.match(String(r.body.detail), /not a receipt/);
      }

      // the explorer: every JCP object among the newest shows its kind and main fields
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${svc.url}/?view=explore`);
      await page.waitForSelector("table[data-field=newest]", { state: "attached" });
      const kinds = await page.$$eval(
        "table[data-field=newest] [data-field=kind]",
        (ks) => ks.map((k) => k.textContent),
      );
      const want = members.filter((m) => typeof m.kind === "string").map((m) =>
        ROUTES[m.kind as string][2]
      ).reverse();
      assert.ok(want.length > 0);
      assert.deepEqual(kinds, want);
      const fieldNames = await page.$$eval(
        "table[data-field=newest] .kind-field",
        (fs) => fs.map((f) => f.getAttribute("data-field")),
      );
      const newestKinds = new Set(members.map((m) => m.kind));
      if (newestKinds.has("key-event")) assert.ok(fieldNames.includes("identity"), `${fieldNames}`);
      if (newestKinds.has("grant")) assert.ok(fieldNames.includes("grant_id"), `${fieldNames}`);
      if (newestKinds.has("revocation")) {
        assert.ok(fieldNames.includes("revoked_by"), `${fieldNames}`);
      }

      // opening each kind: a JCP object, the route that judges it and the code, its fields
      for (const [kind, m] of byKind) {
        await page.goto(`${svc.url}/?index=${m.index}`);
        await page.waitForSelector("#result[data-verdict=jcp-object]", { state: "attached" });
        const route = await page.textContent("[data-field=jcp-route]") ?? "";
        assert.ok(route.includes(`POST ${ROUTES[kind][0]}`), route);
        assert.equal(
          await page.textContent("[data-field=jcp-route] [data-field=code]"),
          ROUTES[kind][1],
        );
        const title = await page.textContent("#result h2") ?? "";
        assert.ok(title.includes(ROUTES[kind][2]) && title.includes("not a receipt"), title);
        const dts = await page.$$eval(
          "[data-field=jcp-fields] dt",
          (d) => d.map((x) => x.textContent),
        );
        assert.ok(dts.length >= 2, `${kind}: ${dts}`);
      }
    } finally {
      await browser.close();
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
