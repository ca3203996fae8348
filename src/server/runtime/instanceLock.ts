// Single instance: one server process owns an embedded database. The lock file in the data
// dir is created exclusively and names its owner by pid and start time (runtime/lockHolder.ts),
// so a lock whose owner is gone is stale even when its pid now belongs to another process.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { LeaseholdError } from '../../core/errors.ts';
import { currentHolder, holderGone, parseHolder, type LockHolder } from '../../runtime/lockHolder.ts';
import { runtimeFiles } from '../../runtime/paths.ts';

interface LockOwner extends LockHolder {
  url: string | null;
}

export class InstanceLock {
  private readonly path: string;

  private constructor(path: string) {
    this.path = path;
  }

  static acquire(dataDir: string): InstanceLock {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const path = runtimeFiles.lock(dataDir);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, JSON.stringify({ ...currentHolder(), url: null } satisfies LockOwner));
        closeSync(fd);
        return new InstanceLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = readOwner(path);
        if (owner && owner.pid !== process.pid && holderGone(owner) === null) {
          throw new LeaseholdError(
            'conflict',
            `another lease server already owns ${dataDir}: pid ${owner.pid}${owner.url ? ` at ${owner.url}` : ' (starting)'}. Use it, or stop it first.`,
            { details: { pid: owner.pid, url: owner.url } },
          );
        }
        rmSync(path, { recursive: true, force: true }); // stale: its owner is gone, or the file names none
      }
    }
    throw new LeaseholdError('conflict', `could not take the lock ${path}`);
  }

  /** Records the URL once listening, so a refused second start can name it. */
  publish(url: string): void {
    writeFileSync(this.path, JSON.stringify({ ...currentHolder(), url } satisfies LockOwner), { mode: 0o600 });
  }

  release(): void {
    if (readOwner(this.path)?.pid === process.pid) rmSync(this.path, { force: true });
  }
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as { url?: unknown };
    const holder = parseHolder(value);
    return holder && { ...holder, url: typeof value.url === 'string' ? value.url : null };
  } catch {
    return undefined;
  }
}
