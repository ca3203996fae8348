// Numbered migrations, run at start in order; the applied versions are recorded in
// schema_migrations. Each migration carries its SQL for both dialects side by side.
import type { Db } from '../sql.ts';
import type { Migration } from './migration.ts';

export type { Migration } from './migration.ts';
import { claimsMigration } from './0001_claims.ts';
import { waitLeasesMigration } from './0002_wait_leases.ts';
import { hookEventsMigration } from './0003_hook_events.ts';
import { teamModeMigration } from './0004_team_mode.ts';
import { claimClockMigration } from './0006_claim_clock.ts';
import { claimEventKindsMigration } from './0007_claim_event_kinds.ts';
import { paneOwnershipMigration } from './0008_pane_ownership.ts';
import { leaseFusesMigration } from './0010_lease_fuses.ts';
import { waitLeaseRenewalIndexesMigration } from './0011_wait_lease_renewal_indexes.ts';
import { waitLeaseFillfactorMigration } from './0013_wait_lease_fillfactor.ts';
import { claimWritePathMigration } from './0014_claim_write_path.ts';
import { postgresQueuedIndexMigration } from './0015_postgres_queued_index.ts';
import { waitLeaseFillfactor40Migration } from './0016_wait_lease_fillfactor_40.ts';
import { waitLeaseVersionMovesMigration } from './0017_wait_lease_version_moves.ts';


export const MIGRATIONS: readonly Migration[] = [
  claimsMigration,
  waitLeasesMigration,
  hookEventsMigration,
  teamModeMigration,
  claimClockMigration,
  claimEventKindsMigration,
  paneOwnershipMigration,
  leaseFusesMigration,
  waitLeaseRenewalIndexesMigration,
  waitLeaseFillfactorMigration,
  claimWritePathMigration,
  postgresQueuedIndexMigration,
  waitLeaseFillfactor40Migration,
  waitLeaseVersionMovesMigration,
];

export const LATEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** Applies pending migrations; returns the schema version now recorded. */
export async function migrate(db: Db, now: number = Date.now(), migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  await db.execScript(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at ${
      db.dialect === 'postgres' ? 'BIGINT' : 'INTEGER'
    } NOT NULL)`,
  );
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    await db.transaction(async (tx) => {
      // Team mode: servers starting together take turns; the loser sees the version applied.
      if (db.dialect === 'postgres') await tx.all('SELECT pg_advisory_xact_lock(4242001)');
      const applied = await tx.all('SELECT version FROM schema_migrations WHERE version = ?', [migration.version]);
      if (applied.length > 0) return;
      const script = db.dialect === 'postgres' ? migration.postgres : migration.sqlite;
      for (const statement of splitStatements(script)) await tx.run(statement);
      await migration.steps?.[db.dialect]?.(tx);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, now]);
    });
  }
  return schemaVersion(db);
}

export async function schemaVersion(db: Db): Promise<number> {
  const rows = await db.all<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
  return Number(rows[0]?.version ?? 0);
}

/** Splits a migration script on statement-ending semicolons (our scripts hold no literals with ';'). */
function splitStatements(script: string): string[] {
  return script
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
