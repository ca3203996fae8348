// Who holds a lock file, judged so that a lock can never outlive its holder: a lock names its
// holder by pid AND that process's start time, so a pid reused by another process (a
// container's pid 1 after a restart, an unrelated program after a reboot) does not keep the
// lock. One rule for the server's instance lock (server.lock) and the spool's replay lock.
//
// Leaf module (node:fs through builtins, processInfo): the spool module that the Claude Code
// hook loads imports it.
import { readProcessInfo } from '../server/observe/processInfo.ts';

export interface LockHolder {
  pid: number;
  /** The holder's start time as processInfo reads it; null where the platform gives none. */
  start: string | null;
}

let ownStart: string | null | undefined;

/** This process as a lock holder. */
export function currentHolder(): LockHolder {
  ownStart ??= readProcessInfo(process.pid)?.startTime ?? null;
  return { pid: process.pid, start: ownStart };
}

/** The holder named by a lock file's parsed JSON, or undefined when it names none (empty, garbage, an old format). */
export function parseHolder(value: unknown): LockHolder | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { pid, start } = value as { pid?: unknown; start?: unknown };
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (start !== null && typeof start !== 'string') return undefined;
  return { pid, start };
}

/**
 * Why the named holder no longer holds the lock, or null while it still runs. A holder that
 * names no start time (written where the platform could not read one) is judged by its pid.
 */
export function holderGone(holder: LockHolder | undefined): string | null {
  if (holder === undefined) return 'the lock file names no holder (empty or damaged)';
  const info = readProcessInfo(holder.pid);
  if (info === null || info.state === 'Z') {
    // readProcessInfo can also fail for a live process we may not inspect; signal 0 settles it.
    if (info === null && pidExists(holder.pid) && holder.start === null) return null;
    return `its holder, pid ${holder.pid}, is no longer running`;
  }
  if (holder.start !== null && info.startTime !== holder.start) return `pid ${holder.pid} now belongs to another process (started at a different time)`;
  return null;
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
