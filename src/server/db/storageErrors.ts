// What a storage failure says to a caller. Raw driver text ("invalid byte sequence for encoding
// UTF8: 0x00", "UNIQUE constraint failed: ...", a PostgreSQL host name) never reaches an agent
// or a client: every driver error becomes a LeaseholdError that names the database and what
// to do, or, for a value the database cannot store, an invalid_argument. The raw error is
// reported (logged) once here, so an `internal` answer on any surface has its cause in the log.
import { LeaseholdError } from '../../core/errors.ts';

export type StorageErrorReporter = (error: unknown, where: string) => void;

// SQLite primary result codes (errcode & 0xff) that mean the file or the disk, not the query.
const SQLITE_ADVICE: Record<number, string> = {
  5: 'the database is locked by another process; retry, and make sure only one lease server uses this data dir',
  8: 'the file or its directory is read-only; check its owner and mode',
  10: 'the disk failed to read or write it; check the disk',
  11: 'the file is damaged; stop the server, back the file up and restore it (the server checks it at start)',
  13: 'the disk is full; free space on it',
  14: 'the file cannot be opened; check that its directory exists and is yours',
  26: 'the file is not a SQLite database; restore it from a backup',
};

function postgresAdvice(sqlstate: string): string | undefined {
  if (sqlstate.startsWith('08') || sqlstate.startsWith('57') || sqlstate === '53300') return 'the database server is unreachable or refusing connections; check that it runs and that the connection string is right';
  if (sqlstate.startsWith('53')) return 'the database server is out of resources (disk, memory); free some';
  if (sqlstate.startsWith('28')) return 'the database refused the credentials; check the connection string';
  if (sqlstate === '3D000') return 'the database does not exist; create it or fix the connection string';
  return undefined;
}

const CONNECTION_LOST = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)/i;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE']);

const SQLITE_CONSTRAINTS: Record<number, string> = { 275: 'CHECK', 2067: 'UNIQUE', 1555: 'PRIMARY KEY', 787: 'FOREIGN KEY', 1299: 'NOT NULL' };
const POSTGRES_CONSTRAINTS: Record<string, string> = { '23514': 'CHECK', '23505': 'UNIQUE', '23503': 'FOREIGN KEY', '23502': 'NOT NULL' };

/** Which kind of constraint refused a row (never its column or value), or undefined. */
function constraintKind(raw: { code?: unknown; errcode?: unknown }): string | undefined {
  if (typeof raw.errcode === 'number') return (raw.errcode & 0xff) === 19 ? (SQLITE_CONSTRAINTS[raw.errcode] ?? 'a') : undefined;
  if (typeof raw.code === 'string' && raw.code.startsWith('23')) return POSTGRES_CONSTRAINTS[raw.code] ?? 'a';
  return undefined;
}

/** The caller-facing error for a driver error raised while using `where` (a file path or a database name). */
export function toStorageError(error: unknown, where: string, report?: StorageErrorReporter): LeaseholdError {
  if (error instanceof LeaseholdError) return error;
  report?.(error, where);
  const raw = error as { code?: unknown; errcode?: unknown; message?: unknown };
  const constraint = constraintKind(raw);
  if (constraint) return new LeaseholdError('internal', `storage error in ${where}: the database refused the row (${constraint} constraint); see the server log`);
  if (typeof raw.errcode === 'number') {
    const advice = SQLITE_ADVICE[raw.errcode & 0xff];
    if (advice) return new LeaseholdError('unavailable', `storage error in ${where}: ${advice}`, { details: { file: where } });
  }
  if (typeof raw.code === 'string' && /^[0-9A-Z]{5}$/.test(raw.code)) {
    // Data exceptions: a value the column cannot hold (U+0000 in text, an int beyond 32 bits).
    if (raw.code === '22021' || raw.code === '22P05') return new LeaseholdError('invalid_argument', 'a text value contains a character the database cannot store (U+0000 is refused)');
    if (raw.code === '22003') return new LeaseholdError('invalid_argument', 'a number is out of the range the database can store');
    if (raw.code.startsWith('22')) return new LeaseholdError('invalid_argument', 'a value is not valid for the database');
    const advice = postgresAdvice(raw.code);
    if (advice) return new LeaseholdError('unavailable', `storage error in ${where}: ${advice}`);
  }
  // pg's own words when the server goes away mid-query or while connecting (no SQLSTATE).
  if (typeof raw.message === 'string' && CONNECTION_LOST.test(raw.message)) {
    return new LeaseholdError('unavailable', `storage error in ${where}: the connection to the database server was lost; retry in a moment (the server reconnects by itself)`);
  }
  if (typeof raw.code === 'string' && NETWORK_CODES.has(raw.code)) {
    return new LeaseholdError('unavailable', `storage error in ${where}: the database server is unreachable (${raw.code}); check that it runs and that the connection string is right`);
  }
  return new LeaseholdError('internal', `storage error in ${where}; see the server log`);
}
