// verify/profiles/fields.ts: the fast yes/no walk (`conforms`) must agree with the diagnosing walk
// (`checkValue` / `checkFields`) on every value, or a structural finding could be lost. Checked on
// the published cores with fields replaced by values from a pool that sits on every boundary of
// every field type, and the position-reading RFC 3339 check against the regular expression it
// replaced.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checkFields,
  checkValue,
  conforms,
  F,
  type FieldTable,
  type FieldType,
  isRfc3339Utc,
} from "../../verify/profiles/fields.ts";
import { JCR1_FIELDS } from "../../verify/profiles/jcr1.ts";
import { JCP1_FIELDS, JCP2_FIELDS } from "../../verify/profiles/jcp.ts";
import { POLICY_FIELDS } from "../../verify/profiles/policy.ts";
import { VERDICT_FIELDS } from "../../verify/profiles/verdict.ts";
import { METER_READING_FIELDS } from "../../verify/profiles/meter_reading.ts";
import {
  type CborMap,
  type CborValue,
  decodeCbor,
  didKeyFromPublicKey,
  fromHex,
  parseCoseSign1,
} from "../../verify/mod.ts";

const RFC3339_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

/** The regular-expression form isRfc3339Utc had before it read by position (the reference). */
function rfc3339Reference(s: string): boolean {
  const m = RFC3339_UTC.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 60) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

const RFC_OK = "2026-05-31T18:04:22Z";
const arbNearRfc3339: fc.Arbitrary<string> = fc.oneof(
  // a valid stamp with 1-3 characters replaced, inserted or deleted
  fc.tuple(
    fc.constantFrom(RFC_OK, "2024-02-29T23:59:60.123456789Z", "1900-02-28T00:00:00.5Z"),
    fc.array(
      fc.tuple(fc.nat(), fc.constantFrom(..."0123456789-T:.Z z+٣x"), fc.constantFrom(0, 1, 2)),
      { maxLength: 3 },
    ),
  ).map(([s, edits]) => {
    let t: string = s;
    for (const [p, c, op] of edits) {
      const i = p % (t.length + 1);
      t = op === 0
        ? t.slice(0, i) + c + t.slice(i + 1)
        : op === 1
        ? t.slice(0, i) + c + t.slice(i)
        : t.slice(0, i) + t.slice(i + 1);
    }
    return t;
  }),
  // every calendar field over its range and beyond
  fc.tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 24 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 61 }),
    fc.option(fc.stringMatching(/^[0-9]{1,10}$/)),
  ).map(([y, mo, d, h, mi, s, f]) => {
    const p = (n: number, w = 2) => String(n).padStart(w, "0");
    return `${p(y, 4)}-${p(mo)}-${p(d)}T${p(h)}:${p(mi)}:${p(s)}${f === null ? "" : "." + f}Z`;
  }),
  fc.string({ maxLength: 32 }),
);

Deno.test("fields: isRfc3339Utc reads by position exactly what the regular expression accepted (property)", () => {
  fc.assert(
    fc.property(arbNearRfc3339, (s) => assert.equal(isRfc3339Utc(s), rfc3339Reference(s), s)),
    { numRuns: 20000 },
  );
  for (const s of ["2000-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-05-31T18:04:22.Z"]) {
    assert.equal(isRfc3339Utc(s), rfc3339Reference(s), s);
  }
});

const DID = didKeyFromPublicKey(new Uint8Array(32).fill(7));
const HEX = "ab".repeat(32);
/** Values on every boundary of every field type (and of each other's). */
const POOL: CborValue[] = [
  0,
  1,
  255,
  256,
  65535,
  65536,
  0xffff_ffff,
  0x1_0000_0000,
  Number.MAX_SAFE_INTEGER,
  2n ** 53n,
  (1n << 64n) - 1n,
  -1,
  -(2n ** 60n),
  "",
  "x",
  HEX,
  HEX.toUpperCase(),
  HEX.slice(1),
  HEX + "0",
  "g" + HEX.slice(1),
  RFC_OK,
  "2026-02-30T00:00:00Z",
  "2026-05-31T18:04:22+00:00",
  DID,
  DID.slice(0, -1),
  "did:key:z6Mk",
  "HwShunt",
  "ModelBased",
  "Estimator",
  "L0",
  "L4",
  "L5",
  "allow",
  "deny",
  "control",
  "data",
  "filesystem",
  "network",
  "process",
  new Uint8Array([1, 2]),
  [],
  [HEX],
  [1, 2],
  ["x"],
  [new Map()],
  new Map(),
  new Map<string, CborValue>([["start", 1], ["end", 2]]),
  new Map<string, CborValue>([["start", 0x1_0000_0000], ["end", 2]]),
];

function tables(): [string, FieldTable][] {
  const out: [string, FieldTable][] = [
    ["jcr1", JCR1_FIELDS],
    ["jcp/2", JCP2_FIELDS],
    ["jcp/1", JCP1_FIELDS],
    ["policy/1", POLICY_FIELDS],
    ["verdict", VERDICT_FIELDS],
    ["meter-reading", METER_READING_FIELDS as FieldTable],
  ];
  // the nested tables too (tool receipts, claims, citations, text spans)
  const nested = (t: FieldTable, name: string) => {
    for (const [k, { type }] of Object.entries(t)) {
      let ty: FieldType = type;
      if (ty.t === "array") ty = ty.of;
      if (ty.t === "map") {
        out.push([`${name}.${k}`, ty.fields]);
        nested(ty.fields, `${name}.${k}`);
      }
    }
  };
  for (const [n, t] of [...out]) nested(t, n);
  return out;
}

async function publishedCores(): Promise<CborMap[]> {
  const cores: CborMap[] = [];
  for (const f of ["jcr1.json", "siblings.json", "meter-reading.json", "negative.json"]) {
    const url = new URL(`../../conformance/vectors/${f}`, import.meta.url);
    for (const v of JSON.parse(await Deno.readTextFile(url)).vectors) {
      try {
        const core = decodeCbor(parseCoseSign1(fromHex(v.cose_sign1_hex)).payload);
        if (core instanceof Map) cores.push(core);
      } catch { /* negative vectors that do not parse */ }
    }
  }
  return cores;
}

/** Copies a core, descending into nested maps/arrays, with the given (path → value) edits. */
function edited(core: CborMap, edits: [number, number, number][], names: string[]): CborMap {
  const copy = structuredClone(core) as CborMap;
  for (const [which, val, mode] of edits) {
    // pick a map somewhere inside: the core, or a map nested in an array/map field
    const maps: CborMap[] = [copy];
    for (const x of copy.values()) {
      if (x instanceof Map) maps.push(x);
      if (Array.isArray(x)) {
        for (const y of x) {
          if (y instanceof Map) {
            maps.push(y);
            for (const z of y.values()) if (z instanceof Map) maps.push(z);
          }
        }
      }
    }
    const m = maps[which % maps.length];
    const keys = [...m.keys(), ...names];
    const k = keys[(which >> 3) % keys.length];
    if (mode === 0) m.delete(k);
    else m.set(k, POOL[val % POOL.length]);
  }
  return copy;
}

Deno.test("fields: the fast walk agrees with the diagnosing walk on every table (property)", async () => {
  const cores = await publishedCores();
  assert.ok(cores.length >= 40, `${cores.length} cores`);
  const all = tables();
  assert.ok(all.length >= 10);
  const names = [...new Set(all.flatMap(([, t]) => Object.keys(t)))];
  let failing = 0, passing = 0;
  fc.assert(
    fc.property(
      fc.nat(),
      fc.array(
        fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(0, 1, 1, 1)),
        { minLength: 0, maxLength: 3 },
      ),
      (pick, edits) => {
        const m = edited(cores[pick % cores.length], edits, names);
        for (const [name, table] of all) {
          const finding = checkFields(m, table);
          const fast = conforms(m, F.map(table));
          // checkFields answers undefined through the fast walk; the diagnosing walk must agree
          const slow = checkValue(m, { t: "map", fields: table }, "");
          assert.equal(fast, slow === undefined, `${name}: fast ${fast}, slow ${slow?.detail}`);
          assert.deepEqual(finding, slow, name);
          if (fast) passing++;
          else failing++;
        }
      },
    ),
    { numRuns: 1500 },
  );
  assert.ok(failing > 1000 && passing > 500, `${passing} conforming, ${failing} not`);
});

Deno.test("fields: single values of every type against the pool", () => {
  const types: FieldType[] = [
    F.text,
    F.uint,
    F.u8,
    F.u16,
    F.u32,
    { t: "uint", max: 2n ** 60n },
    F.hex64,
    F.rfc3339,
    F.didKey,
    F.anyMap,
    F.oneOf("HwShunt", "ModelBased"),
    F.arrayOf(F.hex64),
    F.arrayOf(F.uint),
    F.map({ start: { type: F.u32, required: true }, end: { type: F.u32, required: false } }),
  ];
  for (const [i, t] of types.entries()) {
    for (const [j, v] of POOL.entries()) {
      assert.equal(conforms(v, t), checkValue(v, t, "p") === undefined, `type ${i}, value ${j}`);
    }
  }
});
