// What the server knows about the hook delivery spool, for `leasehold status` and the
// extension (GET /api/v1/status): how many entries wait, how many were set aside, when replay
// last ran, and the last thing that went wrong. It also logs each quarantined entry and each
// spool problem once, with its path and the reason, so nothing stops hooks silently.
import { countSpool } from '../../runtime/spool.ts';
import type { ReplayResult } from '../../runtime/spool.ts';
import type { SpoolStatus } from '../../core/wire/status.ts';

export interface SpoolStateLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export class SpoolState {
  private lastReplay: SpoolStatus['last_replay'] = null;
  private lastError: SpoolStatus['last_error'] = null;
  /** Notices already logged: a problem that persists across ticks is logged once. */
  private readonly logged = new Set<string>();

  private readonly dir: string;
  private readonly logger: SpoolStateLogger | undefined;
  private readonly now: () => number;

  constructor(dir: string, logger: SpoolStateLogger | undefined, now: () => number = Date.now) {
    this.dir = dir;
    this.logger = logger;
    this.now = now;
  }

  /** Records one replay run and logs what it set aside or found wrong (each once). */
  record(result: ReplayResult): void {
    const at = this.now();
    if (!result.busy) this.lastReplay = { at, applied: result.applied.length, quarantined: result.quarantined.length };
    for (const entry of result.quarantined) {
      this.logger?.error('quarantined a spooled hook event that can never be applied', { path: entry.path, reason: entry.reason });
      this.lastError = { at, message: `quarantined ${entry.path}: ${entry.reason}` };
    }
    for (const notice of result.notices) {
      if (!this.logged.has(notice)) this.logger?.error('hook spool', { dir: this.dir, problem: notice });
      this.logged.add(notice);
      this.lastError = { at, message: notice };
    }
    if (result.failed) this.recordError(`replay stopped at ${result.failed.id}: ${result.failed.error}`);
  }

  recordError(message: string): void {
    this.lastError = { at: this.now(), message };
  }

  snapshot(): SpoolStatus {
    return { dir: this.dir, ...countSpool(this.dir), last_replay: this.lastReplay, last_error: this.lastError };
  }
}
