// Claim time on embedded storage (issue 10, item 8). Claim leases are stored as epoch
// milliseconds, but the claim clock advances with the boot clock, not the wall clock: a wall
// step (NTP, a manual change, a VM resumed with a wrong clock) can neither extend nor cut
// short a live claim. It starts at the wall time and stays within a tolerance of it while the
// two clocks agree; when they part, the boot clock wins. Readings come in as arguments:
// nothing here reads a clock. (Team mode judges claims on the database's clock instead.)
import { DEFAULT_SUSPEND_TOLERANCE_MS } from './waitLease/clockDomain.ts';
import type { ClockReading } from './waitLease/clockReading.ts';

/** A boot-clock reading and the claim time it stood for: claim time = claimMs + boot ms since. */
export interface ClaimClockAnchor {
  bootId: string | null;
  countsSuspend: boolean;
  bootMs: number;
  wallMs: number;
  claimMs: number;
}

export type ClaimClockStep =
  /** No anchor yet: claim time starts at the wall time. */
  | 'start'
  /** Boot and wall clocks advanced together (within the tolerance). */
  | 'steady'
  /** The wall clock was stepped: the boot clock is followed, nothing extended or cut short. */
  | 'wall_stepped'
  /** A boot clock that freezes in suspend fell behind the wall: the slept time is counted. */
  | 'unaccounted_suspend'
  /** Another boot, or one that cannot be verified: the wall clock, never before the last claim time. */
  | 'new_boot';

export interface ClaimTime {
  claimMs: number;
  /** The anchor to keep (the same object when unchanged). */
  anchor: ClaimClockAnchor;
  step: ClaimClockStep;
}

/**
 * Claim time at `reading`. Within one boot (one process: boot ids equal, even both null;
 * across a restart: the same known boot id) it advances by boot-clock time only, except that a
 * boot clock that does not count suspend is caught up with a wall clock that ran ahead of it
 * (a lease must not outlive its TTL because the machine slept). It never goes backwards.
 */
export function claimTimeAt(
  anchor: ClaimClockAnchor | undefined,
  reading: ClockReading,
  options: { sameProcess: boolean; toleranceMs?: number },
): ClaimTime {
  const at = (claimMs: number, step: ClaimClockStep): ClaimTime => ({
    claimMs,
    step,
    anchor: { bootId: reading.domain.bootId, countsSuspend: reading.domain.countsSuspend, bootMs: reading.bootMs, wallMs: reading.wallMs, claimMs },
  });
  if (!anchor) return at(reading.wallMs, 'start');
  const sameBoot = options.sameProcess ? anchor.bootId === reading.domain.bootId : anchor.bootId !== null && anchor.bootId === reading.domain.bootId;
  const bootDelta = reading.bootMs - anchor.bootMs;
  if (!sameBoot || anchor.countsSuspend !== reading.domain.countsSuspend || bootDelta < 0) {
    return at(Math.max(reading.wallMs, anchor.claimMs), 'new_boot');
  }
  const tolerance = options.toleranceMs ?? DEFAULT_SUSPEND_TOLERANCE_MS;
  const wallAhead = reading.wallMs - anchor.wallMs - bootDelta;
  if (!reading.domain.countsSuspend && wallAhead > tolerance) return at(anchor.claimMs + bootDelta + wallAhead, 'unaccounted_suspend');
  if (Math.abs(wallAhead) > tolerance) return at(anchor.claimMs + bootDelta, 'wall_stepped');
  return { claimMs: anchor.claimMs + bootDelta, anchor, step: 'steady' };
}
