// What each field of a decoded receipt means, for the page's receipt table: read from the
// vocabulary's one table (vocab/schema/), never written again here.
import { CLASS_BY_NAME, type ClassDef, CLASSES, ENUM_BY_NAME } from "../../vocab/schema/mod.ts";

/** The vocabulary class of a top-level receipt document (by its discriminator key and value). */
export function classOfDocument(doc: Record<string, unknown>): ClassDef | undefined {
  return CLASSES.find((c) => c.discriminator && doc[c.discriminator.key] === c.discriminator.value);
}

/** One row of the receipt table. */
export interface FieldRow {
  path: string;
  value: string;
  meaning: string;
  depth: number;
}

function show(v: unknown): string {
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

function enumMeaning(cls: ClassDef, key: string, value: unknown): string {
  const f = cls.fields.find((x) => x.key === key);
  if (!f || f.range.t !== "enum" || typeof value !== "string") return "";
  const e = ENUM_BY_NAME.get(f.range.e);
  return e?.values.find((x) => x.tag === value)?.comment ?? "";
}

/**
 * Flattens a receipt's JSON projection into rows (path, value, meaning), walking nested objects of
 * known classes; unknown keys keep an empty meaning. Bounded: at most `max` rows.
 */
export function fieldRows(doc: Record<string, unknown>, max = 400): FieldRow[] {
  const rows: FieldRow[] = [];
  const walk = (
    obj: Record<string, unknown>,
    cls: ClassDef | undefined,
    prefix: string,
    d: number,
  ) => {
    for (const [k, v] of Object.entries(obj)) {
      if (rows.length >= max) return;
      const f = cls?.fields.find((x) => x.key === k);
      const sub = f && f.range.t === "node" ? CLASS_BY_NAME.get(f.range.c) : undefined;
      const path = prefix ? `${prefix}.${k}` : k;
      const meaning = [f?.comment ?? "", cls ? enumMeaning(cls, k, v) : ""].filter(Boolean).join(
        " ",
      );
      if (Array.isArray(v) && v.length > 0 && v.every((x) => x && typeof x === "object")) {
        rows.push({
          path,
          value: `${v.length} item${v.length === 1 ? "" : "s"}`,
          meaning,
          depth: d,
        });
        v.forEach((item, i) => walk(item as Record<string, unknown>, sub, `${path}[${i}]`, d + 1));
      } else if (v && typeof v === "object" && !Array.isArray(v)) {
        rows.push({ path, value: "", meaning, depth: d });
        walk(v as Record<string, unknown>, sub, path, d + 1);
      } else rows.push({ path, value: show(v), meaning, depth: d });
    }
  };
  walk(doc, classOfDocument(doc), "", 0);
  return rows;
}
