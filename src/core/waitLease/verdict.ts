// The consumer contract: what a stall detector, a teardown script or the status bar may
// conclude about a pane. Leases never change the display state; they only add a reading beside
// it. Nothing here ever says "safe to kill": the strongest thing a lease does is suppress a
// stall alarm, and only a declared one.
import { type ClockReading, elapsedMsSince } from './clockReading.ts';
import { kindForConsumers } from './jobType.ts';
import type { WaitLeaseRecord } from './lease.ts';
import { type LeaseView, leaseViewOf } from './leaseView.ts';
import { currentLeasesByJobRef } from './paneLeases.ts';
import { type Disposition, type PagePolicy, type ReasonCode, dispositionRule, strongestDisposition } from './reasons.ts';

export const PANE_DISPLAY_STATES = ['idle', 'working', 'blocked', 'done', 'unknown'] as const;
export type PaneDisplayState = (typeof PANE_DISPLAY_STATES)[number];

/** Display states in which the screen shows nothing happening; any value not known here counts as quiet. */
const NOT_QUIET: readonly string[] = ['working', 'blocked'];

/**
 * How long after a lease ended a verdict still reports it. An expired lease whose job_ref got
 * no newer lease stays LEASE_STALE for this long; after that the pane simply reads as quiet
 * (UNKNOWN if no valid lease), which carries the same page-if-unresolved floor.
 */
export const DEFAULT_RECENT_END_WINDOW_MS = 15 * 60_000;

export interface VerdictReason {
  code: ReasonCode;
  lease_id: string;
  job_ref: string;
  detail: string;
}

/**
 * - `active`: the display shows activity (working, blocked); leases add nothing to judge.
 * - `waiting`: quiet, but a valid declared lease says the pane is waiting on a job.
 * - `UNKNOWN`: quiet with no valid declared lease. Distinct from idle: no automated
 *   termination, longer grace, page a human if it persists. An inferred lease leaves the
 *   reading UNKNOWN and only extends grace.
 */
export type PaneReading = 'active' | 'waiting' | 'UNKNOWN';

export interface Attention {
  /** What a stall detector may do with its alarm: `suppress` only for a valid declared lease. */
  stall_alarm: 'suppress' | 'extend_grace' | 'normal';
  page: PagePolicy;
  summary: string;
}

export interface PaneVerdict {
  pane: string;
  generation: number;
  /** Exactly as reported: leases never change it. */
  display_state: string;
  reading: PaneReading;
  /** True while any valid lease (declared or inferred) exists on the current generation. */
  waiting: boolean;
  /** `declared` when a valid declared lease exists, `inferred` when only inferred ones do. */
  waiting_basis: 'declared' | 'inferred' | null;
  leases: LeaseView[];
  reasons: VerdictReason[];
  disposition: Disposition;
  attention: Attention;
  /**
   * The last sign of progress the machine saw for any valid lease (wall ms; null: none seen):
   * tells "alive and moving" from "alive and still", which liveness alone cannot.
   */
  last_progress_at: number | null;
}

export interface PaneSnapshot {
  name: string;
  generation: number;
  displayState: string;
}

export interface VerdictOptions {
  recentEndWindowMs?: number;
}

/**
 * Reasons per current lease (the latest per job_ref):
 * - LEASE_STALE when the claim went stale: the lease is degraded (its target could not be
 *   verified), UNKNOWN (the clock cannot vouch for it: reboot, unverifiable restart,
 *   unexplained discontinuity), or expired by its TTL within the recent-end window with no
 *   newer lease for its job_ref (nobody renewed or released it: a wait or a stall?).
 * - OWNER_WINDOW_ENDED when it ended at its authorized_until within the window: a normal close.
 * - EVIDENCE_MISSING when its last renewal was refused for lack of target evidence and it has
 *   not been released or orphaned since.
 * - CHAIN_CAP_REACHED when it ended at its job-ref chain's cap within the window (fuses.ts):
 *   unattended authority for the job is over; page now.
 * - NO_PROGRESS while it is live and its last K renewals carried the same evidence with no
 *   progress (fuses.ts): alive but still, the zombie signature; page now.
 * Released and orphaned leases give no reason.
 */
function reasonsFor(lease: WaitLeaseRecord, now: ClockReading, recentEndWindowMs: number): VerdictReason[] {
  const reasons: VerdictReason[] = [];
  const base = { lease_id: lease.id, job_ref: lease.jobRef };
  const endedRecently = lease.endedAt !== null && elapsedMsSince(lease.endedAt, now) <= recentEndWindowMs;
  if (lease.state === 'degraded') {
    reasons.push({ code: 'LEASE_STALE', ...base, detail: `degraded: ${lease.stateReason ?? 'the target could not be verified'}` });
  } else if (lease.state === 'unknown') {
    reasons.push({ code: 'LEASE_STALE', ...base, detail: `UNKNOWN: ${lease.stateReason ?? 'the clock cannot vouch for this lease'}` });
  } else if (lease.endReason === 'expired' && endedRecently) {
    if (lease.expiredBy === 'authorized_until') {
      reasons.push({ code: 'OWNER_WINDOW_ENDED', ...base, detail: 'authority ended at authorized_until' });
    } else if (lease.expiredBy === 'chain_cap') {
      reasons.push({ code: 'CHAIN_CAP_REACHED', ...base, detail: "the job-ref chain reached its cap on unattended authority (renewals included)" });
    } else {
      reasons.push({ code: 'LEASE_STALE', ...base, detail: 'expired without renewal or release' });
    }
  }
  if (lease.state !== 'ended' && lease.progress.stalledSince !== null) {
    const since = lease.progress.lastProgressAt === null ? 'no sign of progress since it was granted' : `last sign of progress ${Math.round(elapsedMsSince(lease.progress.lastProgressAt, now) / 1000)} s ago`;
    reasons.push({ code: 'NO_PROGRESS', ...base, detail: `${lease.progress.identicalRenewals} renewals in a row with the same evidence; ${since}` });
  }
  const stillRelevant = lease.state !== 'ended' || (lease.endReason === 'expired' && endedRecently);
  if (lease.lastRefusal && stillRelevant) {
    reasons.push({ code: 'EVIDENCE_MISSING', ...base, detail: lease.lastRefusal.message });
  }
  return reasons;
}

const PAGE_ORDER: readonly PagePolicy[] = ['no', 'if_unresolved', 'now'];

function stronger(a: PagePolicy, b: PagePolicy): PagePolicy {
  return PAGE_ORDER.indexOf(a) >= PAGE_ORDER.indexOf(b) ? a : b;
}

export function isQuietDisplay(displayState: string): boolean {
  return !NOT_QUIET.includes(displayState);
}

export function computeVerdict(pane: PaneSnapshot, leases: readonly WaitLeaseRecord[], now: ClockReading, options: VerdictOptions = {}): PaneVerdict {
  const window = options.recentEndWindowMs ?? DEFAULT_RECENT_END_WINDOW_MS;
  const current = currentLeasesByJobRef(leases, pane.generation, now);
  const shown = current.filter((lease) => lease.state !== 'ended' || (lease.endedAt !== null && elapsedMsSince(lease.endedAt, now) <= window));
  const valid = current.filter((lease) => lease.state === 'active');
  const validDeclared = valid.filter((lease) => kindForConsumers(lease.kind) === 'declared');

  const reasons = current.flatMap((lease) => reasonsFor(lease, now, window));
  const disposition = strongestDisposition(reasons.map((reason) => reason.code));
  const quiet = isQuietDisplay(pane.displayState);
  const reading: PaneReading = !quiet ? 'active' : validDeclared.length > 0 ? 'waiting' : 'UNKNOWN';
  const waitingBasis = validDeclared.length > 0 ? 'declared' : valid.length > 0 ? 'inferred' : null;

  const stallAlarm: Attention['stall_alarm'] = waitingBasis === 'declared' ? 'suppress' : waitingBasis === 'inferred' ? 'extend_grace' : 'normal';
  // The UNKNOWN floor: quiet with no declared lease pages a human if it persists.
  const floorPage: PagePolicy = reading === 'UNKNOWN' ? 'if_unresolved' : 'no';
  const page = stronger(dispositionRule(disposition).page, floorPage);

  return {
    pane: pane.name,
    generation: pane.generation,
    display_state: pane.displayState,
    reading,
    waiting: valid.length > 0,
    waiting_basis: waitingBasis,
    leases: shown.map((lease) => leaseViewOf(lease, now)),
    reasons,
    disposition,
    attention: { stall_alarm: stallAlarm, page, summary: summarize(reading, waitingBasis, valid, reasons, disposition, page) },
    last_progress_at: valid.reduce<number | null>((latest, lease) => {
      const at = lease.progress.lastProgressAt?.wallMs ?? null;
      return at !== null && (latest === null || at > latest) ? at : latest;
    }, null),
  };
}

function summarize(
  reading: PaneReading,
  basis: PaneVerdict['waiting_basis'],
  valid: readonly WaitLeaseRecord[],
  reasons: readonly VerdictReason[],
  disposition: Disposition,
  page: PagePolicy,
): string {
  const parts: string[] = [];
  if (reading === 'active') parts.push('the display shows activity');
  else if (reading === 'waiting') parts.push(`waiting on ${valid.length === 1 ? valid[0].jobRef : `${valid.length} jobs`} under a declared lease; stall alarm suppressed`);
  else if (basis === 'inferred') parts.push('UNKNOWN: only an inferred lease, which extends grace but is never safe to keep billing');
  else parts.push('UNKNOWN: quiet with no valid lease (not idle); no automated termination');
  if (reasons.length > 0) parts.push(`${[...new Set(reasons.map((reason) => reason.code))].join(', ')} → ${disposition}`);
  if (page === 'now') parts.push('page a human now');
  else if (page === 'if_unresolved') parts.push('page a human if unresolved after grace');
  return parts.join('; ');
}
