// Migration 0015 (PostgreSQL) on a database that already holds todos of every state: the pick
// reads todos_queued (queue, seq) of queued todos, todos_by_queue (queue, state, seq) is gone,
// and claims still take each queue's oldest queued todo first, while listing a queue (any state)
// still returns every one of its todos.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrate } from '../../src/server/db/migrations/index.ts';
import { PostgresDb } from '../../src/server/db/postgresDb.ts';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import { postgresTarget } from '../support/storage.ts';
import { vendWorker } from '../support/server.ts';

const url = process.env.LEASEHOLD_TEST_DATABASE_URL;

(url ? describe : describe.skip)('migration 0015 (queued-todos index) on postgres', () => {
  it('moves the pick to todos_queued, keeps every todo, and claims each queue oldest first', async () => {
    const { config, cleanup } = await postgresTarget(url!).create();
    if (config.kind !== 'postgres') throw new Error('postgres target');
    const db = new PostgresDb(config.url, { schema: config.schema });
    const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-migration15-'));
    try {
      assert.equal(await migrate(db, 0, MIGRATIONS.filter((migration) => migration.version < 15)), 14);
      await db.run(`INSERT INTO humans (id, name, token_hash, created_at) VALUES ('h', 'h', 'x', 0)`);
      const todo = `INSERT INTO todos (id, queue, title, payload, state, created_by, created_at, updated_at) VALUES (?, ?, ?, 'null', ?, 'h', 0, 0)`;
      await db.run(todo, ['td_1', 'q', 'first, done', 'done']);
      await db.run(todo, ['td_2', 'q', 'second, queued', 'queued']);
      await db.run(todo, ['td_3', 'other', 'third, queued', 'queued']);
      await db.run(todo, ['td_4', 'q', 'fourth, queued', 'queued']);

      assert.equal(await migrate(db), LATEST_SCHEMA_VERSION);
      const kept = await db.all<{ id: string; queue: string; state: string }>('SELECT id, queue, state FROM todos ORDER BY seq');
      assert.deepEqual(
        kept.map((row) => [row.id, row.queue, row.state]),
        [['td_1', 'q', 'done'], ['td_2', 'q', 'queued'], ['td_3', 'other', 'queued'], ['td_4', 'q', 'queued']],
      );
      const indexes = await db.all<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'todos' ORDER BY indexname`,
      );
      const names = indexes.map((index) => index.indexname);
      assert.ok(!names.includes('todos_by_queue'), `todos_by_queue is gone (${names.join(', ')})`);
      assert.match(indexes.find((index) => index.indexname === 'todos_queued')?.indexdef ?? '', /\(queue, seq\) WHERE \(state = 'queued'::text\)/);

      // The pick's plan, with the planner told the table is large (as it is where this matters).
      await db.transaction(async (tx) => {
        await tx.run('SET LOCAL enable_seqscan = off');
        const plan = await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM todos WHERE queue = 'q' AND state = 'queued' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED`);
        assert.match(plan.map((row) => row['QUERY PLAN']).join('\n'), /todos_queued/);
      });
    } finally {
      await db.close();
    }

    // A server on the migrated schema claims each queue's oldest queued todo first and lists a
    // queue's todos of every state (held first, then done, newest first).
    const server = await startLeaseServer({ storage: config, runtimeDir, logger: silentLogger, singleInstance: false });
    try {
      const endpoint = await vendWorker(server, { slug: 'worker' });
      const first = await server.claims.claimNext(endpoint, 'q');
      assert.equal(first?.todo_id, 'td_2');
      await server.claims.complete(endpoint, first!.todo_id, first!.claim_epoch);
      const second = await server.claims.claimNext(endpoint, 'q');
      assert.equal(second?.todo_id, 'td_4');
      assert.equal(await server.claims.claimNext(endpoint, 'q'), null);
      const listed = await server.claimStore.listTodos({ queue: 'q' });
      assert.deepEqual(
        listed.map((todo) => [todo.id, todo.state]),
        [['td_4', 'claimed'], ['td_2', 'done'], ['td_1', 'done']],
      );
    } finally {
      await server.close();
      await cleanup();
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });
});
