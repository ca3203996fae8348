// Storage targets for storage-dependent suites: SQLite always; PostgreSQL too when
// LEASEHOLD_TEST_DATABASE_URL is set. Each PostgreSQL suite gets its own schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { StorageConfig } from '../../src/server/db/open.ts';

export interface StorageTarget {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty storage config; cleanup() removes everything made. */
  create(): Promise<{ config: StorageConfig; cleanup: () => Promise<void> }>;
}

export const sqliteTarget: StorageTarget = {
  name: 'sqlite',
  async create() {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-test-data-'));
    return { config: { kind: 'sqlite', dataDir }, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  },
};

export function postgresTarget(url: string): StorageTarget {
  return {
    name: 'postgres',
    async create() {
      const schema = `lh_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
      return {
        config: { kind: 'postgres', url, schema },
        cleanup: async () => {
          const dropper = new pg.Client({ connectionString: url });
          await dropper.connect();
          await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await dropper.end();
        },
      };
    },
  };
}

export const storageTargets: StorageTarget[] = [
  sqliteTarget,
  ...(process.env.LEASEHOLD_TEST_DATABASE_URL ? [postgresTarget(process.env.LEASEHOLD_TEST_DATABASE_URL)] : []),
];

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `leasehold-${prefix}-`));
}
