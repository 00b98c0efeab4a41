// SPARQL 1.1 Query Language §2 / SPARQL 1.1 Update §3 — which operation a request string is.
//
// The protocol answers differ by query form (results for SELECT/ASK, a graph for
// CONSTRUCT/DESCRIBE) and must refuse updates on the query endpoint, so the form is read before
// the query runs: comments, IRIs and string literals are skipped (they may contain any keyword),
// and the first query/update keyword after the prologue (BASE/PREFIX) decides.

/** The operation a SPARQL request string is. */
export type QueryForm = "select" | "ask" | "construct" | "describe" | "update" | "unknown";

const FORMS: Record<string, QueryForm> = {
  SELECT: "select",
  ASK: "ask",
  CONSTRUCT: "construct",
  DESCRIBE: "describe",
};
const UPDATES = new Set([
  "INSERT",
  "DELETE",
  "LOAD",
  "CLEAR",
  "CREATE",
  "DROP",
  "COPY",
  "MOVE",
  "ADD",
  "WITH",
]);

/** The form of a SPARQL query or update string (SPARQL 1.1 grammar rules [2], [3], [29]). */
export function queryForm(q: string): QueryForm {
  let i = 0;
  const n = q.length;
  while (i < n) {
    const c = q[i];
    if (c === "#") { // comment to end of line
      while (i < n && q[i] !== "\n" && q[i] !== "\r") i++;
    } else if (c === "<") { // IRIREF (or a `<` operator, which cannot precede the form keyword)
      const end = q.indexOf(">", i + 1);
      i = end < 0 ? n : end + 1;
    } else if (c === '"' || c === "'") {
      const long = q.startsWith(c.repeat(3), i);
      const quote = long ? c.repeat(3) : c;
      i += quote.length;
      while (i < n && !q.startsWith(quote, i)) i += q[i] === "\\" ? 2 : 1;
      i += quote.length;
    } else if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_:-]/.test(q[j])) j++;
      const word = q.slice(i, j).toUpperCase();
      if (FORMS[word]) return FORMS[word];
      if (UPDATES.has(word)) return "update";
      if (word !== "BASE" && word !== "PREFIX" && !word.includes(":")) return "unknown";
      i = j;
    } else i++;
  }
  return "unknown";
}
