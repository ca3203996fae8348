// When the status line must be redrawn without news from the server: only while it shows time
// (a countdown or "expired N ago"), and then at the next moment its text can change, at most a
// second apart. No server request is involved.
import type { PaneStatus } from './paneStatus.ts';

export const MAX_TICK_MS = 1_000;
const MIN_TICK_MS = 50;

/** ms until a displayed remaining time changes: formatRemaining rounds minutes up from 60 s, seconds below. */
export function msUntilRemainingChanges(remainingMs: number): number {
  if (remainingMs <= 0) return Number.POSITIVE_INFINITY;
  if (remainingMs > 60_000) {
    const intoMinute = remainingMs % 60_000;
    return intoMinute === 0 ? 60_000 : intoMinute;
  }
  const intoSecond = remainingMs % 1000;
  return intoSecond === 0 ? 1000 : intoSecond;
}

/** The delay before the next local redraw, or null when nothing on the line counts time (no tick). */
export function nextTickMs(status: PaneStatus | undefined): number | null {
  if (!status || !status.timeDependent) return null;
  let next = MAX_TICK_MS;
  for (const line of status.leases) {
    if (line.state === 'active') next = Math.min(next, msUntilRemainingChanges(line.remainingMs));
  }
  return Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, next));
}
