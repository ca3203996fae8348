// Opens the configured database and brings its schema up to date.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from './migrations/index.ts';
import { PostgresDb } from './postgresDb.ts';
import type { Db } from './sql.ts';
import { SqliteDb } from './sqliteDb.ts';
import { checkSqliteFile, markHeldData } from './sqliteIntegrity.ts';
import type { StorageErrorReporter } from './storageErrors.ts';

export type StorageConfig =
  | { kind: 'sqlite'; dataDir: string }
  | { kind: 'postgres'; url: string; schema?: string };

export const SQLITE_FILENAME = 'leasehold.db';

/** `report` hears every raw driver error (for the server log); callers only ever see safe LeaseholdErrors. */
export async function openDb(config: StorageConfig, report?: StorageErrorReporter): Promise<{ db: Db; schemaVersion: number }> {
  let db: Db;
  const file = config.kind === 'sqlite' ? join(config.dataDir, SQLITE_FILENAME) : undefined;
  if (config.kind === 'sqlite') {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    checkSqliteFile(file!);
    db = new SqliteDb(file!, report);
  } else {
    db = new PostgresDb(config.url, { schema: config.schema, report });
  }
  try {
    const schemaVersion = await migrate(db);
    if (file) markHeldData(file);
    return { db, schemaVersion };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
