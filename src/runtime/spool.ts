// Lives in src/runtime because both sides use it: the hook writes (src/claude), the server
// replays (src/server/hooks). src/claude/spool.ts re-exports it.
// The delivery spool: where a hook puts an event when the server cannot be reached, so
// nothing is lost (the seed's push-with-no-retry failure). One file per event, written
// atomically (tmp in the same dir, fsync, rename), named by a time-ordered id so a
// directory listing is the replay order.
//
// Exactly-once is split between two places:
// - here: a replayer claims a file by renaming it into processing/ before applying it, so
//   two racing replayers never both apply one file; a replay lock keeps them from
//   interleaving (which would break order);
// - the server: a crash after apply but before the delete replays the event again, so the
//   server MUST treat the event id as an idempotency key (apply once, acknowledge repeats).
//   The hook assigns the id before its first HTTP attempt and spools under the same id, so
//   an HTTP request that succeeded but timed out is also deduplicated there.

import { join } from 'node:path';
import { invalidArgument } from '../core/errors.ts';
import { nodeFs } from './builtins.ts';

// node:fs through builtins.ts (the hook process loads this module; see there). fs/promises
// is reached only by the replay, which runs in the server.
const { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } = nodeFs();
const fsp = () => nodeFs().promises;

export interface SpooledEvent {
  /** Time-ordered, filename-safe; the server's idempotency key. */
  id: string;
  [key: string]: unknown;
}

export interface SpoolEntry {
  id: string;
  path: string;
  event: SpooledEvent;
}

export interface ReplayResult {
  /** Ids applied and deleted, in order. */
  applied: string[];
  /** Set when replay stopped early; that event and everything after it stays spooled. */
  failed?: { id: string; error: string };
  /** Files that were not JSON (disk damage, a foreign file); moved to corrupt/ so they never block replay. */
  quarantined: string[];
  /** True when another replayer holds the lock; nothing was done. */
  busy: boolean;
}

/**
 * Eight random hex digits: the tie-breaker in event ids and tmp names. Not a secret (ids sit in
 * file names; the epoch ms, pid and counter before it already make an id unique), so
 * Math.random serves, and the hook process need not load node:crypto for it (~10 ms).
 */
function randomHex(): string {
  return Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
}

const EVENT_FILE = /^[0-9A-Za-z][0-9A-Za-z._-]*\.json$/;
const ID_PATTERN = /^[0-9A-Za-z][0-9A-Za-z._-]*$/;
const PROCESSING_DIR = 'processing';
const CORRUPT_DIR = 'corrupt';
const LOCK_FILE = '.replay.lock';
/** A claim older than this whose claimer is gone goes back into the queue. */
const STALE_CLAIM_MS = 60_000;

let idCounter = 0;

/**
 * A new event id: zero-padded epoch ms, pid, per-process counter, random. Sorting ids as
 * strings sorts events by creation time; pid + counter + random make ids unique across the
 * many hook processes Claude Code runs in parallel.
 */
export function newEventId(nowMs: number = Date.now()): string {
  idCounter = (idCounter + 1) % 1_000_000;
  return [
    String(Math.floor(nowMs)).padStart(15, '0'),
    String(process.pid).padStart(10, '0'),
    String(idCounter).padStart(6, '0'),
    randomHex(),
  ].join('-');
}

function ensureDir(dir: string): void {
  // 0700: events name sessions, commands and tokens' owners; only this user may read them.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

function fsyncDir(dir: string): void {
  // Makes the rename itself durable. Not supported everywhere (e.g. some macOS filesystems); the
  // file's own fsync already happened, so a failure here only weakens crash durability.
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* best effort */
  }
}

/**
 * Writes one event atomically and returns it with its id. Keeps `event.id` when given (the
 * hook's pre-assigned id), otherwise assigns one. Readers never see a partial file: they skip
 * the dot-prefixed tmp name, and the rename is atomic within one directory.
 */
export function spoolEvent(dir: string, event: Record<string, unknown>): SpooledEvent {
  const id = typeof event.id === 'string' ? event.id : newEventId();
  if (!ID_PATTERN.test(id)) {
    throw invalidArgument('id', `spool event id "${id}" must be letters, digits, ".", "_" or "-" and not start with "."`);
  }
  const spooled: SpooledEvent = { ...event, id };
  ensureDir(dir);
  const finalPath = join(dir, `${id}.json`);
  const tmpPath = join(dir, `.tmp-${id}-${randomHex()}`);
  const fd = openSync(tmpPath, 'wx', 0o600);
  try {
    const bytes = Buffer.from(JSON.stringify(spooled) + '\n', 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    try {
      unlinkSync(tmpPath);
    } catch {
      /* already gone */
    }
    throw error;
  }
  closeSync(fd);
  renameSync(tmpPath, finalPath);
  fsyncDir(dir);
  return spooled;
}

function listEventFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => EVENT_FILE.test(name))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function parseEvent(text: string): SpooledEvent | null {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as SpooledEvent).id === 'string') {
      return value as SpooledEvent;
    }
  } catch {
    /* fall through */
  }
  return null;
}

/** The spooled events in replay order. Tmp files and unparseable files are left out. */
export function readSpool(dir: string): SpoolEntry[] {
  const entries: SpoolEntry[] = [];
  for (const name of listEventFiles(dir)) {
    const path = join(dir, name);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // claimed by a replayer since the listing
    }
    const event = parseEvent(text);
    if (event) entries.push({ id: name.slice(0, -'.json'.length), path, event });
  }
  return entries;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the replay lock, or returns false when a live replayer holds it. The lock file is
 * created with its content in one step (hard link of a written tmp file), so a reader never
 * sees an empty lock and mistakes a live holder for a dead one. Residual race, accepted: two
 * replayers taking over the same dead holder's lock at the same instant may both run; the
 * per-file claim still keeps each event to one apply.
 */
async function takeLock(lockPath: string): Promise<boolean> {
  const tmp = `${lockPath}.${process.pid}-${randomHex()}`;
  await fsp().writeFile(tmp, String(process.pid), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await fsp().link(tmp, lockPath);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number((await fsp().readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (!Number.isInteger(holder) || holder <= 0 || isAlive(holder)) return false;
      // The holder died mid-replay; its claims are recovered below. Remove and retry once.
      await fsp().unlink(lockPath).catch(() => undefined);
    }
    return false;
  } finally {
    await fsp().unlink(tmp).catch(() => undefined);
  }
}

/** Puts back claims whose replayer died, so their events are replayed (idempotently) again. */
async function recoverStaleClaims(dir: string, nowMs: number): Promise<void> {
  const processing = join(dir, PROCESSING_DIR);
  let names: string[];
  try {
    names = await fsp().readdir(processing);
  } catch {
    return;
  }
  for (const name of names) {
    // Claimed names are "<id>.json.<pid>"; the pid says whether the claimer still runs.
    const match = /^(.+\.json)\.(\d+)$/.exec(name);
    if (!match) continue;
    const claimPath = join(processing, name);
    const stat = await fsp().stat(claimPath).catch(() => null);
    if (stat === null) continue;
    // We hold the replay lock, so a claim of our own pid is a leftover of an earlier failed
    // put-back; another pid's claim is stale once that process is gone or the claim is old.
    const claimer = Number(match[2]);
    const stale = claimer === process.pid || !isAlive(claimer) || nowMs - stat.ctimeMs > STALE_CLAIM_MS;
    if (stale) await fsp().rename(claimPath, join(dir, match[1])).catch(() => undefined);
  }
}

/** A tmp file that old belongs to a hook that died mid-write; its event was never spooled. */
async function removeAbandonedTmpFiles(dir: string, nowMs: number): Promise<void> {
  for (const name of await fsp().readdir(dir)) {
    if (!name.startsWith('.tmp-')) continue;
    const path = join(dir, name);
    const stat = await fsp().stat(path).catch(() => null);
    if (stat !== null && nowMs - stat.mtimeMs > STALE_CLAIM_MS) await fsp().unlink(path).catch(() => undefined);
  }
}

/**
 * Applies spooled events oldest first. Each event is claimed (renamed into processing/)
 * before `apply`, deleted only after `apply` resolves, and put back if it rejects; replay
 * stops at the first failure so later events never overtake an earlier one.
 */
export async function replaySpool(
  dir: string,
  apply: (event: SpooledEvent) => Promise<void>,
  options: { nowMs?: number } = {},
): Promise<ReplayResult> {
  const result: ReplayResult = { applied: [], quarantined: [], busy: false };
  if ((await fsp().stat(dir).catch(() => null)) === null) return result; // nothing was ever spooled
  ensureDir(join(dir, PROCESSING_DIR));
  const lockPath = join(dir, LOCK_FILE);
  if (!(await takeLock(lockPath))) return { ...result, busy: true };
  try {
    const nowMs = options.nowMs ?? Date.now();
    await recoverStaleClaims(dir, nowMs);
    await removeAbandonedTmpFiles(dir, nowMs);
    for (const name of listEventFiles(dir)) {
      const id = name.slice(0, -'.json'.length);
      const queuedPath = join(dir, name);
      const claimPath = join(dir, PROCESSING_DIR, `${name}.${process.pid}`);
      try {
        await fsp().rename(queuedPath, claimPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another replayer has it
        throw error;
      }
      const event = parseEvent(await fsp().readFile(claimPath, 'utf8'));
      if (event === null) {
        ensureDir(join(dir, CORRUPT_DIR));
        await fsp().rename(claimPath, join(dir, CORRUPT_DIR, name));
        result.quarantined.push(id);
        continue;
      }
      try {
        await apply(event);
      } catch (error) {
        await fsp().rename(claimPath, queuedPath);
        result.failed = { id, error: error instanceof Error ? error.message : String(error) };
        break;
      }
      await fsp().unlink(claimPath);
      result.applied.push(id);
    }
  } finally {
    await fsp().unlink(lockPath).catch(() => undefined);
  }
  return result;
}
