// Renewals touch no indexed column: the live-lease index is keyed by machine (every query of
// live leases names its machine) instead of by expiry, which every renewal moves. On SQLite a
// renewal then updates no index. On PostgreSQL it can be a heap-only update, with no new entry
// in any of the table's indexes, when its page has room: a fillfactor of 80 leaves some (about
// 60% of renewals heap-only in the 1,000-lease bench, none before). wait_leases_by_pane
// (pane, generation) goes: wait_leases_by_job starts with the same columns.
// (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

const indexes = `
DROP INDEX IF EXISTS wait_leases_live;
DROP INDEX IF EXISTS wait_leases_by_pane;
CREATE INDEX wait_leases_live ON wait_leases (machine_id) WHERE state <> 'ended';
`;

export const waitLeaseRenewalIndexesMigration: Migration = {
  version: 11,
  name: 'wait_lease_renewal_indexes',
  sqlite: indexes,
  postgres: `${indexes}ALTER TABLE wait_leases SET (fillfactor = 80);\n`,
};
