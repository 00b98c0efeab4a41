// Tests for SPEC §10.1 policy_digest: a hand-assembled preimage (bytes written out here, not by the
// code under test), the three normative properties, and fast-check properties.
import assert from "node:assert/strict";
import fc from "fast-check";
import { blake3, toHex } from "./bytes.ts";
import {
  parsePolicy,
  type Policy,
  policyDigest,
  policyDigestPreimage,
  PolicyError,
} from "./policy_digest.ts";

const A = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const B = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp";

const base: Policy = {
  version: 2,
  rules: [
    {
      name: "no-etc",
      effect: "deny",
      agents: "any",
      action: { kind: "filesystem", path_glob: "/etc/**", modes: ["write"] },
    },
    {
      name: "api",
      effect: "allow",
      agents: { one_of: [B, A] },
      action: {
        kind: "network",
        host_glob: "*.example.com",
        ports: { from: 443, to: 8443 },
        methods: ["GET", "POST"],
      },
    },
    {
      name: "git",
      effect: "allow",
      agents: "any",
      action: { kind: "process", binary_glob: "/usr/bin/git" },
    },
  ],
};

function u64(n: number): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return [...b];
}
const ascii = (s: string) => [...new TextEncoder().encode(s)];
const lp = (s: string) => [...u64(ascii(s).length), ...ascii(s)];

Deno.test("policy_digest: preimage equals the §10.1 layout assembled by hand", () => {
  const want = new Uint8Array([
    ...ascii("jouleclaw.policy/1"),
    ...u64(3),
    // rule 1
    ...lp("no-etc"),
    ...ascii("deny"),
    ...ascii("agents:any"),
    ...ascii("action:filesystem"),
    ...lp("/etc/**"),
    ...u64(1),
    ...lp("write"),
    // rule 2: agent ids sorted (A < B bytewise)
    ...lp("api"),
    ...ascii("allow"),
    ...ascii("agents:one_of"),
    ...u64(2),
    ...lp(A < B ? A : B),
    ...lp(A < B ? B : A),
    ...ascii("action:network"),
    ...lp("*.example.com"),
    0x01,
    0xbb, // 443
    0x20,
    0xfb, // 8443
    ...u64(2),
    ...lp("GET"),
    ...lp("POST"),
    // rule 3
    ...lp("git"),
    ...ascii("allow"),
    ...ascii("agents:any"),
    ...ascii("action:process"),
    ...lp("/usr/bin/git"),
  ]);
  assert.deepEqual(policyDigestPreimage(base), want);
  assert.equal(policyDigest(base), toHex(blake3(want)));
  assert.match(policyDigest(base), /^[0-9a-f]{64}$/);
});

Deno.test("policy_digest: agent list order does not matter (§10.1 MUST share a digest)", () => {
  const swapped = structuredClone(base);
  (swapped.rules[1].agents as { one_of: string[] }).one_of.reverse();
  assert.equal(policyDigest(swapped), policyDigest(base));
});

Deno.test("policy_digest: rule order is included (two orderings are two policies)", () => {
  const reordered = { ...base, rules: [base.rules[1], base.rules[0], base.rules[2]] };
  assert.notEqual(policyDigest(reordered), policyDigest(base));
});

Deno.test("policy_digest: version is excluded", () => {
  assert.equal(policyDigest({ ...base, version: 99 }), policyDigest(base));
  assert.equal(policyDigest({ rules: base.rules }), policyDigest(base));
});

Deno.test("policy_digest: port range hashed as written, not normalised", () => {
  const rev = structuredClone(base);
  const a = rev.rules[1].action as { ports: { from: number; to: number } };
  a.ports = { from: 8443, to: 443 };
  assert.notEqual(policyDigest(rev), policyDigest(base));
});

Deno.test("policy_digest: moving a field boundary changes the digest (length prefixes)", () => {
  const p1: Policy = {
    rules: [{
      name: "ab",
      effect: "allow",
      agents: "any",
      action: { kind: "process", binary_glob: "c" },
    }],
  };
  const p2: Policy = {
    rules: [{
      name: "a",
      effect: "allow",
      agents: "any",
      action: { kind: "process", binary_glob: "bc" },
    }],
  };
  assert.notEqual(policyDigest(p1), policyDigest(p2));
  const m1: Policy = {
    rules: [{
      name: "r",
      effect: "allow",
      agents: "any",
      action: { kind: "filesystem", path_glob: "/x", modes: ["ab", "c"] },
    }],
  };
  const m2: Policy = {
    rules: [{
      name: "r",
      effect: "allow",
      agents: "any",
      action: { kind: "filesystem", path_glob: "/x", modes: ["a", "bc"] },
    }],
  };
  assert.notEqual(policyDigest(m1), policyDigest(m2));
});

Deno.test("policy_digest: property — distinct rule names give distinct preimages; any agent permutation gives one digest", () => {
  const str = fc.string({ maxLength: 12 });
  fc.assert(
    fc.property(str, str, fc.array(str, { maxLength: 5 }), (n1, n2, agents) => {
      const mk = (name: string, ids: string[]): Policy => ({
        rules: [{
          name,
          effect: "allow",
          agents: { one_of: ids },
          action: { kind: "process", binary_glob: "/bin/x" },
        }],
      });
      if (n1 !== n2) {
        assert.notDeepEqual(
          policyDigestPreimage(mk(n1, agents)),
          policyDigestPreimage(mk(n2, agents)),
        );
      }
      const shuffled = [...agents].reverse();
      assert.equal(policyDigest(mk(n1, agents)), policyDigest(mk(n1, shuffled)));
    }),
    { numRuns: 200 },
  );
});

Deno.test("parsePolicy: refuses malformed policies with code bad-policy", () => {
  const bad: unknown[] = [
    null,
    { rules: "x" },
    {
      rules: [{
        name: 1,
        effect: "allow",
        agents: "any",
        action: { kind: "process", binary_glob: "/x" },
      }],
    },
    {
      rules: [{
        name: "r",
        effect: "maybe",
        agents: "any",
        action: { kind: "process", binary_glob: "/x" },
      }],
    },
    {
      rules: [{
        name: "r",
        effect: "allow",
        agents: "some",
        action: { kind: "process", binary_glob: "/x" },
      }],
    },
    { rules: [{ name: "r", effect: "allow", agents: "any", action: { kind: "teleport" } }] },
    {
      rules: [{
        name: "r",
        effect: "allow",
        agents: "any",
        action: { kind: "network", host_glob: "h", ports: { from: 70000, to: 1 }, methods: [] },
      }],
    },
    { version: -1, rules: [] },
  ];
  for (const doc of bad) {
    assert.throws(
      () => parsePolicy(doc),
      (e: unknown) =>
        e instanceof PolicyError && e.code === "bad-policy" &&
        /^Cannot read policy: /.test(e.message),
    );
  }
  assert.deepEqual(parsePolicy(JSON.parse(JSON.stringify(base))), base);
});
