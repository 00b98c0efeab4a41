// verify/jcp_grant.ts (issue 25): a grant's and a revocation's field types, and a delegated
// grant's attenuation against its parent, one rule at a time (JCP §4.1, §4.4, §4.8, §4.9).
import assert from "node:assert/strict";
import {
  attenuationProblem,
  type CborMap,
  contentIdBytes,
  didKeyFromPublicKey,
  ed25519PublicKey,
  grantFieldProblem,
  revocationFieldProblem,
} from "../../verify/mod.ts";

const did = (n: number) => didKeyFromPublicKey(ed25519PublicKey(new Uint8Array(32).fill(n)));
const A = did(1), B = did(2), C = did(3);
const RES = "ab".repeat(32);

function g(fields: Record<string, unknown>): CborMap {
  return new Map(Object.entries({
    issuer: A,
    subject: B,
    capability: new Map<string, unknown>([["resource", RES], ["actions", ["read", "write"]]]),
    budget_uj: 1000,
    expiry: 100,
    nonce: new Uint8Array(16),
    ...fields,
  })) as CborMap;
}
const parent = g({
  delegate_depth: 2,
  budget_funds: new Map<string, unknown>([["currency", "EUR"], ["minor", 50]]),
  caveats: [new Map([["NotAfter", 90]])],
});
const child = (more: Record<string, unknown>) =>
  g({
    issuer: B,
    subject: C,
    delegate_depth: 1,
    budget_funds: new Map<string, unknown>([["currency", "EUR"], ["minor", 50]]),
    caveats: [new Map([["NotAfter", 90]]), new Map([["MaxCostUj", 5]])],
    ...more,
  });

Deno.test("jcp grant: a narrowing child passes; each amplification is named", () => {
  assert.equal(attenuationProblem(child({}), parent), undefined);
  const cases: [Record<string, unknown>, string][] = [
    [{ issuer: C }, "grant-chain-broken"],
    [{ budget_uj: 1001 }, "grant-attenuation-violation"],
    [{ expiry: 0 }, "grant-attenuation-violation"],
    [{ expiry: 101 }, "grant-attenuation-violation"],
    [{ delegate_depth: 2 }, "grant-attenuation-violation"],
    [{ delegate_depth: undefined }, "grant-attenuation-violation"],
    [{ budget_funds: undefined }, "grant-attenuation-violation"],
    [
      { budget_funds: new Map<string, unknown>([["currency", "USD"], ["minor", 1]]) },
      "grant-attenuation-violation",
    ],
    [
      { budget_funds: new Map<string, unknown>([["currency", "EUR"], ["minor", 51]]) },
      "grant-attenuation-violation",
    ],
    [{ caveats: [new Map([["MaxCostUj", 5]])] }, "grant-attenuation-violation"],
    [
      {
        capability: new Map<string, unknown>([["resource", RES], ["actions", ["delete"]]]),
      },
      "grant-attenuation-violation",
    ],
    [
      {
        capability: new Map<string, unknown>([["resource", "cd".repeat(32)], ["actions", []]]),
      },
      "grant-attenuation-violation",
    ],
  ];
  for (const [more, code] of cases) {
    const c = child(more);
    for (const [k, v] of Object.entries(more)) if (v === undefined) c.delete(k);
    assert.equal(attenuationProblem(c, parent)?.code, code, JSON.stringify(Object.keys(more)));
  }
  // leaf-only parent; an unbounded parent lets any depth (and none) through
  const leaf = g({ delegate_depth: 0 });
  assert.equal(attenuationProblem(child({}), leaf)?.code, "grant-delegation-forbidden");
  const open = g({});
  const c = child({});
  c.delete("delegate_depth");
  assert.equal(attenuationProblem(c, open), undefined);
  // a content id as 32 raw bytes names the same resource as its hex
  const raw = child({
    capability: new Map<string, unknown>([["resource", contentIdBytes(RES)], ["actions", []]]),
  });
  assert.equal(attenuationProblem(raw, parent), undefined);
});

Deno.test("jcp grant: field types of grants and revocations", () => {
  assert.equal(grantFieldProblem(parent), undefined);
  for (
    const [k, v] of [
      ["issuer", "did:web:x"],
      ["budget_uj", -1],
      ["expiry", "soon"],
      ["nonce", new Uint8Array(15)],
      ["parent", "AB".repeat(32)],
      ["delegate_depth", "1"],
      ["capability", new Map([["resource", RES]])],
      ["caveats", new Map()],
    ] as [string, unknown][]
  ) {
    assert.ok(grantFieldProblem(g({ [k]: v })), k);
  }
  const rev = (m: Record<string, unknown>) =>
    new Map(Object.entries({ grant_id: RES, revoked_by: A, nonce: new Uint8Array(16), ...m }));
  assert.equal(revocationFieldProblem(rev({}) as CborMap), undefined);
  assert.ok(revocationFieldProblem(rev({ grant_id: "xyz" }) as CborMap));
  assert.ok(revocationFieldProblem(rev({ revoked_by: "nobody" }) as CborMap));
  assert.ok(revocationFieldProblem(rev({ nonce: new Uint8Array(17) }) as CborMap));
});
