// Team storage: PostgreSQL through `pg`. Several lease servers may share one database.
import pg from 'pg';
import type { Db, SqlExecutor, SqlValue } from './sql.ts';
import { type StorageErrorReporter, toStorageError } from './storageErrors.ts';
import { LeaseholdError } from '../../core/errors.ts';

// BIGINT columns hold epoch milliseconds, well inside Number's exact range.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Rewrites `?` placeholders as `$1, $2, ...`. Our SQL never uses `?` otherwise. */
export function numberPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

const CONNECT_TIMEOUT_MS = 5_000;
const ROLLBACK_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type Guard = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * Every query with parameters runs as a named prepared statement: each connection parses and
 * plans it once, and later calls send only the name and the values. One name per SQL text,
 * for the life of the process (our SQL texts are a small fixed set).
 */
const preparedBySql = new Map<string, { name: string; text: string }>();
function queryConfig(sql: string, params: readonly SqlValue[]): pg.QueryConfig | string {
  if (params.length === 0) return numberPlaceholders(sql);
  let prepared = preparedBySql.get(sql);
  if (!prepared) {
    prepared = { name: `leasehold_${preparedBySql.size}`, text: numberPlaceholders(sql) };
    preparedBySql.set(sql, prepared);
  }
  return { ...prepared, values: params as unknown[] };
}

function executorFor(client: pg.Pool | pg.PoolClient, guard: Guard): SqlExecutor {
  const query = (sql: string, params: readonly SqlValue[]) => guard(() => client.query(queryConfig(sql, params) as pg.QueryConfig));
  return {
    all: async <Row>(sql: string, params: readonly SqlValue[] = []) => (await query(sql, params)).rows as Row[],
    run: async (sql: string, params: readonly SqlValue[] = []) => ({ changes: (await query(sql, params)).rowCount ?? 0 }),
  };
}

/** "PostgreSQL host:port/db" (never the password), for messages that must say which database failed. */
function describeDatabase(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `PostgreSQL ${url.host}${url.pathname}`;
  } catch {
    return 'the PostgreSQL database';
  }
}

export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly direct: SqlExecutor;

  private readonly guard: Guard;

  constructor(connectionString: string, options: { schema?: string; max?: number; report?: StorageErrorReporter } = {}) {
    const where = describeDatabase(connectionString);
    // Driver errors leave as LeaseholdErrors that name the database and what to do (storageErrors.ts).
    this.guard = async (run) => {
      try {
        return await run();
      } catch (error) {
        throw toStorageError(error, where, options.report);
      }
    };
    this.pool = new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      // While the database is away a request waits at most this long for a connection, then
      // is refused (503 unavailable) instead of hanging; TCP keepalive finds dead sockets.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      // A per-test schema keeps suites isolated inside one shared database.
      options: options.schema ? `-c search_path=${options.schema}` : undefined,
    });
    // An idle pooled connection dropped by the server (a restart, a failover) emits 'error' on
    // the pool; unheard, that would crash the process. The pool discards it and connects anew
    // on the next query, so reporting it is all there is to do.
    this.pool.on('error', (error) => options.report?.(error, where));
    this.direct = executorFor(this.pool, this.guard);
  }

  all<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
    return this.direct.all<Row>(sql, params);
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.direct.run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.guard(() => this.pool.connect());
    let value: T;
    try {
      await this.guard(() => client.query('BEGIN'));
      value = await fn(executorFor(client, this.guard));
      await this.guard(() => client.query('COMMIT'));
    } catch (error) {
      // A connection the database dropped mid-transaction is destroyed, never handed to the
      // next request; its ROLLBACK is bounded (a half-dead socket must not hold a request).
      const lost = error instanceof LeaseholdError && error.code === 'unavailable';
      if (!lost) await withTimeout(client.query('ROLLBACK'), ROLLBACK_TIMEOUT_MS).catch(() => undefined);
      client.release(lost ? (error as Error) : undefined);
      throw error;
    }
    client.release();
    return value;
  }

  async execScript(sql: string): Promise<void> {
    await this.guard(() => this.pool.query(sql));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
