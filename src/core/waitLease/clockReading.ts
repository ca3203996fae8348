// The wait-lease time model. Expiry is judged on a boot-time clock (milliseconds that keep
// counting across suspend, CLOCK_BOOTTIME semantics); the wall clock is kept beside it only
// for wall-clock inputs (authorized_until, evidence timestamps) and for display. Readings come
// in as arguments: nothing in core reads a clock.

/** Which clock a boot-time reading belongs to; readings from different domains never compare. */
export interface ClockDomain {
  /** Kernel boot identity (Linux /proc/sys/kernel/random/boot_id); null when the platform cannot say. */
  bootId: string | null;
  /** True when the boot clock keeps counting while the machine sleeps (CLOCK_BOOTTIME, mach_continuous_time). */
  countsSuspend: boolean;
}

/** One reading of both clocks, taken together by the server. */
export interface ClockReading {
  /** Boot-time clock, ms. Only meaningful within `domain`. */
  bootMs: number;
  /** Wall clock, ms since the Unix epoch. May jump either way. */
  wallMs: number;
  domain: ClockDomain;
}

/** A point in time as recorded on a lease: both clocks plus the boot it was read in. */
export interface Instant {
  bootMs: number;
  wallMs: number;
  bootId: string | null;
}

export function instantOf(reading: ClockReading): Instant {
  return { bootMs: reading.bootMs, wallMs: reading.wallMs, bootId: reading.domain.bootId };
}

/** True when two domains are the same verified boot with the same clock semantics. */
export function sameVerifiedDomain(a: ClockDomain, b: ClockDomain): boolean {
  return a.bootId !== null && a.bootId === b.bootId && a.countsSuspend === b.countsSuspend;
}

/**
 * Milliseconds from `then` to `now`, never negative. Uses the boot clock when both readings
 * come from the same known boot (immune to wall changes), otherwise the wall clock (the
 * only timeline that survives a reboot).
 */
export function elapsedMsSince(then: Instant, now: ClockReading): number {
  const sameBoot = then.bootId !== null && then.bootId === now.domain.bootId;
  const elapsed = sameBoot ? now.bootMs - then.bootMs : now.wallMs - then.wallMs;
  return Math.max(0, elapsed);
}
