// Migration 0014 (SQLite) on a database that already holds todos and claim events (written at
// schema 13): every row survives, event ids go on from the largest, the rebuilt CHECKs refuse
// and admit exactly what the IN lists did, and a claim's pick reads the queued-only index.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrate } from '../../src/server/db/migrations/index.ts';
import { checksAsComparisons } from '../../src/server/db/migrations/0014_claim_write_path.ts';
import { SqliteDb } from '../../src/server/db/sqliteDb.ts';
import { SQLITE_FILENAME } from '../../src/server/db/open.ts';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import { LeaseholdClient } from '../../src/client/client.ts';
import { sqliteTarget, tempDir } from '../support/storage.ts';
import { vendWorker } from '../support/server.ts';

const TODO = `INSERT INTO todos (id, seq, queue, title, payload, state, attempts, holder_endpoint_id, claim_epoch, lease_expires_at, created_by, created_at, updated_at)
  VALUES (?, ?, 'build', ?, 'null', ?, 0, NULL, ?, NULL, 'h', 1, 1)`;
const EVENT = `INSERT INTO claim_events (todo_id, endpoint_id, kind, claim_epoch, lease_ttl_seconds, lease_source, lease_expires_at, at) VALUES (?, NULL, ?, 1, NULL, ?, NULL, 1)`;

describe('migration 0014 (claim write path) on sqlite', () => {
  it('keeps every todo and event, continues event ids, and keeps every CHECK verdict', async () => {
    const { config, cleanup } = await sqliteTarget.create();
    if (config.kind !== 'sqlite') throw new Error('sqlite target');
    const db = new SqliteDb(join(config.dataDir, SQLITE_FILENAME));
    try {
      assert.equal(await migrate(db, 0, MIGRATIONS.filter((migration) => migration.version < 14)), 13);
      await db.run(`INSERT INTO humans (id, name, token_hash, created_at) VALUES ('h', 'h', 'x', 0)`);
      await db.run(TODO, ['td_1', 1, 'first', 'queued', 0]);
      await db.run(TODO, ['td_2', 2, 'second', 'done', 1]);
      await db.run(EVENT, ['td_2', 'claimed', 'server']);
      await db.run(EVENT, ['td_2', 'completed', null]);

      assert.equal(await migrate(db), LATEST_SCHEMA_VERSION);
      const todos = await db.all<{ id: string; state: string; title: string }>('SELECT id, state, title FROM todos ORDER BY seq');
      assert.deepEqual(todos, [{ id: 'td_1', state: 'queued', title: 'first' }, { id: 'td_2', state: 'done', title: 'second' }]);
      const events = await db.all<{ id: number; kind: string }>('SELECT id, kind FROM claim_events ORDER BY id');
      assert.deepEqual(events, [{ id: 1, kind: 'claimed' }, { id: 2, kind: 'completed' }]);
      await db.run(EVENT, ['td_1', 'claimed', 'per_call']);
      assert.equal((await db.all<{ id: number }>('SELECT MAX(id) AS id FROM claim_events'))[0]!.id, 3, 'the next event id follows the largest');

      // Each CHECK admits every value its IN list admitted (and NULL where the column allows it),
      // and refuses what it refused: another word, or the same word in another case.
      let seq = 10;
      for (const state of ['queued', 'claimed', 'done']) await db.run(TODO, [`td_${state}`, ++seq, state, state, 0]);
      for (const kind of ['claimed', 'heartbeat', 'released', 'completed', 'reaped', 'revoked', 'requeued']) await db.run(EVENT, ['td_1', kind, null]);
      for (const source of ['per_call', 'endpoint', 'server', null]) await db.run(EVENT, ['td_1', 'claimed', source]);
      for (const state of ['lost', 'Queued', '']) await assert.rejects(db.run(TODO, [`td_bad_${state}`, ++seq, 'bad', state, 0]), /CHECK/i, state);
      for (const kind of ['stolen', 'Claimed', '']) await assert.rejects(db.run(EVENT, ['td_1', kind, null]), /CHECK/i, kind);
      for (const source of ['guessed', 'Server', '']) await assert.rejects(db.run(EVENT, ['td_1', 'claimed', source]), /CHECK/i, source);
      await db.run(`DELETE FROM todos WHERE id IN ('td_queued', 'td_claimed', 'td_done')`);
      await assert.rejects(db.run(EVENT, ['td_missing', 'claimed', null]), /FOREIGN KEY/i, 'events still reference todos');

      const ddl = await db.all<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('todos', 'claim_events')`);
      for (const { sql } of ddl) {
        assert.doesNotMatch(sql, / IN \(/, 'no IN list is left to build a temporary b-tree');
        assert.doesNotMatch(sql, /AUTOINCREMENT/);
      }
      const plan = await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT id FROM todos WHERE queue = ? AND state = 'queued' ORDER BY seq LIMIT 1`, ['build']);
      assert.match(plan.map((row) => row.detail).join('; '), /USING INDEX todos_queued/);
      assert.deepEqual((await db.all<{ ok: string }>('PRAGMA integrity_check')).map((row) => Object.values(row)[0]), ['ok']);
      assert.deepEqual(await db.all('PRAGMA foreign_key_check'), []);
    } finally {
      await db.close();
    }

    // A server on the migrated file claims and completes the old todo.
    const server = await startLeaseServer({ storage: config, runtimeDir: tempDir('migration14'), logger: silentLogger, singleInstance: false });
    try {
      const worker = await vendWorker(server, { slug: 'worker' });
      const claimed = await server.claims.claimNext(worker, 'build');
      assert.equal(claimed?.todo_id, 'td_1');
      await server.claims.complete(worker, claimed!.todo_id, claimed!.claim_epoch);
      const client = new LeaseholdClient({ baseUrl: server.url, token: server.token });
      assert.deepEqual((await client.listTodos({ queue: 'build' })).map((todo) => [todo.id, todo.state]), [['td_2', 'done'], ['td_1', 'done']]);
    } finally {
      await server.close();
      await cleanup();
    }
  });

  it('rewrites only IN lists of plain quoted words', () => {
    assert.equal(checksAsComparisons(`state TEXT CHECK (state IN ('queued', 'claimed', 'done'))`), `state TEXT CHECK ((state = 'queued' OR state = 'claimed' OR state = 'done'))`);
    assert.throws(() => checksAsComparisons(`CHECK (x IN (SELECT y FROM z))`), /unexpected IN list/);
  });
});
