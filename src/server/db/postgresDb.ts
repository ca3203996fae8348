// Team storage: PostgreSQL through `pg`. Several lease servers may share one database.
import pg from 'pg';
import type { Db, SqlExecutor, SqlValue } from './sql.ts';

// BIGINT columns hold epoch milliseconds, well inside Number's exact range.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Rewrites `?` placeholders as `$1, $2, ...`. Our SQL never uses `?` otherwise. */
export function numberPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

function executorFor(client: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    all: async <Row>(sql: string, params: readonly SqlValue[] = []) =>
      (await client.query(numberPlaceholders(sql), params as unknown[])).rows as Row[],
    run: async (sql: string, params: readonly SqlValue[] = []) => ({
      changes: (await client.query(numberPlaceholders(sql), params as unknown[])).rowCount ?? 0,
    }),
  };
}

export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly direct: SqlExecutor;

  constructor(connectionString: string, options: { schema?: string; max?: number } = {}) {
    this.pool = new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      // A per-test schema keeps suites isolated inside one shared database.
      options: options.schema ? `-c search_path=${options.schema}` : undefined,
    });
    this.direct = executorFor(this.pool);
  }

  all<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.direct.all<Row>(sql, params);
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.direct.run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const value = await fn(executorFor(client));
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async execScript(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
