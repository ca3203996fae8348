// Embedded storage: node:sqlite (WAL) in one file. node:sqlite is synchronous, so the async
// facade serialises transactions with a queue: nothing else touches the connection while a
// transaction's callback awaits.
import { chmodSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Db, SqlExecutor, SqlValue } from './sql.ts';
import { type StorageErrorReporter, toStorageError } from './storageErrors.ts';

type SqliteParam = string | number | bigint | null;

function toSqliteParams(params: readonly SqlValue[]): SqliteParam[] {
  return params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  private readonly database: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private exclusive: Promise<unknown> = Promise.resolve();
  private readonly direct: SqlExecutor;
  private readonly filename: string;
  private readonly report: StorageErrorReporter | undefined;

  constructor(filename: string, report?: StorageErrorReporter) {
    this.filename = filename;
    this.report = report;
    this.database = new DatabaseSync(filename);
    // Token hashes live here: owner-only, like the runtime files. SQLite gives its -wal and
    // -shm files the main file's mode.
    if (filename !== ':memory:') chmodSync(filename, 0o600);
    this.database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
    this.direct = {
      all: async <Row>(sql: string, params: readonly SqlValue[] = []) => this.guard(() => this.statement(sql).all(...toSqliteParams(params)) as Row[]),
      run: async (sql: string, params: readonly SqlValue[] = []) =>
        this.guard(() => {
          const result = this.statement(sql).run(...toSqliteParams(params));
          return { changes: Number(result.changes) };
        }),
    };
  }

  /** Driver errors leave as LeaseholdErrors that name the file and what to do (storageErrors.ts). */
  private guard<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw toStorageError(error, this.filename, this.report);
    }
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async all<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    await this.exclusive;
    return this.direct.all<Row>(sql, params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    await this.exclusive;
    return this.direct.run(sql, params);
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const result = this.exclusive.then(async () => {
      this.guard(() => this.database.exec('BEGIN IMMEDIATE'));
      try {
        const value = await fn(this.direct);
        this.guard(() => this.database.exec('COMMIT'));
        return value;
      } catch (error) {
        if (this.database.isTransaction) this.database.exec('ROLLBACK');
        throw error;
      }
    });
    this.exclusive = result.catch(() => undefined);
    return result;
  }

  async execScript(sql: string): Promise<void> {
    await this.exclusive;
    this.guard(() => this.database.exec(sql));
  }

  async close(): Promise<void> {
    await this.exclusive;
    this.statements.clear();
    this.database.close();
  }
}
