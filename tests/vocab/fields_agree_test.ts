// Field lists defined twice, checked against each other (issue 22): every receipt profile's
// signed-core table (verify/profiles/*, what the verifier accepts) and the vocabulary's class for
// the same schema tag (vocab/schema/, what the context, ontology and SHACL shapes say) name the
// same fields, with the same type and cardinality, in both directions and at every nesting level.
// The only fields one side has and the other lacks are listed below with the clause that says so.
import assert from "node:assert/strict";
import { REGISTRY } from "../../verify/profiles/mod.ts";
import type { FieldTable, FieldType } from "../../verify/profiles/fields.ts";
import {
  CLASS_BY_NAME,
  type ClassDef,
  CLASSES,
  ENUM_BY_NAME,
  type Field,
  type Range,
} from "../../vocab/schema/mod.ts";

/** Fields only one side has, each with why: `<class>.<key>`. */
const ONLY_IN_VOCAB: Record<string, string> = {
  // JCR-1 §3.1: token_attributions travels beside the signed core, never inside it.
  "Receipt.token_attributions": "JCR-1 §3.1: outside the signed core",
  // SPEC §16.7: the signed core carries the verdict as verdict_json; `verdict` is the JSON form's.
  "VerdictReceipt.verdict": "SPEC §16.7: outside the signed core",
};
const ONLY_IN_PROFILE: Record<string, string> = {};
/** Fields both sides have with types that differ on purpose, each with why. */
const TYPES_DIFFER: Record<string, string> = {
  // docs/METER-READING.md lists four domains and the verifier refuses others; the vocabulary
  // keeps a string (tests/vocab/_docs.ts validates a reading of domain "gpu0").
  "MeterReading.domain": "METER-READING.md's four domains vs any string",
  // JCP §5.2: only "Partial"; the verifier checks it in its honesty step (code bad-coverage).
  "JcpReceipt.energy_coverage": "checked by the honesty step (bad-coverage)",
  "JcpV1Receipt.energy_coverage": "checked by the honesty step (bad-coverage)",
  "InterceptReceipt.coverage": "checked by the honesty step (bad-coverage)",
  "EfficiencyReceipt.energy_coverage": "checked by the honesty step (bad-coverage)",
};

const HEX64 = "^[0-9a-f]{64}$";

/** Why a profile type and a vocabulary range disagree, or undefined when they agree. */
function typeDiff(t: FieldType, f: Field, at: string, out: string[]): string | undefined {
  const r: Range = f.range;
  if (t.t === "array") {
    if (!f.list) return `a list in the profile, ${r.t} (not a list) in the vocabulary`;
    return typeDiff(t.of, { ...f, list: false }, at, out);
  }
  if (f.list) return `a list in the vocabulary, ${t.t} in the profile`;
  switch (t.t) {
    case "text":
      // an open enumeration (JCP §8.1's frame_kind) takes any text, as the profile does
      return r.t === "string" || (r.t === "enum" && r.open)
        ? undefined
        : `text in the profile, ${r.t} in the vocabulary`;
    case "hex64":
      return r.t === "string" && r.pattern === HEX64
        ? undefined
        : `hex64 in the profile, ${r.t} ${"pattern" in r ? r.pattern : ""} in the vocabulary`;
    case "did-key":
      return r.t === "string" && r.pattern?.startsWith("^did:")
        ? undefined
        : `did:key in the profile, ${r.t} in the vocabulary`;
    case "rfc3339":
      return r.t === "dateTime" ? undefined : `rfc3339 in the profile, ${r.t} in the vocabulary`;
    case "uint":
      if (r.t !== "uint") return `uint in the profile, ${r.t} in the vocabulary`;
      return (t.max ?? null) === (r.max ?? null)
        ? undefined
        : `uint ≤ ${t.max ?? "u64"} in the profile, ≤ ${r.max ?? "u64"} in the vocabulary`;
    case "enum": {
      // the same closed list as a fixed value or a pattern of alternatives
      if (r.t === "string" && f.fixed !== undefined) {
        return t.values.length === 1 && t.values[0] === f.fixed
          ? undefined
          : `values ${t.values.join("|")} in the profile, fixed ${f.fixed} in the vocabulary`;
      }
      if (r.t === "string" && r.pattern === `^(${t.values.join("|")})$`) return undefined;
      if (r.t !== "enum") return `enum in the profile, ${r.t} in the vocabulary`;
      const tags = ENUM_BY_NAME.get(r.e)!.values.map((v) => v.tag).sort();
      const values = [...t.values].sort();
      return JSON.stringify(tags) === JSON.stringify(values)
        ? undefined
        : `values ${values.join("|")} in the profile, ${tags.join("|")} in the vocabulary`;
    }
    case "map":
      if (r.t === "json") return undefined; // kept verbatim (rdf:JSON): any map is one
      if (r.t !== "node") return `a map in the profile, ${r.t} in the vocabulary`;
      compare(t.fields, CLASS_BY_NAME.get(r.c)!, at, out);
      return undefined;
    case "int":
      return r.t === "integer" ? undefined : `int in the profile, ${r.t} in the vocabulary`;
    case "any-map":
      return r.t === "json" || r.t === "node"
        ? undefined
        : `any map in the profile, ${r.t} in the vocabulary`;
  }
}

/** Every disagreement between `table` and `cls`'s fields, both directions, nested ones too. */
function compare(table: FieldTable, cls: ClassDef, at: string, out: string[]): void {
  const vocab = new Map(cls.fields.map((f) => [f.key, f]));
  for (const [key, { type, required }] of Object.entries(table)) {
    const f = vocab.get(key);
    const where = `${at} ${cls.name}.${key}`;
    if (!f) {
      if (!ONLY_IN_PROFILE[`${cls.name}.${key}`]) out.push(`${where}: not in the vocabulary`);
      continue;
    }
    if (required !== !!f.required) {
      out.push(
        `${where}: ${required ? "required" : "optional"} in the profile, ` +
          `${f.required ? "required" : "optional"} in the vocabulary`,
      );
    }
    const d = typeDiff(type, f, where, out);
    if (d && !TYPES_DIFFER[`${cls.name}.${key}`]) out.push(`${where}: ${d}`);
  }
  for (const key of vocab.keys()) {
    if (!(key in table) && !ONLY_IN_VOCAB[`${cls.name}.${key}`]) {
      out.push(`${at} ${cls.name}.${key}: not in the profile`);
    }
  }
}

Deno.test("fields: every profile's table and its vocabulary class agree, both ways", () => {
  const out: string[] = [];
  let compared = 0;
  for (const [schema, p] of REGISTRY) {
    if (!p.fields) continue;
    const cls = CLASSES.find((c) =>
      c.discriminator?.key === p.tagField && c.discriminator.value === schema
    );
    assert.ok(cls, `profile ${schema}: no vocabulary class has ${p.tagField} = ${schema}`);
    compare(p.fields, cls, `[${schema}]`, out);
    compared++;
  }
  assert.equal(compared, REGISTRY.size, "every profile has a field table");
  assert.deepEqual(out, []);
});

Deno.test("fields: every listed exception is still a real difference", () => {
  // An exception left over after a fix would hide the next disagreement on that field.
  const all = new Set(CLASSES.flatMap((c) => c.fields.map((f) => `${c.name}.${f.key}`)));
  for (const key of [...Object.keys(ONLY_IN_VOCAB), ...Object.keys(TYPES_DIFFER)]) {
    assert.ok(all.has(key), `${key} is not a field of the vocabulary`);
  }
});
