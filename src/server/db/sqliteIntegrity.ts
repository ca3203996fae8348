// The embedded database is checked before the server trusts it, so it never silently starts
// empty over a file that held data (a zero-length leasehold.db, a damaged or lost WAL after
// kill -9) and never runs on a file with a damaged page. What "held data" means: a marker file
// next to the database (leasehold.db.held-data) is written once the schema exists; a database
// that reads as empty while the marker is there has lost its data, and the server refuses to
// start, naming the file and what to do, rather than create a fresh schema over it.
//
// The check opens its own read-only connection before the server's connection (which sets
// pragmas and migrates) touches the file: a damaged WAL must not be reset by a first write.
import { closeSync, existsSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { LeaseholdError } from '../../core/errors.ts';

export const heldDataMarker = (file: string): string => `${file}.held-data`;

function refuse(file: string, problem: string, todo: string): never {
  throw new LeaseholdError('unavailable', `${file}: ${problem}. ${todo}`, { details: { file } });
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

const backupAdvice = (file: string) =>
  `The server did not start, so nothing was overwritten. Restore ${file} (with its -wal file) from a backup; or, to start with an empty database, move the damaged files aside (\`mv ${file} ${file}.damaged; rm -f ${file}-wal ${file}-shm ${heldDataMarker(file)}\`) and start again.`;

/**
 * Why a write-ahead log's header is damaged, or null. SQLite ignores a log whose header is bad
 * (magic number or checksum) and opens the database as of the last checkpoint: every
 * transaction since would vanish without a word. (Bad frames after good ones are a torn tail
 * from a crash, which SQLite rightly drops; the header is written once per log.)
 */
export function damagedWalHeader(walFile: string): string | null {
  const header = Buffer.alloc(32);
  const fd = openSync(walFile, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, 32, 0);
  } finally {
    closeSync(fd);
  }
  if (read < 32) return 'its header is truncated';
  const magic = header.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return 'its header has no WAL magic number';
  const bigEndian = magic === 0x377f0683;
  let s0 = 0;
  let s1 = 0;
  for (let offset = 0; offset < 24; offset += 8) {
    const x0 = bigEndian ? header.readUInt32BE(offset) : header.readUInt32LE(offset);
    const x1 = bigEndian ? header.readUInt32BE(offset + 4) : header.readUInt32LE(offset + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  if (s0 !== header.readUInt32BE(24) || s1 !== header.readUInt32BE(28)) return 'its header checksum does not match';
  return null;
}

/** Refuses (with the file and what to do) a database file that lost its data or is damaged. */
export function checkSqliteFile(file: string): void {
  const heldData = existsSync(heldDataMarker(file));
  const size = sizeOf(file);
  const walSize = sizeOf(`${file}-wal`) ?? 0;
  if (size === undefined) {
    if (heldData) refuse(file, 'the database file is missing, but it held data', backupAdvice(file));
    return; // first start: the server creates it
  }
  if (size === 0 && walSize === 0) {
    // A fresh database in WAL mode can be 0 bytes with its pages in the -wal file; 0 and 0 is nothing at all.
    if (heldData) refuse(file, 'the database file is empty (0 bytes) and has no write-ahead log, but it held data', backupAdvice(file));
    return;
  }
  if (walSize > 0) {
    const damage = damagedWalHeader(`${file}-wal`);
    if (damage) refuse(file, `its write-ahead log ${file}-wal is damaged (${damage}); opening it would silently drop every change since the last checkpoint`, backupAdvice(file));
  }
  let tables: number;
  let problems: string[];
  let database: DatabaseSync | undefined;
  try {
    database = new DatabaseSync(file, { readOnly: true });
    tables = Number((database.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() as { n: number }).n);
    // quick_check reads every page (O(size), milliseconds for a lease database) and catches a garbage page.
    problems = (database.prepare('PRAGMA quick_check(5)').all() as Array<Record<string, string>>).map((row) => Object.values(row)[0]!).filter((text) => text !== 'ok');
  } catch (error) {
    refuse(file, `cannot be read as a SQLite database (${(error as Error).message})`, backupAdvice(file));
  } finally {
    database?.close();
  }
  if (problems.length > 0) refuse(file, `failed its integrity check (${problems.join('; ')})`, backupAdvice(file));
  if (tables === 0 && heldData) {
    refuse(file, `reads as an empty database, but it held data: its write-ahead log (${file}-wal) is damaged or missing`, backupAdvice(file));
  }
}

/** Records that this database now holds data (after migrations), so losing it later is noticed. */
export function markHeldData(file: string): void {
  if (!existsSync(heldDataMarker(file))) {
    writeFileSync(heldDataMarker(file), 'Leasehold: leasehold.db held data. If it goes missing or reads empty, the server refuses to start over it.\n', { mode: 0o600 });
  }
}
