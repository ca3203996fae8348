// The seed's two deferred fuses, as pure rules on explicit clock readings.
//
// Chain cap: an absolute limit on unattended authorization per job-ref chain, renewals
// included, distinct from authorized_until (a grant from the operator; this is a fuse). A chain
// is the run of leases for one job_ref on one pane generation that no observed end separated:
// a lease continues the chain of the latest earlier lease for its job_ref unless that one was
// released (the job's end was seen). So letting a lease expire and acquiring again, or being
// superseded after a degraded/UNKNOWN lease, does not restart the clock. Every grant is
// clamped to the chain's deadline, and a lease that runs into it ends expired by `chain_cap`:
// CHAIN_CAP_REACHED, page a human now. A new pane generation starts new chains.
//
// Progress tokens: each renewal carries a token of what it saw (the target's identity, plus a
// progress marker when there is one: CPU time for a pid, a provider's or caller's progress
// value). K renewals in a row whose token equals the one before (the same evidence, no
// progress) escalate to a page (NO_PROGRESS) before any lifetime bound: a zombie that keeps
// verifying as alive is caught early. Any change of token is a sign of progress and resets it.
import { LeaseholdError, invalidArgument } from '../errors.ts';
import { type ClockReading, type Instant, instantOf } from './clockReading.ts';

/** Default chain cap: four hours of unattended authority per job-ref chain. */
export const DEFAULT_CHAIN_CAP_MS = 4 * 60 * 60_000;
/** Default K: this many identical renewals in a row escalate to a page. */
export const DEFAULT_IDENTICAL_RENEWAL_LIMIT = 12;

export interface ChainState {
  /** The first grant of the chain. */
  startedAt: Instant;
  /** The chain's deadline on the boot timeline of the lease's clock domain (null: no cap). */
  deadlineBootMs: number | null;
  /** The same deadline on the wall timeline, for display and for readings from another domain. */
  deadlineWallMs: number | null;
}

export interface ProgressState {
  /** The token of the last renewal (null before the first observation). */
  token: string | null;
  /** Renewals in a row whose token equalled the one before. */
  identicalRenewals: number;
  /** The last time the token changed: the last sign of progress the machine could see. */
  lastProgressAt: Instant | null;
  /** When identicalRenewals reached K (cleared by progress): the lease escalated to a page. */
  stalledSince: Instant | null;
}

/** What chain rules need of an earlier lease. */
export interface ChainLink {
  pane: string;
  generation: number;
  jobRef: string;
  grantedAt: Instant;
  endReason: 'released' | 'expired' | 'orphaned' | null;
  expiredBy: string | null;
  chain: ChainState;
}

export const EMPTY_PROGRESS: ProgressState = { token: null, identicalRenewals: 0, lastProgressAt: null, stalledSince: null };

function isWholeMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** The chain cap setting: positive whole ms. */
export function validateChainCapMs(input: unknown): number {
  if (!isWholeMs(input) || input <= 0) throw invalidArgument('chain_cap_ms', `chain_cap_ms must be a positive whole number of milliseconds (got ${JSON.stringify(input)})`);
  return input;
}

/** K: a whole number of renewals, at least 1. */
export function validateIdenticalRenewalLimit(input: unknown): number {
  if (!isWholeMs(input) || input < 1) throw invalidArgument('identical_renewal_limit', `identical_renewal_limit must be a whole number of renewals, at least 1 (got ${JSON.stringify(input)})`);
  return input;
}

export function chainCapReached(jobRef: string, detail: string): LeaseholdError {
  return new LeaseholdError('CHAIN_CAP_REACHED', `the job-ref chain of ${jobRef} reached its chain cap (${detail}); unattended authority for it is over: a human must look (page now)`, {
    field: 'job_ref',
  });
}

/**
 * The earlier lease whose chain a new lease for `jobRef` on this pane generation continues:
 * the latest such lease, unless it was released (an observed end closes the chain). Null
 * starts a new chain.
 */
export function chainPredecessor(leases: readonly ChainLink[], pane: string, generation: number, jobRef: string): ChainLink | null {
  let latest: ChainLink | null = null;
  for (const lease of leases) {
    if (lease.pane !== pane || lease.generation !== generation || lease.jobRef !== jobRef) continue;
    if (latest === null || lease.grantedAt.wallMs > latest.grantedAt.wallMs) latest = lease;
  }
  return latest === null || latest.endReason === 'released' ? null : latest;
}

/**
 * The chain a new grant belongs to. Refuses (CHAIN_CAP_REACHED) to continue a chain that hit
 * its cap or whose deadline has passed: acquiring again must not reset the fuse. The deadline
 * is the chain's start plus the cap in force now (on the boot clock when the start was read in
 * this boot, else projected from the wall clock).
 */
export function chainFor(predecessor: ChainLink | null, now: ClockReading, capMs: number | null, jobRef: string): ChainState {
  if (predecessor === null) {
    return { startedAt: instantOf(now), deadlineBootMs: capMs === null ? null : now.bootMs + capMs, deadlineWallMs: capMs === null ? null : now.wallMs + capMs };
  }
  if (predecessor.expiredBy === 'chain_cap') throw chainCapReached(jobRef, 'an earlier lease of this chain ended at the cap');
  const startedAt = predecessor.chain.startedAt;
  if (capMs === null) return { startedAt, deadlineBootMs: null, deadlineWallMs: null };
  const sameBoot = startedAt.bootId !== null && startedAt.bootId === now.domain.bootId;
  const elapsed = sameBoot ? now.bootMs - startedAt.bootMs : now.wallMs - startedAt.wallMs;
  const remaining = capMs - Math.max(0, elapsed);
  if (remaining <= 0) throw chainCapReached(jobRef, `the chain started ${Math.round(Math.max(0, elapsed) / 1000)} s ago, cap ${Math.round(capMs / 1000)} s`);
  return { startedAt, deadlineBootMs: now.bootMs + remaining, deadlineWallMs: now.wallMs + remaining };
}

/** Authority the chain still allows at `now` (Infinity without a cap). */
export function chainRemainingMs(chain: ChainState, now: ClockReading): number {
  if (chain.deadlineBootMs === null) return Number.POSITIVE_INFINITY;
  return Math.max(0, chain.deadlineBootMs - now.bootMs);
}

/**
 * A sign of progress seen between renewals (a command's new output): the last sign moves to
 * `at` and the run of identical renewals starts over. An older sign changes nothing.
 */
export function progressSeen(previous: ProgressState, at: Instant): ProgressState {
  if (previous.lastProgressAt !== null && previous.lastProgressAt.wallMs >= at.wallMs) return previous;
  return { ...previous, identicalRenewals: 0, lastProgressAt: at, stalledSince: null };
}

/**
 * The next progress state after a renewal that observed `token`. The first observation is a
 * baseline (neither progress nor a repeat); then an equal token is one more identical renewal
 * and a different one is progress. Reaching `limit` identical renewals marks the lease stalled,
 * unless `escalates` is false: an inferred lease verifies only liveness, so its progress is
 * recorded and shown but never pages (the UNKNOWN floor already does, if unresolved).
 */
export function advanceProgress(previous: ProgressState, token: string, now: ClockReading, limit: number, escalates = true): ProgressState {
  if (previous.token === null) return { ...previous, token, identicalRenewals: 0, stalledSince: null };
  if (token !== previous.token) return { token, identicalRenewals: 0, lastProgressAt: instantOf(now), stalledSince: null };
  const identicalRenewals = previous.identicalRenewals + 1;
  const stalled = escalates && identicalRenewals >= limit;
  return { token, identicalRenewals, lastProgressAt: previous.lastProgressAt, stalledSince: stalled ? (previous.stalledSince ?? instantOf(now)) : null };
}
