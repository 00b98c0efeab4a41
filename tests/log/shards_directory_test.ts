// log/shards/ (docs/SHARDS.md): the signed directory's sign → open round trip, every rule of
// `checkDirectory` refused with its code, any single-byte change of a signed note refused, and the
// succession rules a monitor checks between two directories.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checkDirectory,
  type Directory,
  DirectoryError,
  directorySuccession,
  formatDirectory,
  openDirectory,
  operatorVkey,
  type ShardEntry,
  shardLogName,
  shardPrefix,
  shardUrl,
  signDirectory,
} from "../../log/shards/mod.ts";
import { c2sp } from "../../log/mod.ts";
import { didKeyFromPublicKey, ed25519PublicKey } from "../../verify/mod.ts";

const BASE = "log.example.org/jc";
const secret = (seed: number) => new Uint8Array(32).map((_, i) => (seed * 31 + i * 7 + 1) & 0xff);
const OPERATOR = secret(99);
const OPERATOR_VKEY = operatorVkey(BASE, ed25519PublicKey(OPERATOR));
const ROOT_A = "A".repeat(43) + "=";
const ROOT_B = "B".repeat(43) + "=";

/** Shard n as a directory lists it, with its own key. */
function shard(n: number, state: "active" | "frozen", size: number, keySeed = n): ShardEntry {
  const pub = ed25519PublicKey(secret(keySeed));
  const name = shardLogName(BASE, n);
  const e: ShardEntry = {
    id: `s${n}`,
    log_name: name,
    prefix: shardPrefix(n),
    state,
    signer: didKeyFromPublicKey(pub),
    vkeys: {
      blake3: c2sp.encodeVkey(`${name}/blake3`, c2sp.SIG_ED25519, pub),
      sha256: c2sp.encodeVkey(`${name}/sha256`, c2sp.SIG_ED25519, pub),
    },
    first_time: size === 0 ? null : `2026-0${n + 1}-01T00:00:00Z`,
    last_time: size === 0 ? null : `2026-0${n + 1}-28T12:00:00.5Z`,
    size,
  };
  if (state === "frozen") e.root = { blake3: ROOT_A, sha256: ROOT_B };
  return e;
}

/** Three shards: two frozen, the last active. */
function directory(): Directory {
  return {
    operator: BASE,
    issued: "2026-04-01T00:00:00Z",
    shards: [shard(0, "frozen", 10), shard(1, "frozen", 5), shard(2, "active", 3)],
  };
}

async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    if (e instanceof DirectoryError) return e.code;
    throw e;
  }
  return "ok";
}

Deno.test("shards: prefixes, names and URLs of the table", () => {
  assert.equal(shardPrefix(0), "/");
  assert.equal(shardPrefix(3), "/shards/s3");
  assert.equal(shardLogName(BASE, 0), BASE);
  assert.equal(shardLogName(BASE, 2), `${BASE}/s2`);
  assert.equal(
    shardUrl("http://h:1", "/", "/v1/log/entries").href,
    "http://h:1/v1/log/entries",
  );
  assert.equal(
    shardUrl("http://h:1/base/", "/shards/s1", "/log/sha256/checkpoint").href,
    "http://h:1/base/shards/s1/log/sha256/checkpoint",
  );
});

Deno.test("shards: a directory signed by the operator key opens to the same directory", async () => {
  const d = directory();
  const note = signDirectory(d, OPERATOR);
  assert.ok(note.startsWith("jouleclaw/log-directory/v1\n{"));
  const opened = await openDirectory(note, OPERATOR_VKEY);
  assert.deepEqual(opened, JSON.parse(formatDirectory(d).split("\n")[1]));
  assert.deepEqual(opened, d);
  // Deterministic text: keys in the published order whatever the input's order.
  const shuffled = {
    ...d,
    shards: d.shards.map((s) => Object.fromEntries(Object.entries(s).reverse())),
  };
  assert.equal(formatDirectory(shuffled as Directory), formatDirectory(d));
  // A single empty active shard (a fresh service) is a directory too.
  const fresh: Directory = { operator: BASE, issued: d.issued, shards: [shard(0, "active", 0)] };
  assert.deepEqual(await openDirectory(signDirectory(fresh, OPERATOR), OPERATOR_VKEY), fresh);
});

Deno.test("shards: a note under another key, name or header is refused with its code", async () => {
  const d = directory();
  const note = signDirectory(d, OPERATOR);
  const other = operatorVkey(BASE, ed25519PublicKey(secret(98)));
  assert.equal(await codeOf(() => openDirectory(note, other)), "note-unverified");
  // signed by a key named otherwise than the directory's operator
  const elsewhere = c2sp.signNote(formatDirectory(d), [
    c2sp.ed25519NoteSigner("other.org/x", OPERATOR),
  ]);
  assert.equal(
    await codeOf(() =>
      openDirectory(elsewhere, operatorVkey("other.org/x", ed25519PublicKey(OPERATOR)))
    ),
    "directory-wrong-operator",
  );
  const signer = [c2sp.ed25519NoteSigner(BASE, OPERATOR)];
  const json = formatDirectory(d).split("\n")[1];
  for (
    const text of [
      `jouleclaw/log-directory/v2\n${json}\n`,
      `jouleclaw/log-directory/v1\n${json}\nmore\n`,
      `jouleclaw/log-directory/v1\n{not json\n`,
      `jouleclaw/log-directory/v1\n[1]\n`,
    ]
  ) {
    assert.equal(
      await codeOf(() => openDirectory(c2sp.signNote(text, signer), OPERATOR_VKEY)),
      "directory-malformed",
      text,
    );
  }
  assert.equal(
    await codeOf(() => openDirectory("x".repeat((4 << 20) + 1), OPERATOR_VKEY)),
    "directory-too-large",
  );
});

type Case = [string, string, (d: Directory & Record<string, unknown>) => void];
// deno-lint-ignore no-explicit-any
const S = (d: Directory, n: number) => d.shards[n] as any;

/** Every rule of docs/SHARDS.md "Rules", broken one at a time. */
const CASES: Case[] = [
  ["operator not a key name", "directory-malformed", (d) => d.operator = "a b"],
  ["operator missing", "directory-malformed", (d) => delete (d as Partial<Directory>).operator],
  [
    "operator not the first shard's name",
    "directory-wrong-operator",
    (d) => d.operator = "x.org/y",
  ],
  ["issued not RFC 3339", "directory-malformed", (d) => d.issued = "2026-04-01 00:00:00"],
  ["issued not UTC", "directory-malformed", (d) => d.issued = "2026-04-01T00:00:00+01:00"],
  ["issued not a date", "directory-malformed", (d) => d.issued = "2026-13-45T00:00:00Z"],
  ["no shards", "directory-malformed", (d) => d.shards = []],
  ["shards not a list", "directory-malformed", (d) => (d as Record<string, unknown>).shards = {}],
  ["too many shards", "directory-malformed", (d) => d.shards = new Array(4097).fill(d.shards[0])],
  ["a shard not an object", "directory-malformed", (d) => (d.shards as unknown[])[1] = "s1"],
  ["first shard without name", "directory-malformed", (d) => delete S(d, 0).log_name],
  ["ids out of order", "directory-bad-shard", (d) => S(d, 1).id = "s2"],
  ["wrong prefix", "directory-bad-shard", (d) => S(d, 1).prefix = "/shards/s9"],
  ["first shard not at the root", "directory-bad-shard", (d) => S(d, 0).prefix = "/shards/s0"],
  ["wrong log name", "directory-bad-shard", (d) => S(d, 1).log_name = `${BASE}/x1`],
  ["unknown state", "directory-bad-shard", (d) => S(d, 1).state = "sealed"],
  ["last shard frozen", "directory-bad-state", (d) => {
    S(d, 2).state = "frozen";
    S(d, 2).root = { blake3: ROOT_A, sha256: ROOT_B };
  }],
  ["an earlier shard active", "directory-bad-state", (d) => {
    S(d, 1).state = "active";
    delete S(d, 1).root;
  }],
  ["signer not a did:key", "directory-bad-shard", (d) => S(d, 1).signer = "did:web:x"],
  ["signer not the shard's key", "directory-bad-shard", (d) => S(d, 1).signer = S(d, 2).signer],
  ["no vkeys", "directory-bad-shard", (d) => delete S(d, 1).vkeys],
  ["a vkey unparsable", "directory-bad-shard", (d) => S(d, 1).vkeys.sha256 = "nope"],
  ["a vkey of another name", "directory-bad-shard", (d) => {
    S(d, 1).vkeys.blake3 = c2sp.encodeVkey(
      `${BASE}/s1/sha256`,
      c2sp.SIG_ED25519,
      ed25519PublicKey(secret(1)),
    );
  }],
  ["the views under two keys", "directory-bad-shard", (d) => {
    S(d, 1).vkeys.sha256 = c2sp.encodeVkey(
      `${BASE}/s1/sha256`,
      c2sp.SIG_ED25519,
      ed25519PublicKey(secret(7)),
    );
  }],
  ["a key repeated", "directory-bad-shard", (d) => d.shards[2] = shard(2, "active", 3, 0)],
  ["size negative", "directory-bad-shard", (d) => S(d, 1).size = -1],
  ["size fractional", "directory-bad-shard", (d) => S(d, 1).size = 1.5],
  ["size a string", "directory-bad-shard", (d) => S(d, 1).size = "5"],
  ["time null while not empty", "directory-bad-shard", (d) => S(d, 1).last_time = null],
  ["time while empty", "directory-bad-shard", (d) => S(d, 2).size = 0],
  ["time not UTC", "directory-bad-shard", (d) => S(d, 1).first_time = "2026-02-01T00:00:00+00:00"],
  ["time not a date", "directory-bad-shard", (d) => S(d, 1).first_time = "2026-02-30T25:00:00Z"],
  ["first after last", "directory-bad-shard", (d) => S(d, 1).first_time = "2027-01-01T00:00:00Z"],
  ["frozen without roots", "directory-bad-shard", (d) => delete S(d, 1).root],
  ["frozen with a short root", "directory-bad-shard", (d) => S(d, 1).root.sha256 = "AAAA"],
  [
    "active with roots",
    "directory-bad-shard",
    (d) => S(d, 2).root = { blake3: ROOT_A, sha256: ROOT_B },
  ],
];

Deno.test("shards: every rule of checkDirectory is refused with its code", async (t) => {
  assert.equal(await codeOf(() => checkDirectory(directory())), "ok");
  for (const [what, code, breakIt] of CASES) {
    await t.step(what, async () => {
      const d = structuredClone(directory()) as Directory & Record<string, unknown>;
      breakIt(d);
      assert.equal(await codeOf(() => checkDirectory(d)), code);
      // formatting (so signing) refuses it too; a note carrying it (signed anyway) is refused
      assert.equal(await codeOf(() => formatDirectory(d)), code);
      if (d.operator === BASE && typeof d.issued === "string") {
        const note = c2sp.signNote(
          `jouleclaw/log-directory/v1\n${JSON.stringify(d)}\n`,
          [c2sp.ed25519NoteSigner(BASE, OPERATOR)],
        );
        assert.equal(await codeOf(() => openDirectory(note, OPERATOR_VKEY)), code);
      }
    });
  }
  assert.equal(await codeOf(() => checkDirectory(null)), "directory-malformed");
  assert.equal(await codeOf(() => checkDirectory([])), "directory-malformed");
});

Deno.test("shards: any single-byte change of a signed directory is refused", async () => {
  const note = signDirectory(directory(), OPERATOR);
  const bytes = new TextEncoder().encode(note);
  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: bytes.length - 1 }),
      fc.integer({ min: 1, max: 255 }),
      async (i, x) => {
        const b = bytes.slice();
        b[i] ^= x;
        const changed = new TextDecoder().decode(b);
        const code = await codeOf(() => openDirectory(changed, OPERATOR_VKEY));
        assert.notEqual(code, "ok", `byte ${i} ^ ${x}`);
      },
    ),
    { numRuns: 500 },
  );
});

/** `prev` and then a legitimate successor: the active shard grew, then rotated into s3. */
function succession(): { prev: Directory; next: Directory } {
  const prev = directory();
  const next = structuredClone(prev);
  next.issued = "2026-05-01T00:00:00Z";
  next.shards[2] = { ...shard(2, "frozen", 9), root: { blake3: ROOT_B, sha256: ROOT_A } };
  next.shards.push(shard(3, "active", 0));
  return { prev, next };
}

Deno.test("shards: a legitimate succession has no violations", () => {
  const { prev, next } = succession();
  assert.deepEqual(directorySuccession(prev, prev), []);
  assert.deepEqual(directorySuccession(prev, next), []);
  const grown = structuredClone(prev);
  grown.issued = "2026-04-02T00:00:00Z";
  S(grown, 2).size = 4;
  S(grown, 2).last_time = "2026-03-29T00:00:00Z";
  assert.deepEqual(directorySuccession(prev, grown), []);
  assert.deepEqual(directorySuccession(grown, next), []);
});

const VIOLATIONS: [string, string, (d: Directory) => void][] = [
  ["issued earlier", "directory-rollback", (d) => d.issued = "2026-03-01T00:00:00Z"],
  ["another operator", "directory-operator-changed", (d) => d.operator = "x.org/y"],
  ["a shard removed", "directory-shard-removed", (d) => d.shards.pop()],
  ["a name changed", "directory-shard-changed", (d) => S(d, 1).log_name = "x"],
  ["a prefix changed", "directory-shard-changed", (d) => S(d, 1).prefix = "/x"],
  ["a signer changed", "directory-shard-changed", (d) => S(d, 0).signer = "did:key:zX"],
  [
    "a vkey changed",
    "directory-shard-changed",
    (d) => S(d, 2).vkeys = shard(2, "active", 0, 50).vkeys,
  ],
  ["a frozen shard thawed", "directory-frozen-changed", (d) => S(d, 1).state = "active"],
  ["a frozen shard grew", "directory-frozen-changed", (d) => S(d, 1).size = 6],
  ["a frozen root changed", "directory-frozen-changed", (d) => S(d, 0).root.sha256 = ROOT_A],
  [
    "a frozen last time changed",
    "directory-frozen-changed",
    (d) => S(d, 0).last_time = "2026-01-29T00:00:00Z",
  ],
  ["the active shard shrank", "directory-shrunk", (d) => S(d, 2).size = 2],
  ["the active shard frozen smaller", "directory-shrunk", (d) => {
    S(d, 2).state = "frozen";
    S(d, 2).size = 1;
  }],
];

Deno.test("shards: each succession violation fires its code", async (t) => {
  for (const [what, code, breakIt] of VIOLATIONS) {
    await t.step(what, () => {
      const prev = directory();
      const next = structuredClone(prev);
      breakIt(next);
      const found = directorySuccession(prev, next).map((v) => v.code);
      assert.deepEqual(found, [code]);
    });
  }
});
