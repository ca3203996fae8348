// The one-shot "lease expired N ago" notice: shown once, kept on screen until the user has
// seen it and moved on (switched to another terminal, ran a command in that one, or it lingered
// long enough), then never again. The server is told when it was first shown so that another
// window or a reload does not show it again.
import type { NoticeState } from './paneStatus.ts';

/** Switching away sooner than this does not count as having seen it. */
export const NOTICE_MIN_VISIBLE_MS = 3_000;
/** A notice nobody moved on from still clears after this long on screen. */
export const NOTICE_MAX_LINGER_MS = 10 * 60_000;

interface Showing {
  pane: string;
  sinceMs: number;
}

export class NoticeTracker {
  private readonly showing = new Map<string, Showing>();
  private readonly done = new Set<string>();

  state(): NoticeState {
    return { showing: new Set(this.showing.keys()), done: this.done };
  }

  /** The status line for `pane` now shows these notices. Returns the ids shown for the first time (report them to the server). */
  shown(pane: string, leaseIds: readonly string[], nowMs: number): string[] {
    const fresh: string[] = [];
    for (const id of leaseIds) {
      if (this.done.has(id) || this.showing.has(id)) continue;
      this.showing.set(id, { pane, sinceMs: nowMs });
      fresh.push(id);
    }
    return fresh;
  }

  /**
   * The user moved on from `pane` (another terminal became active, or a command ran in it).
   * Its notices that were on screen long enough are done. Returns the ids cleared.
   */
  movedOn(pane: string, nowMs: number): string[] {
    const cleared: string[] = [];
    for (const [id, entry] of this.showing) {
      if (entry.pane === pane && nowMs - entry.sinceMs >= NOTICE_MIN_VISIBLE_MS) {
        this.showing.delete(id);
        this.done.add(id);
        cleared.push(id);
      }
    }
    return cleared;
  }

  /** Clears notices that lingered past NOTICE_MAX_LINGER_MS. Returns the ids cleared. */
  expireLingering(nowMs: number): string[] {
    const cleared: string[] = [];
    for (const [id, entry] of this.showing) {
      if (nowMs - entry.sinceMs >= NOTICE_MAX_LINGER_MS) {
        this.showing.delete(id);
        this.done.add(id);
        cleared.push(id);
      }
    }
    return cleared;
  }

  isShowing(leaseId: string): boolean {
    return this.showing.has(leaseId);
  }
}
