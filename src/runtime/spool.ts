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
import { currentHolder, holderGone, parseHolder } from './lockHolder.ts';

// node:fs through builtins.ts (the hook process loads this module; see there). fs/promises
// is reached only by the replay, which runs in the server.
const { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } = nodeFs();
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

/** An entry set aside because it can never be applied; reported once, with where it now is and why. */
export interface QuarantinedEntry {
  name: string;
  /** Where the entry is now: in quarantine/, or left in place when even moving it failed. */
  path: string;
  reason: string;
}

export interface ReplayResult {
  /** Ids applied and deleted, in order. */
  applied: string[];
  /** Set when replay stopped early because `apply` failed; that event and everything after it stays spooled. */
  failed?: { id: string; error: string };
  /** Entries newly set aside this run (unreadable, not a file, not JSON, not an event): they never block the entries behind them. */
  quarantined: QuarantinedEntry[];
  /** True when another live replayer holds the lock; nothing was done. */
  busy: boolean;
  /** Problems with the spool itself that this run repaired or could not repair (each reported once per cause). */
  notices: string[];
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
export const QUARANTINE_DIR = 'quarantine';
const LOCK_FILE = '.replay.lock';
/** A hook event body is at most 64 KiB; a spool entry far past that is not one of ours. */
const MAX_ENTRY_BYTES = 1024 * 1024;
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

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;
const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

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
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
}

/** The event in a spool file's text, or why it is not one. */
function parseEvent(text: string): SpooledEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${errorText(error)})`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  if (typeof (value as SpooledEvent).id !== 'string') return 'has no string "id"';
  return value as SpooledEvent;
}

/** Why a directory entry cannot be a spooled event without even opening it, or null. A FIFO would block a read for ever. */
function notAnEventFile(path: string): string | null {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? null : `cannot be inspected (${errorCode(error) ?? errorText(error)})`;
  }
  if (stat.isSymbolicLink()) return 'is a symbolic link, not a file';
  if (stat.isDirectory()) return 'is a directory, not a file';
  if (!stat.isFile()) return 'is not a regular file';
  if (stat.size > MAX_ENTRY_BYTES) return `is ${stat.size} bytes, more than any hook event (${MAX_ENTRY_BYTES})`;
  return null;
}

/** The spooled events in replay order. Tmp files and entries that are not readable events are left out. */
export function readSpool(dir: string): SpoolEntry[] {
  const entries: SpoolEntry[] = [];
  for (const name of listEventFiles(dir)) {
    const path = join(dir, name);
    if (notAnEventFile(path) !== null) continue;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // claimed by a replayer since the listing, or unreadable
    }
    const event = parseEvent(text);
    if (typeof event !== 'string') entries.push({ id: name.slice(0, -'.json'.length), path, event });
  }
  return entries;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** Nonces of the replay locks this process holds now: a lock naming this very process is live only if listed here. */
const heldLocks = new Set<string>();

type LockOutcome = { held: string } | { busy: true } | { unlocked: true };

/**
 * Takes the replay lock. The lock names its holder by pid and start time (lockHolder.ts), so
 * it cannot outlive the holder: a dead pid, a pid reused by another process (a container's
 * pid 1 after a restart), an empty or garbage file, or a lock this process left behind is
 * removed, with a notice. The file is created with its content in one step (hard link of a
 * written tmp file), so a reader never sees a live holder's lock empty. When the lock cannot
 * be taken or removed at all (a foreign directory in its place), replay runs unlocked: the
 * lock only orders concurrent replayers, and the per-file claim still applies each event once.
 */
async function takeLock(lockPath: string, notices: string[]): Promise<LockOutcome> {
  const nonce = `${randomHex()}${randomHex()}`;
  const tmp = `${lockPath}.${process.pid}-${nonce}`;
  const me = currentHolder();
  try {
    await fsp().writeFile(tmp, JSON.stringify({ ...me, nonce }), { mode: 0o600 });
  } catch (error) {
    notices.push(`cannot write the replay lock next to ${lockPath} (${errorCode(error) ?? errorText(error)}); replaying without it`);
    return { unlocked: true };
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await fsp().link(tmp, lockPath);
        heldLocks.add(nonce);
        return { held: nonce };
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') break;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(await fsp().readFile(lockPath, 'utf8'));
      } catch {
        parsed = undefined;
      }
      const holder = parseHolder(parsed);
      let gone: string | null;
      if (holder !== undefined && holder.pid === me.pid && holder.start === me.start) {
        const heldHere = heldLocks.has(String((parsed as { nonce?: unknown }).nonce));
        gone = heldHere ? null : 'this process left it behind';
      } else {
        gone = holderGone(holder);
      }
      if (gone === null) return { busy: true };
      notices.push(`removed a stale replay lock ${lockPath}: ${gone}`);
      await fsp()
        .rm(lockPath, { recursive: true, force: true })
        .catch(() => undefined);
    }
    notices.push(`cannot take the replay lock ${lockPath}; replaying without it`);
    return { unlocked: true };
  } finally {
    await fsp()
      .unlink(tmp)
      .catch(() => undefined);
  }
}

async function releaseLock(lockPath: string, nonce: string): Promise<void> {
  heldLocks.delete(nonce);
  try {
    const parsed = JSON.parse(await fsp().readFile(lockPath, 'utf8')) as { nonce?: unknown };
    if (parsed.nonce === nonce) await fsp().unlink(lockPath);
  } catch {
    /* already gone or replaced */
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
    const stat = await fsp()
      .lstat(claimPath)
      .catch(() => null);
    if (stat === null) continue;
    // We hold the replay lock, so a claim of our own pid is a leftover (of an earlier failed
    // put-back, or of a predecessor that had our pid); another pid's claim is stale once that
    // process is gone or the claim is old.
    const claimer = Number(match[2]);
    const stale = claimer === process.pid || !isAlive(claimer) || nowMs - stat.ctimeMs > STALE_CLAIM_MS;
    if (stale)
      await fsp()
        .rename(claimPath, join(dir, match[1]))
        .catch(() => undefined);
  }
}

/** A tmp file that old belongs to a hook that died mid-write; its event was never spooled. */
async function removeAbandonedTmpFiles(dir: string, nowMs: number): Promise<void> {
  for (const name of await fsp().readdir(dir)) {
    if (!name.startsWith('.tmp-')) continue;
    const path = join(dir, name);
    const stat = await fsp()
      .lstat(path)
      .catch(() => null);
    if (stat !== null && nowMs - stat.mtimeMs > STALE_CLAIM_MS)
      await fsp()
        .rm(path, { recursive: true, force: true })
        .catch(() => undefined);
  }
}

/**
 * Entries that could be neither applied nor moved aside (a directory owned by root cannot be
 * moved into another directory by us): skipped from then on, and reported only the first
 * time. Keyed by spool dir, then entry name.
 */
const stuckEntries = new Map<string, Map<string, string>>();

function stuckIn(dir: string): Map<string, string> {
  let stuck = stuckEntries.get(dir);
  if (!stuck) stuckEntries.set(dir, (stuck = new Map()));
  return stuck;
}

async function freeName(directory: string, name: string): Promise<string> {
  const taken = new Set(await fsp().readdir(directory));
  if (!taken.has(name)) return name;
  for (let n = 1; ; n++) if (!taken.has(`${name}.${n}`)) return `${name}.${n}`;
}

/** Moves an entry into quarantine/ (counted, never replayed), or marks it stuck in place. */
async function quarantine(dir: string, name: string, from: string, reason: string, result: ReplayResult): Promise<void> {
  const quarantineDir = join(dir, QUARANTINE_DIR);
  try {
    ensureDir(quarantineDir);
    const target = join(quarantineDir, await freeName(quarantineDir, name));
    await fsp().rename(from, target);
    result.quarantined.push({ name, path: target, reason });
  } catch (error) {
    const stuck = stuckIn(dir);
    const fullReason = `${reason}; it could not be moved aside either (${errorCode(error) ?? errorText(error)}), so replay skips it`;
    if (!stuck.has(name)) result.quarantined.push({ name, path: from, reason: fullReason });
    stuck.set(name, fullReason);
  }
}

/** Where the entries of a spool dir we cannot use (another user's, or not a directory) go. */
function movedAsidePath(dir: string, nowMs: number): string {
  return `${dir}.moved-aside-${nowMs}`;
}

/**
 * Makes sure the spool is a directory this user owns and can use. One that is not (created
 * by a hook run under sudo, so owned by root; a file or a link in its place) is renamed
 * aside, a fresh spool takes its place (so this user's hooks can spool again), and every
 * entry of the old one that can still be read is re-queued with its id (the server applies
 * an id once, so an entry that was also delivered directly is not applied twice).
 * Returns false when the spool cannot be used at all; `notices` says why and what to do.
 */
async function ensureUsableSpool(dir: string, nowMs: number, notices: string[]): Promise<boolean> {
  const stat = await fsp()
    .lstat(dir)
    .catch(() => null);
  if (stat === null) return true;
  const uid = process.getuid?.();
  let problem: string | null = null;
  if (stat.isSymbolicLink()) problem = 'is a symbolic link';
  else if (!stat.isDirectory()) problem = 'is not a directory';
  else if (uid !== undefined && stat.uid !== uid) problem = `belongs to uid ${stat.uid}, not to this user (uid ${uid}); a hook run under sudo creates it so`;
  if (problem === null) {
    if ((stat.mode & 0o700) !== 0o700) {
      await fsp().chmod(dir, 0o700);
      notices.push(`spool ${dir} had mode ${(stat.mode & 0o777).toString(8)}; set it to 700 so replay can read and move its entries`);
    }
    return true;
  }
  const aside = movedAsidePath(dir, nowMs);
  try {
    await fsp().rename(dir, aside);
  } catch (error) {
    notices.push(
      `spool ${dir} ${problem}, and it cannot be moved aside (${errorCode(error) ?? errorText(error)}): hooks cannot spool and nothing there is replayed. Fix: \`sudo rm -rf ${dir}\` (or \`sudo chown -R $(id -un) ${dir}\`).`,
    );
    return false;
  }
  ensureDir(dir);
  let requeued = 0;
  let unreadable = 0;
  const names = stat.isDirectory()
    ? await fsp()
        .readdir(aside)
        .catch(() => null)
    : [];
  for (const name of names ?? []) {
    if (!EVENT_FILE.test(name)) continue;
    const path = join(aside, name);
    const event = notAnEventFile(path) === null ? parseEvent(await fsp().readFile(path, 'utf8').catch(() => '')) : '';
    if (typeof event === 'string' || !ID_PATTERN.test(event.id)) {
      unreadable++;
      continue;
    }
    spoolEvent(dir, event);
    requeued++;
  }
  const listing = names === null ? 'its entries cannot be listed' : `${requeued} readable entries re-queued, ${unreadable} left there`;
  notices.push(`spool ${dir} ${problem}: moved it aside to ${aside} and started a fresh one (${listing}). Remove the old one when done: \`sudo rm -rf ${aside}\`.`);
  return true;
}

/** A subdirectory of the spool, recreated if something else took its name. */
async function ensureSubdir(dir: string, name: string, nowMs: number, notices: string[]): Promise<void> {
  const path = join(dir, name);
  const stat = await fsp()
    .lstat(path)
    .catch(() => null);
  if (stat !== null && !stat.isDirectory()) {
    const aside = movedAsidePath(path, nowMs);
    await fsp().rename(path, aside);
    notices.push(`${path} was not a directory; moved it aside to ${aside}`);
  }
  ensureDir(path);
}

export interface ReplayOptions {
  nowMs?: number;
  /** Why an event can never be applied (it is then quarantined, not retried), or null to apply it. */
  validate?: (event: SpooledEvent) => string | null;
}

/**
 * Applies spooled events oldest first. Each event is claimed (renamed into processing/)
 * before `apply`, deleted only after `apply` resolves, and put back if it rejects; replay
 * stops at the first failure of `apply` so later events never overtake an earlier one. An
 * entry that can never be applied (unreadable, not a regular file, not JSON, not an event,
 * refused by `validate`) is quarantined and never blocks the entries behind it. Never throws
 * for anything found on disk: `notices` carries what was repaired or is wrong.
 */
export async function replaySpool(dir: string, apply: (event: SpooledEvent) => Promise<void>, options: ReplayOptions = {}): Promise<ReplayResult> {
  const result: ReplayResult = { applied: [], quarantined: [], busy: false, notices: [] };
  const nowMs = options.nowMs ?? Date.now();
  try {
    if (!(await ensureUsableSpool(dir, nowMs, result.notices))) return result;
    if ((await fsp().stat(dir).catch(() => null)) === null) return result; // nothing was ever spooled
    await ensureSubdir(dir, PROCESSING_DIR, nowMs, result.notices);
  } catch (error) {
    result.notices.push(`spool ${dir} cannot be prepared for replay (${errorCode(error) ?? errorText(error)})`);
    return result;
  }
  const lockPath = join(dir, LOCK_FILE);
  const lock = await takeLock(lockPath, result.notices);
  if ('busy' in lock) return { ...result, busy: true };
  try {
    await recoverStaleClaims(dir, nowMs);
    await removeAbandonedTmpFiles(dir, nowMs);
    const stuck = stuckIn(dir);
    const names = listEventFiles(dir);
    for (const gone of [...stuck.keys()]) if (!names.includes(gone)) stuck.delete(gone);
    for (const name of names) {
      if (stuck.has(name)) continue;
      const id = name.slice(0, -'.json'.length);
      const queuedPath = join(dir, name);
      const shape = notAnEventFile(queuedPath);
      if (shape !== null) {
        await quarantine(dir, name, queuedPath, shape, result);
        continue;
      }
      const claimPath = join(dir, PROCESSING_DIR, `${name}.${process.pid}`);
      try {
        await fsp().rename(queuedPath, claimPath);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') continue; // another replayer has it
        await quarantine(dir, name, queuedPath, `cannot be claimed (${errorCode(error) ?? errorText(error)})`, result);
        continue;
      }
      let event: SpooledEvent | string;
      try {
        event = parseEvent(await fsp().readFile(claimPath, 'utf8'));
      } catch (error) {
        event = `cannot be read (${errorCode(error) ?? errorText(error)}); a hook run as another user (sudo) writes such files`;
      }
      const refusal = typeof event === 'string' ? event : options.validate?.(event) ?? null;
      if (refusal !== null || typeof event === 'string') {
        await quarantine(dir, name, claimPath, refusal ?? 'not an event', result);
        continue;
      }
      try {
        await apply(event);
      } catch (error) {
        await fsp()
          .rename(claimPath, queuedPath)
          .catch(() => undefined);
        result.failed = { id, error: errorText(error) };
        break;
      }
      await fsp()
        .unlink(claimPath)
        .catch(() => undefined);
      result.applied.push(id);
    }
  } catch (error) {
    result.notices.push(`spool ${dir} replay stopped (${errorCode(error) ?? errorText(error)})`);
  } finally {
    if ('held' in lock) await releaseLock(lockPath, lock.held);
  }
  return result;
}

export interface SpoolCounts {
  /** Entries waiting to be replayed (queued or claimed by a replayer). */
  pending: number;
  /** Entries set aside: in quarantine/, or stuck in place. */
  quarantined: number;
}

/** How many entries wait and how many were set aside; a spool that cannot be listed counts as empty. */
export function countSpool(dir: string): SpoolCounts {
  const count = (path: string, keep: (name: string) => boolean): number => {
    try {
      return readdirSync(path).filter(keep).length;
    } catch {
      return 0;
    }
  };
  const stuck = stuckEntries.get(dir)?.size ?? 0;
  let queued = 0;
  try {
    queued = listEventFiles(dir).length - stuck;
  } catch {
    queued = 0;
  }
  return {
    pending: Math.max(0, queued) + count(join(dir, PROCESSING_DIR), (name) => /\.json\.\d+$/.test(name)),
    quarantined: count(join(dir, QUARANTINE_DIR), () => true) + stuck,
  };
}
