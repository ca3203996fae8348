// The SQL seam both storage drivers implement. Queries are written once with `?`
// placeholders; the PostgreSQL driver numbers them. Dialect differences stay in the
// migrations and in the few queries that ask `db.dialect`.

export type Dialect = 'sqlite' | 'postgres';
export type SqlValue = string | number | bigint | boolean | null;

export interface SqlExecutor {
  all<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
}

export interface Db extends SqlExecutor {
  readonly dialect: Dialect;
  /** Runs fn with exclusive use of one connection inside BEGIN/COMMIT; ROLLBACK on throw. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs a multi-statement script (migrations). */
  execScript(sql: string): Promise<void>;
  close(): Promise<void>;
}

export async function first<Row>(executor: SqlExecutor, sql: string, params?: readonly SqlValue[]): Promise<Row | undefined> {
  const rows = await executor.all<Row>(sql, params);
  return rows[0];
}
