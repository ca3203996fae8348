// SQLite: less work in every claim transition, the same rules (issue 11).
// - A CHECK written as "x IN (three or more values)" builds a temporary b-tree of the values each
//   time a row is written (SQLite's IN operator), so every claim, complete and event row opened
//   and freed one or two. The same CHECKs written as "x = 'a' OR x = 'b' ..." are plain
//   comparisons with the same verdict for every value, NULL included.
// - claim_events drops AUTOINCREMENT: nothing deletes an event, so the next id is the largest
//   plus one either way, without writing sqlite_sequence on every insert.
// - todos_by_queue becomes (queue, seq), which no transition changes, and the claim's pick reads
//   todos_queued (queue, seq) of queued todos only: a claim deletes one entry, a complete none,
//   where each had deleted and inserted one in (queue, state, seq).
// The statements alone, from a bare node:sqlite loop draining todos in batches of eight: 971 to
// 649 million instructions for 2,000 todos (callgrind), the CHECKs about 280 million of it, and
// 210-238 to 159-176 ms for 4,000 at best of ten.
// SQLite cannot alter a CHECK, so both tables are rebuilt from their own current DDL. claim_events
// references todos, so its rows wait in a plain copy while todos is rebuilt (a todo dropped
// while events point at it would fail the foreign key). The rebuild took 0.5 s for 100,000 todos
// and 200,000 events, 6.4 s for ten times that, once, at the first start. PostgreSQL already
// compares an IN list without a temporary table, and writes an entry in every index whose
// predicate a new row version meets: its pick index is migration 15's.
// (No semicolons inside comments: the runner splits on them.)
import type { SqlExecutor } from '../sql.ts';
import type { Migration } from './migration.ts';

/** `x IN ('a', 'b', 'c')` as `(x = 'a' OR x = 'b' OR x = 'c')`: our CHECK lists hold plain quoted words only. */
export function checksAsComparisons(ddl: string): string {
  return ddl.replace(/\b(\w+) IN \(([^)]*)\)/g, (_match, column: string, list: string) => {
    const values = list.split(',').map((value) => value.trim());
    if (!values.every((value) => /^'[a-z_]+'$/.test(value))) throw new Error(`migration 14: unexpected IN list (${list})`);
    return `(${values.map((value) => `${column} = ${value}`).join(' OR ')})`;
  });
}

async function tableDdl(tx: SqlExecutor, table: string): Promise<{ table: string; indexes: string[] }> {
  const [created] = await tx.all<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [table]);
  if (!created) throw new Error(`migration 14: no table ${table}`);
  const indexes = await tx.all<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, [table]);
  return { table: created.sql, indexes: indexes.map((index) => index.sql) };
}

async function sqliteSteps(tx: SqlExecutor): Promise<void> {
  const referrers = await tx.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%REFERENCES todos%'`);
  if (referrers.map((row) => row.name).join() !== 'claim_events') throw new Error('migration 14: expected claim_events alone to reference todos');
  const events = await tableDdl(tx, 'claim_events');
  const todos = await tableDdl(tx, 'todos');
  const eventsDdl = checksAsComparisons(events.table).replace(/\bid INTEGER PRIMARY KEY AUTOINCREMENT\b/, 'id INTEGER PRIMARY KEY');
  if (eventsDdl.includes('AUTOINCREMENT')) throw new Error('migration 14: claim_events id is not the one migration 7 created');

  await tx.run('CREATE TABLE claim_events_copy AS SELECT * FROM claim_events');
  await tx.run('DROP TABLE claim_events');

  await tx.run(checksAsComparisons(todos.table).replace(/^CREATE TABLE "?todos"?/, 'CREATE TABLE todos_rebuilt'));
  await tx.run('INSERT INTO todos_rebuilt SELECT * FROM todos');
  await tx.run('DROP TABLE todos');
  await tx.run('ALTER TABLE todos_rebuilt RENAME TO todos');
  for (const index of todos.indexes) if (!/\btodos_by_queue\b/.test(index)) await tx.run(index);
  await tx.run('CREATE INDEX todos_by_queue ON todos (queue, seq)');
  await tx.run(`CREATE INDEX todos_queued ON todos (queue, seq) WHERE state = 'queued'`);

  await tx.run(eventsDdl);
  await tx.run('INSERT INTO claim_events SELECT * FROM claim_events_copy');
  await tx.run('DROP TABLE claim_events_copy');
  for (const index of events.indexes) await tx.run(index);
  await tx.run(`DELETE FROM sqlite_sequence WHERE name = 'claim_events'`);
}

export const claimWritePathMigration: Migration = { version: 14, name: 'claim_write_path', sqlite: '', postgres: '', steps: { sqlite: sqliteSteps } };
