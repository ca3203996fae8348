// Migration 0008 on a database that already holds panes, sessions and wait-leases (written at
// schema 7, before ownership): every row survives, panes are keyed by (human, name) so two
// humans may share a pane name, and the server that owns the rows adopts them at start.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { MIGRATIONS, migrate } from '../../src/server/db/migrations/index.ts';
import { PostgresDb } from '../../src/server/db/postgresDb.ts';
import { SqliteDb } from '../../src/server/db/sqliteDb.ts';
import type { Db } from '../../src/server/db/sql.ts';
import { SQLITE_FILENAME } from '../../src/server/db/open.ts';
import { LeaseholdClient } from '../../src/client/client.ts';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import { ManualLeaseClock } from '../../src/server/clock/leaseClock.ts';
import { storageTargets, tempDir } from '../support/storage.ts';

async function legacyRows(db: Db): Promise<void> {
  await db.run(`INSERT INTO panes (name, generation, source, registered_at, updated_at) VALUES ('build', 1, 'cli', 1, 1)`);
  await db.run(`INSERT INTO pane_sessions (session_id, pane, generation, bound_at) VALUES ('sess-1', 'build', 1, 1)`);
  await db.run(
    `INSERT INTO wait_leases (id, pane, generation, session_id, job_ref, job_type, kind, token_hash, declared_ttl_ms, granted_at, granted_boot_ms,
       clock_counts_suspend, expires_at_boot_ms, expires_at_wall_ms, state, observer_kind, observer, censoring, updated_at)
     VALUES ('wl_legacy', 'build', 1, 'sess-1', 'gen-1', 'build', 'declared', 'x', 60000, 1, 1, ?, 60001, 60001, 'active', 'none', '{"kind":"none"}', 'unknown', 1)`,
    [db.dialect === 'postgres' ? false : 0],
  );
}

for (const target of storageTargets) {
  describe(`migration 0008 (pane ownership) on ${target.name}`, () => {
    it('keeps every row, keys panes by (human, name), and the owning server adopts them', async () => {
      const { config, cleanup } = await target.create();
      const runtimeDir = tempDir('migration8');
      const db: Db = config.kind === 'sqlite' ? new SqliteDb(join(config.dataDir, SQLITE_FILENAME)) : new PostgresDb(config.url, { schema: config.schema });
      try {
        assert.equal(await migrate(db, 0, MIGRATIONS.filter((migration) => migration.version < 8)), 7);
        await legacyRows(db);
        // Up to 8 only: later migrations (0010 rebuilds wait_leases again) run when the server starts below.
        assert.equal(await migrate(db, 0, MIGRATIONS.filter((migration) => migration.version <= 8)), 8);
        const counts = await db.all<{ panes: number; sessions: number; leases: number }>(
          `SELECT (SELECT COUNT(*) FROM panes) AS panes, (SELECT COUNT(*) FROM pane_sessions) AS sessions, (SELECT COUNT(*) FROM wait_leases) AS leases`,
        );
        assert.deepEqual(counts.map((row) => [Number(row.panes), Number(row.sessions), Number(row.leases)]), [[1, 1, 1]]);
        const [pane] = await db.all<{ human_id: string }>(`SELECT human_id FROM panes WHERE name = 'build'`);
        assert.equal(pane?.human_id, '', 'nobody owns it until a server adopts it');
        // Another human may now have a pane of the same name.
        await db.run(`INSERT INTO panes (name, generation, source, registered_at, updated_at, human_id) VALUES ('build', 1, 'cli', 2, 2, 'hu_someone')`);
        await db.run(`DELETE FROM panes WHERE human_id = 'hu_someone'`);
        await db.close();

        if (config.kind === 'sqlite') {
          // SQLite is one machine and one human: the server adopts everything.
          const server = await startLeaseServer({ storage: config, runtimeDir, logger: silentLogger, leaseClock: new ManualLeaseClock() });
          try {
            const client = new LeaseholdClient({ baseUrl: server.url, token: server.token });
            assert.deepEqual((await client.listPanes()).map((view) => view.name), ['build']);
            assert.deepEqual((await client.listWaitLeases()).map((view) => view.lease_id), ['wl_legacy']);
            assert.equal((await client.getSession('sess-1')).pane, 'build');
          } finally {
            await server.close();
          }
        }
      } finally {
        await db.close().catch(() => undefined);
        await cleanup();
        rmSync(runtimeDir, { recursive: true, force: true });
      }
    });
  });
}
