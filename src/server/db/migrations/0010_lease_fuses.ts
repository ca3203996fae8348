// The deferred fuses of seed 003 (src/core/waitLease/fuses.ts): each lease records its job-ref
// chain (first grant, cap deadline) and its progress tokens (identical renewals in a row, last
// sign of progress, escalation), and a lease may now end expired by 'chain_cap'. SQLite cannot
// alter a CHECK, so there wait_leases is rebuilt from its own current DDL (as migration 8 does)
// with the widened CHECK, after the new columns are added. PostgreSQL swaps the constraint.
// Rows from before have no chain columns: they read as a chain of their own with no cap.
// (No semicolons inside comments: the runner splits on them.)
import type { SqlExecutor } from '../sql.ts';
import type { Migration } from './migration.ts';
import { rebuildSqliteTable } from './0008_pane_ownership.ts';

const OLD_EXPIRED_BY = "expired_by IN ('ttl', 'authorized_until')";
const NEW_EXPIRED_BY = "expired_by IN ('ttl', 'authorized_until', 'chain_cap')";

function columns(bigint: string): string {
  return ['chain_started_at', 'chain_started_boot_ms'].map((name) => `ALTER TABLE wait_leases ADD COLUMN ${name} ${bigint}`).concat([
    'ALTER TABLE wait_leases ADD COLUMN chain_started_boot_id TEXT',
    `ALTER TABLE wait_leases ADD COLUMN chain_deadline_boot_ms ${bigint}`,
    `ALTER TABLE wait_leases ADD COLUMN chain_deadline_wall_ms ${bigint}`,
    'ALTER TABLE wait_leases ADD COLUMN progress TEXT',
    'CREATE INDEX wait_leases_by_job ON wait_leases (pane, generation, job_ref)',
  ]).join(';\n');
}

const sqlite = `${columns('INTEGER')};\n`;

const postgres = `
ALTER TABLE wait_leases DROP CONSTRAINT IF EXISTS wait_leases_expired_by_check;
ALTER TABLE wait_leases ADD CONSTRAINT wait_leases_expired_by_check CHECK (expired_by IS NULL OR ${NEW_EXPIRED_BY});
${columns('BIGINT')};
`;

async function sqliteSteps(tx: SqlExecutor): Promise<void> {
  await rebuildSqliteTable(tx, 'wait_leases', (ddl) => {
    if (!ddl.includes(OLD_EXPIRED_BY)) throw new Error('migration 10: the wait_leases expired_by CHECK is not the one migration 2 created');
    return ddl.replace(OLD_EXPIRED_BY, NEW_EXPIRED_BY);
  });
}

export const leaseFusesMigration: Migration = { version: 10, name: 'lease_fuses', sqlite, postgres, steps: { sqlite: sqliteSteps } };
