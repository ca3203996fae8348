// The wait_leases CHECK constraints are pinned to core's constants and rules: job_ref and
// description lengths, the job_type vocabulary, kind, a positive declared TTL, and the ledger
// invariants (ended ⇔ end_reason, censoring by end reason).
import assert from 'node:assert/strict';
import { BASE_JOB_TYPES } from '../../src/core/waitLease/jobType.ts';
import { DESCRIPTION_MAX_LENGTH, JOB_REF_MAX_LENGTH } from '../../src/core/waitLease/lease.ts';
import { openDb } from '../../src/server/db/open.ts';
import { PG_WRITTEN_COLUMN_TYPES } from '../../src/server/waitLeases/waitLeaseStore.ts';
import { storageTargets } from '../support/storage.ts';

for (const target of storageTargets) {
  describe(`wait-lease schema on ${target.name}`, () => {
    it('CHECK constraints admit exactly what core admits', async () => {
      const { config, cleanup } = await target.create();
      const { db } = await openDb(config);
      try {
        await db.run(`INSERT INTO panes (name, generation, source, registered_at, updated_at) VALUES ('P', 1, 'cli', 0, 0)`);
        let n = 0;
        const insert = (overrides: Record<string, unknown>) => {
          const row: Record<string, unknown> = {
            id: `wl${++n}`, pane: 'P', generation: 1, job_ref: 'j', job_type: 'other', kind: 'declared', description: null, token_hash: 'h',
            declared_ttl_ms: 1000, granted_at: 0, granted_boot_ms: 0, clock_counts_suspend: true, expires_at_boot_ms: 1000, expires_at_wall_ms: 1000,
            state: 'active', end_reason: null, ended_at: null, observer_kind: 'none', observer: '{"kind":"none"}', censoring: 'unknown', updated_at: 0,
            ...overrides,
          };
          const columns = Object.keys(row);
          return db.run(`INSERT INTO wait_leases (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, Object.values(row) as never);
        };
        const rejected = (overrides: Record<string, unknown>) => assert.rejects(insert(overrides), /CHECK|check constraint/i, JSON.stringify(overrides));
        await insert({});
        for (const jobType of [...BASE_JOB_TYPES, 'other:gpu']) await insert({ job_type: jobType });
        await rejected({ job_type: 'free text' });
        await rejected({ kind: 'delegated' });
        await rejected({ declared_ttl_ms: 0 });
        await insert({ job_ref: 'x'.repeat(JOB_REF_MAX_LENGTH) });
        await rejected({ job_ref: 'x'.repeat(JOB_REF_MAX_LENGTH + 1) });
        await rejected({ description: 'x'.repeat(DESCRIPTION_MAX_LENGTH + 1) });
        await rejected({ state: 'ended' });
        await rejected({ state: 'ended', end_reason: 'released', ended_at: 5, censoring: 'right_censored' });
        await insert({ state: 'ended', end_reason: 'released', ended_at: 5, censoring: 'exact', measured_duration_ms: 5 });
        await insert({ state: 'ended', end_reason: 'expired', ended_at: 5, censoring: 'right_censored', expired_by: 'ttl' });
        await rejected({ state: 'ended', end_reason: 'released', ended_at: 5, censoring: 'exact', expired_by: 'ttl' });
        await rejected({ state: 'active', measured_duration_ms: 5 });
      } finally {
        await db.close();
        await cleanup();
      }
    });

    if (target.name === 'postgres') {
      it("the batched renewal names each column's type as the migrated table has it", async () => {
        const { config, cleanup } = await target.create();
        const { db } = await openDb(config);
        try {
          const rows = await db.all<{ column_name: string; data_type: string }>(
            `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'wait_leases'`,
          );
          const migrated = Object.fromEntries(rows.map((row) => [row.column_name, row.data_type]));
          for (const [column, type] of Object.entries(PG_WRITTEN_COLUMN_TYPES)) assert.equal(type, migrated[column], column);
        } finally {
          await db.close();
          await cleanup();
        }
      });
    }
  });
}
