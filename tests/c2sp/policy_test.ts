// C2SP tlog-policy: the file grammar (every refusal names its line) and the quorum rule, with the
// spec's own two-level example.
import assert from "node:assert/strict";
import fc from "fast-check";
import { parsePolicy, PolicyFileError, quorumMet } from "../../log/c2sp/policy.ts";

const enc = (s: string) => new TextEncoder().encode(s);
// Distinct Ed25519-shaped vkeys (type 0x04, 32 bytes of key) for witnesses named n.
function vk(name: string, seed: number, type = 4): string {
  const b = new Uint8Array(33);
  b[0] = type;
  b.fill(seed, 1);
  return `${name}+0a0b0c0d+${btoa(String.fromCharCode(...b))}`;
}

const EXAMPLE = `
# the spec's example, with keys
log ${vk("example.com/log", 99, 1)}

witness X1 ${vk("x1.example", 1)}
witness X2 ${vk("x2.example", 2)}
witness X3 ${vk("x3.example", 3)}
group X-witnesses 2 X1 X2 X3

witness Y1 ${vk("y1.example", 4)}
witness Y2 ${vk("y2.example", 5)} https://y2.example/
\twitness Y3 ${vk("y3.example", 6)}
group Y-witnesses any Y1 Y2 Y3

group X-and-Y all X-witnesses Y-witnesses
quorum X-and-Y
`;

Deno.test("tlog-policy: the spec's example parses and its quorum needs 2 X and 1 Y", () => {
  const p = parsePolicy(enc(EXAMPLE));
  assert.equal(p.logs.length, 1);
  assert.equal(p.witnesses.length, 6);
  assert.equal(p.witnesses[4].url, "https://y2.example/");
  assert.deepEqual(p.groups.map((g) => [g.name, g.k]), [
    ["X-witnesses", 2],
    ["Y-witnesses", 1],
    ["X-and-Y", 2],
  ]);
  assert.equal(quorumMet(p, new Set(["X1", "X2", "Y3"])), true);
  assert.equal(quorumMet(p, new Set(["X1", "Y1", "Y2", "Y3"])), false);
  assert.equal(quorumMet(p, new Set(["X1", "X2", "X3"])), false);
  assert.equal(quorumMet(p, new Set()), false);
});

Deno.test("tlog-policy: quorum none and a single witness", () => {
  assert.equal(quorumMet(parsePolicy(enc("quorum none\n")), new Set()), true);
  const p = parsePolicy(enc(`witness W ${vk("w", 1)}\nquorum W`));
  assert.equal(quorumMet(p, new Set(["W"])), true);
  assert.equal(quorumMet(p, new Set(["V"])), false);
});

Deno.test("tlog-policy: k-of-n agrees with counting, for every subset", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 6 }).chain((n) =>
      fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n }), fc.subarray([0, 1, 2, 3, 4, 5]))
    ),
    ([n, k, chosen]) => {
      let text = "";
      for (let i = 0; i < n; i++) text += `witness W${i} ${vk(`w${i}`, i + 1)}\n`;
      text += `group G ${k} ${Array.from({ length: n }, (_, i) => `W${i}`).join(" ")}\nquorum G\n`;
      const p = parsePolicy(enc(text));
      const set = new Set(chosen.filter((i) => i < n).map((i) => `W${i}`));
      return quorumMet(p, set) === (set.size >= k);
    },
  ));
});

Deno.test("tlog-policy: malformed files are refused with the line", () => {
  const w1 = `witness A ${vk("a", 1)}\n`;
  const cases: [string, number, RegExp][] = [
    ["", 0, /no quorum/],
    ["quorum none\nquorum none\n", 2, /second quorum/],
    ["quorum A\n", 1, /not defined/],
    [`quorum A\n${w1}`, 1, /not defined/],
    [`${w1}witness A ${vk("b", 2)}\nquorum A\n`, 2, /already defined/],
    [`${w1}witness B ${vk("b", 1)}\nquorum A\n`, 2, /duplicates the key/],
    [`${w1}group G 2 A\nquorum G\n`, 2, /threshold/],
    [`${w1}group G 0 A\nquorum G\n`, 2, /threshold/],
    [`${w1}group G 01 A\nquorum G\n`, 2, /threshold/],
    [`${w1}group G any A A\nquorum G\n`, 2, /twice/],
    [`${w1}group G any none\nquorum G\n`, 2, /none/],
    [`${w1}group G any\nquorum G\n`, 2, /expected group/],
    [`witness none ${vk("a", 1)}\nquorum none\n`, 1, /predefined/],
    [`${w1}frobnicate\nquorum A\n`, 2, /unknown keyword/],
    [`witness A notavkey\nquorum A\n`, 1, /not a vkey/],
    [`${w1}quorum A\r\n`, 2, /control character/],
    [`log ${vk("l", 9, 1)}\nlog ${vk("m", 9, 1)}\nquorum none\n`, 2, /duplicates/],
  ];
  for (const [text, line, re] of cases) {
    assert.throws(() => parsePolicy(enc(text)), (e: unknown) => {
      assert.ok(e instanceof PolicyFileError, `${JSON.stringify(text)}: ${e}`);
      assert.equal(e.line, line, `${JSON.stringify(text)}: ${e.message}`);
      assert.match(e.message, re);
      return true;
    });
  }
});

Deno.test("tlog-policy: non-ASCII names are opaque octets (K is not the Kelvin sign)", () => {
  const p = parsePolicy(enc(`witness \u212a ${vk("k", 1)}\nwitness K ${vk("k2", 2)}\nquorum K\n`));
  assert.equal(p.witnesses.length, 2);
  assert.notEqual(p.witnesses[0].name, "K");
});
