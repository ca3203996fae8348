// The wait-lease clock: readings of a boot-time clock that keeps counting across suspend
// (CLOCK_BOOTTIME semantics) together with the wall clock and the boot identity. Only the
// server reads it; core judges the readings. Injected everywhere so tests can simulate
// suspend, wall rollback, restart and reboot by hand (ManualLeaseClock) without sleeping.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ClockDomain, ClockReading } from '../../core/waitLease/clockReading.ts';

export interface LeaseClock {
  read(): ClockReading;
}

const BOOT_ID_PATH = '/proc/sys/kernel/random/boot_id';
const UPTIME_PATH = '/proc/uptime';

function hrMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Linux: /proc/uptime is CLOCK_BOOTTIME (counts suspend) at 10 ms resolution; process.hrtime
 * (CLOCK_MONOTONIC) has sub-millisecond resolution but freezes in suspend. Readings are
 * anchor + hrtime elapsed. /proc/uptime is checked when a suspend may have happened since the
 * last check: when the wall clock ran ahead of hrtime (a suspend advances the wall clock and
 * not CLOCK_MONOTONIC), and in any case once UPTIME_RECHECK_MS of hrtime has passed (a wall
 * step back hiding a suspend is caught that late at worst). When uptime has run ahead of the
 * anchored estimate by more than its own resolution, a suspend happened and we re-anchor, so
 * the slept time is counted. A file read per reading was a tenth of a SQLite claim's CPU; this is a
 * few reads a second. Readings never go backwards within one process.
 */
export class LinuxBootTimeClock implements LeaseClock {
  private readonly domain: ClockDomain;
  private anchorBootMs: number;
  private anchorHrMs: number;
  private checkedHrMs: number;
  private checkedWallMs: number;
  private last = 0;
  private readonly readUptimeMs: () => number;
  private readonly readHrMs: () => number;
  private readonly readWallMs: () => number;

  constructor(options: { bootId?: string | null; readUptimeMs?: () => number; readHrMs?: () => number; readWallMs?: () => number } = {}) {
    this.readUptimeMs = options.readUptimeMs ?? readProcUptimeMs;
    this.readHrMs = options.readHrMs ?? hrMs;
    this.readWallMs = options.readWallMs ?? Date.now;
    this.domain = { bootId: options.bootId === undefined ? readLinuxBootId() : options.bootId, countsSuspend: true };
    this.anchorBootMs = this.readUptimeMs();
    this.anchorHrMs = this.checkedHrMs = this.readHrMs();
    this.checkedWallMs = this.readWallMs();
  }

  read(): ClockReading {
    const hr = this.readHrMs();
    const wallMs = this.readWallMs();
    let bootMs = this.anchorBootMs + (hr - this.anchorHrMs);
    const sinceCheckHr = hr - this.checkedHrMs;
    if (sinceCheckHr >= UPTIME_RECHECK_MS || wallMs - this.checkedWallMs - sinceCheckHr > WALL_AHEAD_TOLERANCE_MS) {
      this.checkedHrMs = hr;
      this.checkedWallMs = wallMs;
      const uptime = this.readUptimeMs();
      if (uptime > bootMs + UPTIME_RESOLUTION_MS) {
        // Time passed that CLOCK_MONOTONIC did not see: a suspend. Count it.
        this.anchorBootMs = uptime;
        this.anchorHrMs = hr;
        bootMs = uptime;
      }
    }
    this.last = Math.max(this.last, Math.floor(bootMs));
    return { bootMs: this.last, wallMs, domain: this.domain };
  }
}

/** /proc/uptime's resolution (10 ms) with margin: less than this ahead is rounding, not a suspend. */
const UPTIME_RESOLUTION_MS = 20;
/** The longest a suspend can go uncounted when a wall-clock step back hides it. */
export const UPTIME_RECHECK_MS = 100;
/** Wall time running ahead of hrtime by more than this since the last check may be a suspend. */
const WALL_AHEAD_TOLERANCE_MS = 5;

export function readProcUptimeMs(): number {
  const text = readFileSync(UPTIME_PATH, 'utf8');
  const seconds = Number(text.split(/\s+/)[0]);
  if (!Number.isFinite(seconds)) throw new Error(`cannot parse ${UPTIME_PATH}: ${JSON.stringify(text)}`);
  return Math.round(seconds * 1000);
}

export function readLinuxBootId(): string | null {
  try {
    const id = readFileSync(BOOT_ID_PATH, 'utf8').trim();
    return id === '' ? null : id;
  } catch {
    return null;
  }
}

/**
 * Elsewhere: process.hrtime (mach_absolute_time on macOS, QueryPerformanceCounter on Windows)
 * is system-wide but freezes in sleep, so countsSuspend is false. That is the conservative
 * side: the continuity watcher treats wall time that ran ahead of it as an unaccounted suspend
 * and makes leases UNKNOWN instead of letting them silently outlive their TTL. macOS names its
 * boot (kern.bootsessionuuid), so a restart within one boot stays verifiable there.
 */
export class FallbackLeaseClock implements LeaseClock {
  private readonly domain: ClockDomain;
  private last = 0;

  constructor(bootId: string | null = readDarwinBootSession()) {
    this.domain = { bootId, countsSuspend: false };
  }

  read(): ClockReading {
    this.last = Math.max(this.last, Math.floor(hrMs()));
    return { bootMs: this.last, wallMs: Date.now(), domain: this.domain };
  }
}

function readDarwinBootSession(): string | null {
  if (process.platform !== 'darwin') return null;
  try {
    const id = execFileSync('sysctl', ['-n', 'kern.bootsessionuuid'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).trim();
    return id === '' ? null : `darwin:${id}`;
  } catch {
    return null;
  }
}

/** The best lease clock this platform offers. */
export function systemLeaseClock(): LeaseClock {
  if (process.platform === 'linux') {
    try {
      return new LinuxBootTimeClock();
    } catch {
      // no readable /proc/uptime (unusual sandbox): fall through to the conservative clock
    }
  }
  return new FallbackLeaseClock();
}

/** A lease clock moved by hand: tests simulate suspend, wall rollback and reboot with it. */
export class ManualLeaseClock implements LeaseClock {
  bootMs: number;
  wallMs: number;
  bootId: string | null;
  countsSuspend: boolean;

  constructor(options: { bootMs?: number; wallMs?: number; bootId?: string | null; countsSuspend?: boolean } = {}) {
    this.bootMs = options.bootMs ?? 1_000_000;
    this.wallMs = options.wallMs ?? Date.UTC(2026, 11, 2, 12, 0, 0);
    this.bootId = options.bootId === undefined ? 'boot-a' : options.bootId;
    this.countsSuspend = options.countsSuspend ?? true;
  }

  read(): ClockReading {
    return { bootMs: this.bootMs, wallMs: this.wallMs, domain: { bootId: this.bootId, countsSuspend: this.countsSuspend } };
  }

  /** Ordinary time passing: both clocks advance together. */
  advance(ms: number): void {
    this.bootMs += ms;
    this.wallMs += ms;
  }

  /** The machine sleeps: the wall clock advances; the boot clock too only if it counts suspend. */
  suspend(ms: number): void {
    this.wallMs += ms;
    if (this.countsSuspend) this.bootMs += ms;
  }

  /** The wall clock is set back (NTP step, manual change); the boot clock does not move. */
  rollbackWall(ms: number): void {
    this.wallMs -= ms;
  }

  /** A reboot: a new boot id and a boot clock that starts again near zero; wall time moves on. */
  reboot(bootId: string, options: { downMs?: number; uptimeMs?: number } = {}): void {
    this.bootId = bootId;
    this.wallMs += options.downMs ?? 60_000;
    this.bootMs = options.uptimeMs ?? 30_000;
  }
}
