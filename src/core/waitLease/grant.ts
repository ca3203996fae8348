// The clamp: how much authority one acquire or renew may grant. Effective expiry never passes
// min(now + requested TTL, now + server hard max TTL, authorized_until), and each of those is
// checked on the boot-time clock; the wall-clock ceiling is additionally checked on the wall
// clock, so a wall rollback can never extend it (the ceiling is reached when either says so).
import { invalidArgument } from '../errors.ts';
import type { ClockReading } from './clockReading.ts';
import { BASE_JOB_TYPES, isJobType } from './jobType.ts';

/** Server default for the hard max TTL of a single grant (a setting; this is its default). */
export const DEFAULT_HARD_MAX_TTL_MS = 60 * 60_000;

export type ClampReason = 'hard_max' | 'authorized_until' | 'chain_cap';

/** The operator's authority ceiling: the wall instant given, and its projection onto the boot timeline. */
export interface AuthorityCeiling {
  /** authorized_until as supplied: absolute wall-clock ms. */
  wallMs: number;
  /** The same instant on the boot timeline; only ever moves earlier. */
  bootMs: number;
}

export interface Grant {
  /** Effective expiry on the boot timeline. */
  expiresAtBootMs: number;
  /** Effective expiry on the wall timeline as of the grant (for display and for unknown leases). */
  expiresAtWallMs: number;
  expiresInMs: number;
  /** Which clamps bound the expiry below the requested TTL (empty when the request was granted as asked). */
  clampedBy: ClampReason[];
}

function isWholeMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** ttl_ms is mandatory: a positive whole number of milliseconds. There are no open-ended waits. */
export function validateTtlMs(input: unknown): number {
  if (input === undefined || input === null) {
    throw invalidArgument('ttl_ms', 'ttl_ms is required: a wait-lease always has a TTL (positive whole milliseconds)');
  }
  if (!isWholeMs(input) || input <= 0) {
    throw invalidArgument('ttl_ms', `ttl_ms must be a positive whole number of milliseconds (got ${JSON.stringify(input)})`);
  }
  return input;
}

/** The server's hard max TTL setting must itself be a positive whole number of ms. */
export function validateHardMaxTtlMs(input: unknown): number {
  if (!isWholeMs(input) || input <= 0) {
    throw invalidArgument('hard_max_ttl_ms', `hard_max_ttl_ms must be a positive whole number of milliseconds (got ${JSON.stringify(input)})`);
  }
  return input;
}

/** A per-job-type cap may only tighten the global one, never exceed it. */
export function effectiveHardMaxTtlMs(globalMaxMs: number, perJobTypeMaxMs?: number | null): number {
  if (perJobTypeMaxMs === undefined || perJobTypeMaxMs === null) return globalMaxMs;
  return Math.min(globalMaxMs, perJobTypeMaxMs);
}

/** Per-job-type hard max TTLs (ms), keyed by job_type. A type without an entry uses the global cap. */
export type HardMaxTtlByJobType = Readonly<Record<string, number>>;

/**
 * The per-job-type caps setting. Every key must be an enforced job type and every value a
 * positive whole number of ms no larger than the global cap: a per-type cap exists to tighten,
 * so a looser one is refused (rather than silently ignored) and the field names the type.
 */
export function validateHardMaxTtlByJobType(input: unknown, globalMaxMs: number): HardMaxTtlByJobType {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw invalidArgument('hard_max_ttl_by_job_type', 'hard_max_ttl_by_job_type must be an object of job_type → milliseconds');
  const caps: Record<string, number> = {};
  for (const [jobType, value] of Object.entries(input as Record<string, unknown>)) {
    const field = `hard_max_ttl_by_job_type.${jobType}`;
    if (!isJobType(jobType)) throw invalidArgument(field, `${JSON.stringify(jobType)} is not a job type (one of ${BASE_JOB_TYPES.join(', ')} or other:<name>)`);
    if (!isWholeMs(value) || value <= 0) throw invalidArgument(field, `${field} must be a positive whole number of milliseconds (got ${JSON.stringify(value)})`);
    if (value > globalMaxMs) throw invalidArgument(field, `${field} (${value} ms) exceeds the global hard max TTL (${globalMaxMs} ms); a per-job-type cap can only tighten it`);
    caps[jobType] = value;
  }
  return caps;
}

/** The hard max TTL that bounds one grant of a lease of this job type. */
export function hardMaxTtlMsFor(globalMaxMs: number, byJobType: HardMaxTtlByJobType | undefined, jobType: string): number {
  return effectiveHardMaxTtlMs(globalMaxMs, byJobType && Object.hasOwn(byJobType, jobType) ? byJobType[jobType] : null);
}

/** authorized_until: absent → null (no ceiling); otherwise absolute wall-clock ms since the epoch. */
export function validateAuthorizedUntil(input: unknown): number | null {
  if (input === undefined || input === null) return null;
  if (!isWholeMs(input) || input <= 0) {
    throw invalidArgument(
      'authorized_until',
      `authorized_until must be an absolute wall-clock time in whole milliseconds since the Unix epoch (got ${JSON.stringify(input)})`,
    );
  }
  return input;
}

/**
 * Projects a wall-clock ceiling onto the boot timeline as of `now`. When a projection already
 * exists, the earlier one wins: a wall clock that has rolled back since would otherwise push
 * the ceiling later.
 */
export function projectCeiling(authorizedUntilWallMs: number, now: ClockReading, previous?: AuthorityCeiling | null): AuthorityCeiling {
  const projected = now.bootMs + (authorizedUntilWallMs - now.wallMs);
  const bootMs = previous ? Math.min(previous.bootMs, projected) : projected;
  const wallMs = previous ? Math.min(previous.wallMs, authorizedUntilWallMs) : authorizedUntilWallMs;
  return { wallMs, bootMs };
}

/** The ceiling is reached when either clock says so. */
export function ceilingReached(ceiling: AuthorityCeiling | null, now: ClockReading): boolean {
  if (ceiling === null) return false;
  return now.wallMs >= ceiling.wallMs || now.bootMs >= ceiling.bootMs;
}

/**
 * Milliseconds of authority the ceiling still leaves at `now`, judged by the stricter clock;
 * Infinity without a ceiling.
 */
export function ceilingRemainingMs(ceiling: AuthorityCeiling | null, now: ClockReading): number {
  if (ceiling === null) return Number.POSITIVE_INFINITY;
  return Math.max(0, Math.min(ceiling.wallMs - now.wallMs, ceiling.bootMs - now.bootMs));
}

export interface ClampInput {
  now: ClockReading;
  /** Already validated (validateTtlMs). */
  ttlMs: number;
  hardMaxTtlMs: number;
  ceiling: AuthorityCeiling | null;
  /** What the job-ref chain's cap still allows (fuses.ts chainRemainingMs); absent: no cap. */
  chainRemainingMs?: number;
}

/**
 * The effective expiry of one grant. The ceiling is applied through ceilingRemainingMs so that
 * a wall clock running ahead of the boot clock shortens the grant too (never lengthens it).
 * Callers refuse the grant when the ceiling has already been reached (see lease.ts).
 */
export function clampGrant({ now, ttlMs, hardMaxTtlMs, ceiling, chainRemainingMs = Number.POSITIVE_INFINITY }: ClampInput): Grant {
  const ceilingMs = ceilingRemainingMs(ceiling, now);
  const grantedMs = Math.min(ttlMs, hardMaxTtlMs, ceilingMs, chainRemainingMs);
  const clampedBy: ClampReason[] = [];
  if (hardMaxTtlMs < ttlMs && hardMaxTtlMs === grantedMs) clampedBy.push('hard_max');
  if (ceilingMs < ttlMs && ceilingMs === grantedMs) clampedBy.push('authorized_until');
  if (chainRemainingMs < ttlMs && chainRemainingMs === grantedMs) clampedBy.push('chain_cap');
  return {
    expiresAtBootMs: now.bootMs + grantedMs,
    expiresAtWallMs: now.wallMs + grantedMs,
    expiresInMs: grantedMs,
    clampedBy,
  };
}
