// Panes belong to one human (issue 9): a pane is named within its human's namespace, so two
// humans may each have a pane "build" and neither can reach (or learn of) the other's.
// panes' key becomes (human_id, name), and wait_leases / pane_sessions stop referencing
// panes(name) (no longer unique): the service checks the pane (in its owner's namespace) in
// the same transaction as every write. Rows from before ownership have human_id '' (nobody),
// adopted at start by the server that owns them (WaitLeaseStore.adoptUnowned).
// SQLite cannot alter a key or drop a reference, so there the three tables are rebuilt from
// their own current DDL (whatever columns earlier migrations added), transformed.
// (No semicolons inside comments: the runner splits on them.)
import type { SqlExecutor } from '../sql.ts';
import type { Migration } from './migration.ts';

const sqlite = `
PRAGMA defer_foreign_keys = ON;
UPDATE panes SET human_id = '' WHERE human_id IS NULL;
`;

const postgres = `
ALTER TABLE wait_leases DROP CONSTRAINT IF EXISTS wait_leases_pane_fkey;
ALTER TABLE pane_sessions DROP CONSTRAINT IF EXISTS pane_sessions_pane_fkey;
UPDATE panes SET human_id = '' WHERE human_id IS NULL;
ALTER TABLE panes ALTER COLUMN human_id SET DEFAULT '';
ALTER TABLE panes ALTER COLUMN human_id SET NOT NULL;
ALTER TABLE panes DROP CONSTRAINT IF EXISTS panes_pkey;
ALTER TABLE panes ADD PRIMARY KEY (human_id, name);
CREATE INDEX wait_leases_by_human ON wait_leases (human_id, pane, generation);
CREATE INDEX pane_sessions_by_human ON pane_sessions (human_id, pane, generation);
`;

/** Rebuilds one SQLite table from its current DDL passed through `transform`, keeping its rows and indexes. */
export async function rebuildSqliteTable(tx: SqlExecutor, table: string, transform: (ddl: string) => string): Promise<void> {
  const [created] = await tx.all<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [table]);
  if (!created) throw new Error(`migration 8: no table ${table}`);
  const indexes = await tx.all<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, [table]);
  const ddl = transform(created.sql).replace(new RegExp(`^CREATE TABLE "?${table}"?`), `CREATE TABLE ${table}_rebuilt`);
  await tx.run(ddl);
  await tx.run(`INSERT INTO ${table}_rebuilt SELECT * FROM ${table}`);
  await tx.run(`DROP TABLE ${table}`);
  await tx.run(`ALTER TABLE ${table}_rebuilt RENAME TO ${table}`);
  for (const index of indexes) await tx.run(index.sql);
}

async function sqliteSteps(tx: SqlExecutor): Promise<void> {
  const unreferenced = (ddl: string) => ddl.replace(/\s+REFERENCES panes\s*\(name\)/, '');
  await rebuildSqliteTable(tx, 'wait_leases', unreferenced);
  await rebuildSqliteTable(tx, 'pane_sessions', unreferenced);
  await rebuildSqliteTable(tx, 'panes', (ddl) =>
    ddl.replace(/\bname TEXT PRIMARY KEY\b/, 'name TEXT NOT NULL').replace(/\)\s*$/, ',\n  PRIMARY KEY (human_id, name)\n)'),
  );
  await tx.run('CREATE INDEX wait_leases_by_human ON wait_leases (human_id, pane, generation)');
  await tx.run('CREATE INDEX pane_sessions_by_human ON pane_sessions (human_id, pane, generation)');
}

export const paneOwnershipMigration: Migration = { version: 8, name: 'pane_ownership', sqlite, postgres, steps: { sqlite: sqliteSteps } };
