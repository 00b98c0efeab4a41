// Damaging a real SQLite file page by page (issue 27's "corrupt a page" tests): find the page of a
// table that holds some bytes (SQLite's dbstat table names each table's pages: a freed page or a
// page's free space may still hold an old copy of them), then zero it (SQLite then answers SQLITE_CORRUPT, "database disk image is
// malformed") or make its b-tree forget rows (its cell count cut to 1: the rows after the first
// are silently gone, no error). The file must be closed and its WAL checkpointed (a closed
// connection checkpoints it) before these run.
import { DatabaseSync } from "node:sqlite";

/** SQLite's page size, from the file header (offset 16, big-endian; 1 means 65536). */
export function pageSize(file: Uint8Array): number {
  const v = (file[16] << 8) | file[17];
  return v === 1 ? 65_536 : v;
}

/** The pages (0-based) of `table`'s b-tree leaves and overflow chains in the SQLite file `path`. */
export function tablePages(path: string, table: string): Set<number> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare(
      "SELECT pageno FROM dbstat WHERE name = ? AND pagetype IN ('leaf', 'overflow')",
    ).all(table) as { pageno: number }[];
    return new Set(rows.map((r) => r.pageno - 1));
  } finally {
    db.close();
  }
}

/**
 * The number (0-based) of the first page in `only` holding all of `needle`, or -1 when none does.
 */
export function pageHolding(file: Uint8Array, needle: Uint8Array, only: Set<number>): number {
  const ps = pageSize(file);
  outer: for (let i = 0; i + needle.length <= file.length; i++) {
    if (file[i] !== needle[0]) continue;
    for (let k = 1; k < needle.length; k++) if (file[i + k] !== needle[k]) continue outer;
    const page = Math.floor(i / ps);
    if (Math.floor((i + needle.length - 1) / ps) === page && only.has(page)) return page;
  }
  return -1;
}

/** Zeroes page `page` of `file` (in place). */
export function zeroPage(file: Uint8Array, page: number): void {
  const ps = pageSize(file);
  file.fill(0, page * ps, (page + 1) * ps);
}

/**
 * Cuts the cell count of b-tree page `page` to 1 (in place; bytes 3-4 of its header, page 0 has
 * the 100-byte file header first): the page's other rows vanish without an error.
 */
export function dropRows(file: Uint8Array, page: number): void {
  if (page === 0) throw new Error("Cannot drop rows of page 0 (the schema)");
  const at = page * pageSize(file);
  file[at + 3] = 0;
  file[at + 4] = 1;
}
