// Clock continuity: may leases judged on the boot clock keep being trusted? The server takes a
// reading on every tick and at startup, and asks here. Anything it cannot explain makes active
// leases UNKNOWN; nothing here can ever extend a lease.
import type { ClockDomain, ClockReading } from './clockReading.ts';

/**
 * How far the wall clock may run ahead of a boot clock that does not count suspend before we
 * call it an unaccounted suspend (scheduler jitter and NTP slew stay well below this).
 */
export const DEFAULT_SUSPEND_TOLERANCE_MS = 2_000;

export type ContinuityKind =
  | 'continuous'
  /** The wall clock went back while the boot clock advanced: explained (NTP, manual change); extends nothing. */
  | 'wall_rollback'
  /** The wall clock jumped ahead of a suspend-counting boot clock: explained; ceilings may only end sooner. */
  | 'wall_jump_forward'
  /** The boot clock went backwards or the boot id changed: a reboot. */
  | 'reboot'
  /** A boot clock that freezes in suspend fell behind the wall clock: time passed that leases did not see. */
  | 'unaccounted_suspend'
  /** Boot identity is missing on one side or the clock semantics changed: cannot tell. */
  | 'unverifiable';

export interface ContinuityJudgement {
  kind: ContinuityKind;
  /** True when every active lease must become UNKNOWN. */
  leasesBecomeUnknown: boolean;
  bootDeltaMs: number;
  wallDeltaMs: number;
  explanation: string;
}

function judgement(kind: ContinuityKind, bootDeltaMs: number, wallDeltaMs: number, explanation: string): ContinuityJudgement {
  const leasesBecomeUnknown = kind === 'reboot' || kind === 'unaccounted_suspend' || kind === 'unverifiable';
  return { kind, leasesBecomeUnknown, bootDeltaMs, wallDeltaMs, explanation };
}

/**
 * Judges two successive readings. Both boot ids null is accepted as one boot: within one
 * server process the clock is the same one (a restart is judgeRestart's question).
 */
export function judgeContinuity(
  previous: ClockReading,
  current: ClockReading,
  options: { suspendToleranceMs?: number } = {},
): ContinuityJudgement {
  const tolerance = options.suspendToleranceMs ?? DEFAULT_SUSPEND_TOLERANCE_MS;
  const bootDelta = current.bootMs - previous.bootMs;
  const wallDelta = current.wallMs - previous.wallMs;
  const a = previous.domain;
  const b = current.domain;

  if (a.bootId !== null && b.bootId !== null && a.bootId !== b.bootId) {
    return judgement('reboot', bootDelta, wallDelta, `boot id changed (${a.bootId} → ${b.bootId}): the machine rebooted`);
  }
  if ((a.bootId === null) !== (b.bootId === null) || a.countsSuspend !== b.countsSuspend) {
    return judgement('unverifiable', bootDelta, wallDelta, 'the clock domain changed in a way that cannot be verified');
  }
  if (bootDelta < 0) {
    return judgement('reboot', bootDelta, wallDelta, `the boot clock went back by ${-bootDelta} ms: a reboot or a different clock`);
  }
  const wallAhead = wallDelta - bootDelta;
  if (!b.countsSuspend && wallAhead > tolerance) {
    return judgement(
      'unaccounted_suspend',
      bootDelta,
      wallDelta,
      `the wall clock advanced ${wallAhead} ms more than a boot clock that does not count suspend: a suspend the leases did not see`,
    );
  }
  if (wallDelta < bootDelta - tolerance) {
    return judgement('wall_rollback', bootDelta, wallDelta, `the wall clock fell behind the boot clock by ${bootDelta - wallDelta} ms; expiry is judged on the boot clock, nothing is extended`);
  }
  if (wallAhead > tolerance) {
    return judgement('wall_jump_forward', bootDelta, wallDelta, `the wall clock ran ${wallAhead} ms ahead of the boot clock; wall-clock ceilings can only end sooner`);
  }
  return judgement('continuous', bootDelta, wallDelta, 'the clocks advanced together');
}

export type RestartKind = 'same_boot' | 'reboot' | 'unverifiable';

export interface RestartJudgement {
  kind: RestartKind;
  leasesBecomeUnknown: boolean;
  explanation: string;
}

/**
 * After a server restart: persisted boot-clock expiries stay valid only in the same verified
 * boot with the same clock semantics. A different boot, or one that cannot be verified (null
 * boot id on either side), makes every active lease UNKNOWN. The server should also run
 * judgeContinuity(last persisted reading, first new reading) to catch a boot clock that
 * went back within what claims to be the same boot.
 */
export function judgeRestart(persisted: ClockDomain, current: ClockDomain): RestartJudgement {
  if (persisted.bootId === null || current.bootId === null) {
    return { kind: 'unverifiable', leasesBecomeUnknown: true, explanation: 'the boot identity is unknown, so persisted expiries cannot be verified' };
  }
  if (persisted.bootId !== current.bootId) {
    return { kind: 'reboot', leasesBecomeUnknown: true, explanation: `boot id changed (${persisted.bootId} → ${current.bootId}): the machine rebooted` };
  }
  if (persisted.countsSuspend !== current.countsSuspend) {
    return { kind: 'unverifiable', leasesBecomeUnknown: true, explanation: 'the clock semantics changed (counts_suspend differs), so persisted expiries cannot be verified' };
  }
  return { kind: 'same_boot', leasesBecomeUnknown: false, explanation: 'same verified boot: persisted expiries stay valid' };
}
