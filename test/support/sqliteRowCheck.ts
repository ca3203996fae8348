// SqliteDb builds row objects from node:sqlite's arrays (src/server/db/sqliteDb.ts): each row
// must read exactly as node:sqlite's own object would, whatever the statement. Used by
// test/server/sqliteRows.test.ts in its own process, and run directly (with Node flags under
// test) as a child: it exits 0 when every row matched, else 1 with the assertion's message.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { SqliteDb } from '../../src/server/db/sqliteDb.ts';
import { tempDir } from './storage.ts';

const TABLE = `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT);
  INSERT INTO t (name, score, note) VALUES ('a', 1.5, NULL), ('b', 2, 'x')`;

const STATEMENTS: Array<[string, (string | number)[]]> = [
  ['SELECT * FROM t ORDER BY id', []],
  ['SELECT id, name AS label, note FROM t WHERE id = ?', [2]],
  ['SELECT name, score AS name FROM t ORDER BY id', []],
  ['SELECT COUNT(*) AS n, MAX(score) FROM t', []],
  ['SELECT * FROM t WHERE id = ?', [99]],
  [`UPDATE t SET note = 'y' WHERE id = ? RETURNING id, note`, [1]],
  // As wide as a wait-lease row and more (rows are built as one object literal per statement).
  [`SELECT ${Array.from({ length: 60 }, (_, index) => `${index % 2 ? 'name' : 'id'} AS c${index}`).join(', ')} FROM t ORDER BY id`, []],
  // Names are written into that literal: each must stay a plain own property.
  [`SELECT 1 AS "__proto__", 2 AS "a""b", 3 AS "back\\slash", 4 AS "new
line", 5 AS "}; throw 1; ({", 6 AS "ünï"`, []],
];

/** Every statement read through SqliteDb and through node:sqlite itself: the same rows, keys in column order, plain objects. */
export async function checkSqliteRows(): Promise<void> {
  const dir = tempDir('sqlite-rows');
  const db = new SqliteDb(join(dir, 'rows.db'));
  const own = new DatabaseSync(':memory:');
  try {
    await db.execScript(TABLE);
    own.exec(TABLE);
    for (const [sql, params] of STATEMENTS) {
      const rows = await db.all<Record<string, unknown>>(sql, params);
      const expected = own.prepare(sql).all(...params).map((row) => ({ ...row }));
      assert.deepEqual(rows.map((row) => ({ ...row })), expected, sql);
      for (const row of rows) {
        assert.deepEqual(Object.keys(row), Object.keys(expected[0]!), `${sql}: keys in column order`);
        assert.equal(Object.getPrototypeOf(row), Object.prototype, `${sql}: a plain object`);
      }
    }
    assert.equal((await db.run('DELETE FROM t WHERE id = ?', [2])).changes, 1);
  } finally {
    own.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await checkSqliteRows();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
