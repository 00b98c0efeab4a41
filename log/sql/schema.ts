// The one schema of the SQL store (docs/STORAGE.md "Schema") and its one migration path, for a
// node:sqlite data directory and a Durable Object alike (issue 22 "One SQL store"): every table
// name carries the store's prefix ("" in a data directory's log.sqlite, "jc_" in a Durable
// Object, which may hold other tables). Version 4 is the schema node:sqlite wrote as version 4
// (tile groups), so a data directory written by the code before the one store opens unchanged.
import { LogStorageError } from "../errors.ts";
import { leafPrefix } from "../storage.ts";
import type { SqlExecutor, SqlRow } from "./executor.ts";
import { LEVEL1, viewTables, ViewTiles } from "./tiles.ts";
import { streamSchema } from "./streams.ts";
import { accountSchema } from "./accounts.ts";
import { grantSchema } from "./grants.ts";
import { keySchema, keyShardColumns } from "./keys.ts";

/** Schema version written to `meta`; another version is refused, never guessed at. */
export const SQL_SCHEMA_VERSION = "4";

/**
 * Whose numbering an existing store's version follows: a data directory's (node:sqlite: 1, 2, 3,
 * then 4) or a Durable Object's (its own layout, versions 1 and 2, before the one store).
 */
export type SchemaLineage = "sqlite" | "durable";

/** The tables (CREATE ... IF NOT EXISTS: a store gains the additive ones on open). */
export function schemaStatements(p: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${p}meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${p}entries (idx INTEGER PRIMARY KEY, bytes BLOB NOT NULL)`,
    // the leaf index: the first 6 bytes of the leaf hash (docs/DECISIONS.md), confirmed against
    // the level-0 tile; its newest rows lag in memory (log/sql/leaf_tail.ts)
    `CREATE TABLE IF NOT EXISTS ${p}leaves (lp INTEGER NOT NULL, idx INTEGER NOT NULL,` +
    ` PRIMARY KEY (lp, idx)) WITHOUT ROWID`,
    `CREATE TABLE IF NOT EXISTS ${p}tiles (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${p}tiles256 (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${p}tile_groups (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${p}tile_groups256 (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${p}heads (size INTEGER PRIMARY KEY, root BLOB NOT NULL,` +
    ` ts INTEGER NOT NULL, sig BLOB NOT NULL, sha_root BLOB)`,
    // docs/DECISIONS.md "One entry per signed content": content identity → index, unique; created
    // when absent, so an older store gains it on open (its reach then starts at 0 and the log's
    // backfill completes it)
    `CREATE TABLE IF NOT EXISTS ${p}content_ids (id BLOB PRIMARY KEY, idx INTEGER NOT NULL)` +
    ` WITHOUT ROWID`,
    // agents' chain heads (issue 16), additive like content_ids
    `CREATE TABLE IF NOT EXISTS ${p}agent_heads (did TEXT PRIMARY KEY, seq INTEGER NOT NULL,` +
    ` prev BLOB NOT NULL, idx INTEGER NOT NULL)`,
    // what else an agent's chain head holds (issue 26: the last span's end, the calibrations),
    // written with agent_heads in the same commit; additive, so an older store gains it on open
    // (its heads then have none until their agent's next reading)
    `CREATE TABLE IF NOT EXISTS ${p}agent_state (did TEXT PRIMARY KEY, idx INTEGER NOT NULL,` +
    ` span_end INTEGER, calibrations TEXT)`,
  ];
}

/**
 * Creates the tables, migrates an older store and sets the additive marks, in one transaction
 * (docs/STORAGE.md "Migration"). Throws `LogStorageError("storage-schema")` for a version this
 * build does not read or a migration that failed (nothing changed then).
 */
export function openSchema(x: SqlExecutor, p: string, lineage: SchemaLineage, name: string): void {
  let from: string | undefined;
  try {
    x.transaction(() => {
      for (const s of schemaStatements(p)) x.run(s);
      from = x.all(`SELECT v FROM ${p}meta WHERE k = 'schema'`)[0]?.v as string | undefined;
      if (from !== SQL_SCHEMA_VERSION) {
        const known = lineage === "sqlite" ? ["1", "2", "3"] : ["1", "2"];
        if (from !== undefined && !known.includes(from)) {
          throw new LogStorageError(
            "storage-schema",
            `Cannot open log store ${name}: schema version ${from}, this build reads ` +
              SQL_SCHEMA_VERSION,
          );
        }
        if (lineage === "durable" && from !== undefined) fromDurable(x, p, from);
        else fromSqlite(x, p, from);
        x.run(`INSERT OR REPLACE INTO ${p}meta (k, v) VALUES ('schema', ?)`, SQL_SCHEMA_VERSION);
      }
      // The content index's reach (docs/DECISIONS.md "One entry per signed content"): "all" for
      // a store created with it; for an older store with entries, 0 until the backfill.
      if (x.all(`SELECT v FROM ${p}meta WHERE k = 'content_ids_upto'`).length === 0) {
        const any = x.all(`SELECT 1 AS x FROM ${p}entries LIMIT 1`).length > 0;
        x.run(`INSERT INTO ${p}meta (k, v) VALUES ('content_ids_upto', ?)`, any ? "0" : "all");
      }
      // Agents' chain heads (issue 16): complete from the first write for a store created with
      // the table; one written before it is backfilled once by the log (then marked).
      x.run(
        `INSERT OR IGNORE INTO ${p}meta (k, v) SELECT 'agent_heads', 'complete'` +
          ` WHERE NOT EXISTS (SELECT 1 FROM ${p}entries)`,
      );
      // Streams (issue 24): additive tables, and from which index on entries were checked.
      for (const s of streamSchema(p)) x.run(s);
      // Accounts (issue 30): additive tables, and from which index on entries were counted.
      for (const s of accountSchema(p)) x.run(s);
      for (const s of grantSchema(p)) x.run(s); // issue 25: grants, revocations (additive)
      // Key-event chains (issue 25): additive tables.
      for (const s of keySchema(p)) x.run(s);
      keyShardColumns(x, p); // their shard columns (carried state, docs/SHARDS.md), additive
    });
  } catch (err) {
    if (err instanceof LogStorageError) throw err;
    throw new LogStorageError(
      "storage-schema",
      `Cannot open log store ${name}: migrating schema ${from} failed: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/**
 * node:sqlite's path: 1 → 2 adds `leaves_upto` (the lagging leaf index; schema 1 had every entry
 * in `leaves`); 2 → 3 adds the SHA-256 view (`tiles256`, `heads.sha_root`), whose tiles and roots
 * `openLog` then backfills from the entries (log/view_backfill.ts); 3 → 4 stores every 16 full
 * tiles of a level as one row (docs/STORAGE.md "Tile groups"). A new store is written at 4.
 */
function fromSqlite(x: SqlExecutor, p: string, from: string | undefined): void {
  if (from === undefined || from === "1") {
    x.run(
      `INSERT OR REPLACE INTO ${p}meta (k, v) SELECT 'leaves_upto', coalesce(max(idx) + 1, 0)` +
        ` FROM ${p}entries`,
    );
  }
  if (from === undefined) return;
  addShaRoot(x, p);
  for (const t of Object.values(viewTables(p))) new ViewTiles(x, t).groupAll();
}

/** `heads.sha_root`, unless the table has it (a store before the SHA-256 view lacks it). */
function addShaRoot(x: SqlExecutor, p: string): void {
  const cols = x.all(`SELECT name FROM pragma_table_info('${p}heads')`);
  if (!cols.some((c) => c.name === "sha_root")) {
    x.run(`ALTER TABLE ${p}heads ADD COLUMN sha_root BLOB`);
  }
}

/**
 * A Durable Object's path from its own layout (version 1; 2 added the SHA-256 view) to the one
 * schema: `entries` loses its full `leaf` column, whose 6-byte prefixes go to `leaves` (every
 * entry the object holds; `leaves_upto` = its size); the tiles, keyed (level, idx) there, are
 * re-keyed tileId(level, idx) and full groups made one row. The object holds a bounded window
 * (log/r2/r2_storage.ts prunes what R2 holds), so the copy is small.
 */
function fromDurable(x: SqlExecutor, p: string, from: string): void {
  if (from === "1") x.run(`ALTER TABLE ${p}heads ADD COLUMN sha_root BLOB`);
  x.run(`ALTER TABLE ${p}entries RENAME TO ${p}entries_v2`);
  x.run(`CREATE TABLE ${p}entries (idx INTEGER PRIMARY KEY, bytes BLOB NOT NULL)`);
  x.run(`INSERT INTO ${p}entries (idx, bytes) SELECT idx, bytes FROM ${p}entries_v2`);
  for (const r of x.all(`SELECT idx, leaf FROM ${p}entries_v2`) as SqlRow[]) {
    x.run(
      `INSERT OR IGNORE INTO ${p}leaves (lp, idx) VALUES (?, ?)`,
      leafPrefix(r.leaf as Uint8Array),
      r.idx as number,
    );
  }
  x.run(`DROP TABLE ${p}entries_v2`);
  x.run(
    `INSERT OR REPLACE INTO ${p}meta (k, v) SELECT 'leaves_upto', coalesce(max(size), 0)` +
      ` FROM ${p}heads`,
  );
  const views = viewTables(p);
  // schema 1 had no SHA-256 view: its tiles256 was just created in the one layout, empty
  for (const t of from === "1" ? [views.blake3] : [views.blake3, views.sha256]) {
    x.run(`ALTER TABLE ${t.tiles} RENAME TO ${t.tiles}_v2`);
    x.run(`CREATE TABLE ${t.tiles} (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL)`);
    x.run(
      `INSERT INTO ${t.tiles} (id, hashes) SELECT level * ${LEVEL1} + idx, hashes` +
        ` FROM ${t.tiles}_v2`,
    );
    x.run(`DROP TABLE ${t.tiles}_v2`);
    new ViewTiles(x, t).groupAll();
  }
}
