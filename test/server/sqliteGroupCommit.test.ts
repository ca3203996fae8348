// SQLite group commit (src/server/db/sqliteDb.ts) on a real file: transactions asked for
// together share one COMMIT, yet each keeps its own outcome; nobody hears of success before
// the COMMIT, and a read asked for after a transaction sees it.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteDb } from '../../src/server/db/sqliteDb.ts';
import { tempDir } from '../support/storage.ts';

describe('SQLite group commit', () => {
  let dir: string;
  let db: SqliteDb;

  beforeEach(async () => {
    dir = tempDir('group-commit');
    db = new SqliteDb(join(dir, 'test.db'));
    await db.execScript('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async () => (await db.all<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n;

  it('coalesces concurrent transactions; one that throws is rolled back alone and only its caller sees the error', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        db.transaction(async (tx) => {
          await tx.run('INSERT INTO t (v) VALUES (?)', [`row${index}`]);
          if (index === 3) throw new Error('refused by its caller');
          // A constraint violation halfway: its first insert must not survive either.
          if (index === 5) await tx.run('INSERT INTO t (v) VALUES (?)', ['row0']);
          return index;
        }),
      ),
    );
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.match(String((outcomes[3] as PromiseRejectedResult).reason), /refused by its caller/);
    const rows = await db.all<{ v: string }>('SELECT v FROM t ORDER BY v');
    assert.deepEqual(
      rows.map((row) => row.v),
      ['row0', 'row1', 'row2', 'row4', 'row6', 'row7'],
    );
  });

  it('a transaction sees the writes of those before it in the same batch, and a read asked for after it sees it', async () => {
    const first = db.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['a']));
    const second = db.transaction(async (tx) => (await tx.all<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n);
    const read = count();
    await first;
    assert.equal(await second, 1);
    assert.equal(await read, 1);
  });

  it('a failed COMMIT fails every transaction of the batch, and nothing of it is kept', async () => {
    // A deferred foreign key is checked at COMMIT: one bad row makes the whole COMMIT fail.
    await db.execScript('PRAGMA foreign_keys = ON; CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES t(id) DEFERRABLE INITIALLY DEFERRED)');
    const outcomes = await Promise.allSettled([
      db.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['kept?'])),
      db.transaction((tx) => tx.run('INSERT INTO child (parent) VALUES (?)', [999])),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected'],
    );
    assert.equal(await count(), 0);
    // The connection is usable afterwards.
    await db.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['after']));
    assert.equal(await count(), 1);
  });
});
