// Embedded storage: node:sqlite (WAL) in one file. node:sqlite is synchronous, so the async
// facade serialises transactions: nothing else touches the connection while a transaction's
// callback awaits. Group commit: transactions asked for while one batch runs (or in the same
// turn of the event loop) run together in the next batch, one BEGIN and one COMMIT for all,
// each inside its own SAVEPOINT, so one that throws is rolled back alone and only its caller
// sees the error. No caller hears of success before the COMMIT that makes it durable; if the
// COMMIT fails, every transaction of the batch fails with it.
import { chmodSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Db, SqlExecutor, SqlValue } from './sql.ts';
import { type StorageErrorReporter, toStorageError } from './storageErrors.ts';

type SqliteParam = string | number | bigint | null;

function toSqliteParams(params: readonly SqlValue[]): SqliteParam[] {
  return params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

/**
 * A prepared statement and, when it returns rows, how its rows are built from the arrays
 * node:sqlite returns. node:sqlite makes each row object in dictionary mode, its keys interned
 * anew for every row: slow to build and to read, and the spreads that turn rows into records
 * copy them slowly again. A row built key by key (`row[name] = value`) is no better past ~17
 * columns: V8 turns an object to dictionary mode once keyed stores add that many properties,
 * and a wait-lease row has 50. So each statement gets a function that returns its row as one
 * object literal: all of a statement's rows share one hidden class, at any width. A 13-column
 * todo row and its record took 1.8 µs key by key, 4.4 µs as node:sqlite's object; 1,000
 * 50-column rows took 3.4 ms built by literal against 12.5 ms key by key (cold), 0.13 against
 * 4-14 ms warm.
 */
interface Prepared {
  statement: StatementSync;
  row: RowBuilder | undefined;
}

type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * A function returning `{ [columns[i]]: values[i], ... }` as an object literal. The names are
 * SQLite's column names of our own SQL, each written as a JSON string. Where code may not be
 * made from strings (`--disallow-code-generation-from-strings`, say through NODE_OPTIONS), the
 * row is built key by key instead: slower past ~17 columns, but every read still works.
 */
function rowBuilder(columns: readonly string[]): RowBuilder {
  // A quoted "__proto__" key in a literal would set the prototype; computed, it is a property like the rest.
  const fields = columns.map((name, index) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: values[${index}]`);
  try {
    return new Function('values', `return { ${fields.join(', ')} };`) as RowBuilder;
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    return keyedRowBuilder(columns);
  }
}

/** The row built key by key; "__proto__" is defined as an own property, not assigned (which would set the prototype). */
function keyedRowBuilder(columns: readonly string[]): RowBuilder {
  return (values) => {
    const row: Record<string, unknown> = {};
    columns.forEach((name, index) => {
      if (name === '__proto__') Object.defineProperty(row, name, { value: values[index], writable: true, enumerable: true, configurable: true });
      else row[name] = values[index];
    });
    return row;
  };
}

interface Pending {
  fn: (tx: SqlExecutor) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  private readonly database: DatabaseSync;
  private readonly statements = new Map<string, Prepared>();
  /** Transactions waiting for the next batch. */
  private pending: Pending[] = [];
  /** The batch being run, if any; reads and writes outside a transaction wait for it. */
  private running: Promise<void> | undefined;
  private scheduled = false;
  /** The last transaction asked for: a read or write outside a transaction comes after it, as it was asked after it. */
  private tail: Promise<unknown> = Promise.resolve();
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
      all: async <Row>(sql: string, params: readonly SqlValue[] = []) =>
        this.guard(() => {
          const { statement, row } = this.prepared(sql);
          const rows = statement.all(...toSqliteParams(params));
          return (row ? rows.map((values) => row(values as unknown as unknown[])) : rows) as Row[];
        }),
      run: async (sql: string, params: readonly SqlValue[] = []) =>
        this.guard(() => {
          const result = this.prepared(sql).statement.run(...toSqliteParams(params));
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

  private prepared(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      const statement = this.database.prepare(sql);
      const columns = statement.columns().map((column) => column.name);
      if (columns.length > 0) statement.setReturnArrays(true);
      prepared = { statement, row: columns.length > 0 ? rowBuilder(columns) : undefined };
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  private statement(sql: string): StatementSync {
    return this.prepared(sql).statement;
  }

  /**
   * Waits for the transactions asked for before this call, and until no batch is running (a
   * batch's uncommitted rows must not be read from outside it).
   */
  private async idle(): Promise<void> {
    await this.tail;
    while (this.running) await this.running;
  }

  async all<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    await this.idle();
    return this.direct.all<Row>(sql, params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    await this.idle();
    return this.direct.run(sql, params);
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const result = new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Starts the next batch once the current one ends and this turn's callers have queued theirs. */
  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.running || this.pending.length === 0) return;
      const batch = this.pending;
      this.pending = [];
      this.running = this.runBatch(batch).finally(() => {
        this.running = undefined;
        if (this.pending.length > 0) this.schedule();
      });
    });
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    const done: Array<{ item: Pending; value: unknown }> = [];
    const failed: Array<{ item: Pending; error: unknown }> = [];
    const savepoints = batch.length > 1;
    let open = false;
    try {
      for (const item of batch) {
        if (!open) {
          this.guard(() => this.statement('BEGIN IMMEDIATE').run());
          open = true;
        }
        if (savepoints) this.guard(() => this.statement('SAVEPOINT tx').run());
        try {
          const value = await item.fn(this.direct);
          if (savepoints) this.guard(() => this.statement('RELEASE tx').run());
          done.push({ item, value });
        } catch (error) {
          failed.push({ item, error });
          if (!this.database.isTransaction) {
            // SQLite rolled the whole transaction back (some I/O errors do): the batch's earlier
            // transactions are lost with it.
            open = false;
            for (const lost of done.splice(0)) failed.push({ item: lost.item, error });
          } else if (savepoints) {
            this.database.exec('ROLLBACK TO tx; RELEASE tx');
          } else {
            this.database.exec('ROLLBACK');
            open = false;
          }
        }
      }
      if (open) this.guard(() => this.statement('COMMIT').run());
    } catch (error) {
      // BEGIN, a savepoint or COMMIT failed: nothing of this batch is committed.
      if (this.database.isTransaction) this.database.exec('ROLLBACK');
      for (const lost of done.splice(0)) failed.push({ item: lost.item, error });
      const ran = new Set([...failed.map((entry) => entry.item)]);
      for (const item of batch) if (!ran.has(item)) failed.push({ item, error });
    }
    for (const { item, value } of done) item.resolve(value);
    for (const { item, error } of failed) item.reject(error);
  }

  async execScript(sql: string): Promise<void> {
    await this.settled();
    this.guard(() => this.database.exec(sql));
  }

  /** Waits until every transaction asked for so far has ended. */
  private async settled(): Promise<void> {
    while (this.running || this.pending.length > 0 || this.scheduled) {
      await (this.running ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  async close(): Promise<void> {
    await this.settled();
    this.statements.clear();
    this.database.close();
  }
}
