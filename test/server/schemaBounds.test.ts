// The CHECK constraint on endpoints.default_lease_ttl_seconds is pinned to core's constants:
// if either moves without the other, this fails. Also: migrations record the schema version.
import assert from 'node:assert/strict';
import { MAX_LEASE_TTL_SECONDS, MIN_DEFAULT_LEASE_TTL_SECONDS } from '../../src/core/claimLease.ts';
import { openDb } from '../../src/server/db/open.ts';
import { LATEST_SCHEMA_VERSION, migrate } from '../../src/server/db/migrations/index.ts';
import { storageTargets } from '../support/storage.ts';

for (const target of storageTargets) {
  describe(`schema on ${target.name}`, () => {
    it('the CHECK constraint admits exactly MIN_DEFAULT..MAX and NULL', async () => {
      const { config, cleanup } = await target.create();
      const { db, schemaVersion } = await openDb(config);
      try {
        assert.equal(schemaVersion, LATEST_SCHEMA_VERSION);
        await db.run(`INSERT INTO humans (id, name, token_hash, created_at) VALUES ('h', 'h', 'x', 0)`);
        const insert = (id: string, value: number | null) =>
          db.run(
            `INSERT INTO endpoints (id, human_id, slug, name, scope, friend, state, token_hash, default_lease_ttl_seconds, created_at)
             VALUES (?, 'h', ?, ?, '[]', ?, 'active', ?, ?, 0)`,
            [id, id, id, false, `hash-${id}`, value],
          );
        for (const [value, accepted] of [
          [MIN_DEFAULT_LEASE_TTL_SECONDS - 1, false],
          [MIN_DEFAULT_LEASE_TTL_SECONDS, true],
          [MAX_LEASE_TTL_SECONDS, true],
          [MAX_LEASE_TTL_SECONDS + 1, false],
          [null, true],
        ] as const) {
          const attempt = insert(`e${value}`, value);
          if (accepted) await attempt;
          else await assert.rejects(attempt, /CHECK|check constraint/i, `${value} must violate the CHECK`);
        }
        assert.deepEqual([MIN_DEFAULT_LEASE_TTL_SECONDS, MAX_LEASE_TTL_SECONDS], [60, 86_400], 'the ADR-0043 bounds');
        assert.equal(await migrate(db), LATEST_SCHEMA_VERSION, 'migrating again is a no-op');
      } finally {
        await db.close();
        await cleanup();
      }
    });
  });
}
