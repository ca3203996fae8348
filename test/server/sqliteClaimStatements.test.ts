// The rule docs/CONVENTIONS.md states for SQLite's hot path, checked on the statements the
// claim store really runs: no claim transition (claim_next, heartbeat, release, complete, the
// reaper's requeue) builds a temporary b-tree per call, as an IN-list CHECK or RETURNING does
// (migration 14 says what they cost). Each statement is taken as it ran, through a recording
// Db over a real SQLite file, and EXPLAINed.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ClaimStore } from '../../src/server/claims/claimStore.ts';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import { migrate } from '../../src/server/db/migrations/index.ts';
import type { Db, SqlExecutor } from '../../src/server/db/sql.ts';
import { SqliteDb } from '../../src/server/db/sqliteDb.ts';
import { tempDir } from '../support/storage.ts';

function recording(db: SqliteDb, seen: Set<string>): Db {
  const note = (executor: SqlExecutor): SqlExecutor => ({
    all: (sql, params) => (seen.add(sql), executor.all(sql, params)),
    run: (sql, params) => (seen.add(sql), executor.run(sql, params)),
  });
  const direct = note(db);
  return {
    dialect: db.dialect,
    all: direct.all,
    run: direct.run,
    transaction: (fn) => db.transaction((tx) => fn(note(tx))),
    execScript: (sql) => db.execScript(sql),
    close: () => db.close(),
  };
}

describe('SQLite claim transitions', () => {
  it('run no statement that builds a temporary b-tree', async () => {
    const dir = tempDir('claim-statements');
    const db = new SqliteDb(join(dir, 'claims.db'));
    try {
      await migrate(db);
      await db.run(`INSERT INTO humans (id, name, token_hash, created_at) VALUES ('h', 'h', 'x', 0)`);
      await db.run(
        `INSERT INTO endpoints (id, human_id, slug, name, scope, friend, state, token_hash, default_lease_ttl_seconds, created_at) VALUES ('ep', 'h', 'w', 'w', '[]', 0, 'active', 'tok', NULL, 0)`,
      );
      for (const [index, id] of ['td_1', 'td_2', 'td_3'].entries()) {
        await db.run(
          `INSERT INTO todos (id, seq, queue, title, payload, state, attempts, claim_epoch, created_by, created_at, updated_at) VALUES (?, ?, 'q', 't', 'null', 'queued', 0, 0, 'h', 0, 0)`,
          [id, index + 1],
        );
      }
      const seen = new Set<string>();
      const store = new ClaimStore(recording(db, seen));
      const endpoint = (await store.getEndpoint('ep')) as EndpointRecord;
      const lease = { leaseMs: 60_000, leaseSeconds: 60, source: 'server' as const };
      seen.clear();
      const claimed = [];
      for (let index = 0; index < 3; index++) claimed.push((await store.claimNext('q', endpoint, lease, 1_000)).todo!);
      const mutation = (todo: { id: string; claim_epoch: number }, now: number) => ({ todoId: todo.id, endpointId: 'ep', claimEpoch: todo.claim_epoch, now });
      assert.ok((await store.heartbeat(mutation(claimed[0]!, 2_000), lease, endpoint)).todo);
      assert.ok((await store.complete(mutation(claimed[0]!, 3_000), endpoint)).todo);
      assert.ok((await store.release(mutation(claimed[1]!, 3_000), endpoint)).todo);
      assert.equal((await store.reapExpired(100_000)).length, 1, 'the third claim lapsed and was reaped');

      assert.ok(seen.size >= 8, `every transition's statements were seen (${seen.size})`);
      for (const sql of seen) {
        const program = await db.all<{ opcode: string }>(`EXPLAIN ${sql}`, Array.from(sql.matchAll(/\?/g), () => null));
        assert.equal(program.filter((op) => op.opcode === 'OpenEphemeral').length, 0, sql);
      }
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
