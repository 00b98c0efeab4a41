// RDF 1.1 Turtle (https://www.w3.org/TR/turtle/) — the few writing helpers the generators share,
// and the decimal-range regular expression the u64 shapes use.

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** A Turtle string literal (STRING_LITERAL_QUOTE, Turtle §6.4 escapes; control characters as \\uXXXX). */
export function str(s: string): string {
  const body = s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(
    /\r/g,
    "\\r",
  )
    .replace(/\t/g, "\\t").replace(
      CONTROL,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  return `"${body}"`;
}

/** A literal with a language tag. */
export function en(s: string): string {
  return `${str(s)}@en`;
}

/** A Turtle collection `( a b c )`. */
export function list(items: string[]): string {
  return `( ${items.join(" ")} )`;
}

/**
 * A regular expression matching exactly the canonical decimal forms of the integers 0..max (no
 * sign, no leading zero). SHACL's sh:maxInclusive compares numbers, and JavaScript validators
 * compare them as doubles, so 2^64 would pass `sh:maxInclusive 18446744073709551615`; a pattern over
 * the lexical form bounds u64 exactly. Plain groups only: the pattern is valid both as an XPath
 * regular expression (what SHACL specifies) and as a JavaScript one.
 */
export function decimalAtMost(max: bigint): string {
  if (max < 0n) throw new Error("Cannot build a decimal range: max is negative");
  const d = max.toString();
  const n = d.length;
  const alts: string[] = [];
  if (n === 1) return `^[0-${d}]$`;
  alts.push("0", n === 2 ? "[1-9]" : `[1-9][0-9]{0,${n - 2}}`); // fewer digits
  for (let i = 0; i < n; i++) {
    const digit = Number(d[i]);
    const lo = i === 0 ? 1 : 0;
    if (digit - 1 < lo) continue;
    const cls = digit - 1 === lo ? `${lo}` : `[${lo}-${digit - 1}]`;
    const rest = n - i - 1;
    alts.push(d.slice(0, i) + cls + (rest ? `[0-9]{${rest}}` : ""));
  }
  alts.push(d);
  return `^(${alts.join("|")})$`;
}
