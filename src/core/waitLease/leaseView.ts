// The wire view of one lease (snake_case), as list/get and verdicts return it.
import { type ClockReading, elapsedMsSince } from './clockReading.ts';
import { type LeaseKind, kindForConsumers } from './jobType.ts';
import { type ObserverDescription, type WaitLeaseRecord, leaseAt, remainingMsAt } from './lease.ts';

export type ObserverView =
  | { kind: 'none' }
  | { kind: 'pid'; pid: number; start_time: string }
  | { kind: 'provider_job'; id: string; command?: string[]; url?: string };

export interface LeaseView {
  lease_id: string;
  pane: string;
  generation: number;
  job_ref: string;
  job_type: string;
  /** Normalised for consumers: anything but `declared` reads as `inferred`. */
  kind: LeaseKind;
  description: string | null;
  state: 'active' | 'degraded' | 'unknown' | 'ended';
  state_reason: string | null;
  /** Counts toward `waiting`: active and not due. */
  valid: boolean;
  remaining_ms: number;
  /** Wall-clock estimate of the expiry, for display; the server judges on the boot clock. */
  expires_at: number;
  authorized_until: number | null;
  clamped_by: ('hard_max' | 'authorized_until' | 'chain_cap')[];
  observer: ObserverView;
  renew_count: number;
  last_evidence_at: number | null;
  end_reason: 'released' | 'expired' | 'orphaned' | null;
  expired_by: 'ttl' | 'authorized_until' | 'chain_cap' | null;
  ended_at: number | null;
  ended_ago_ms: number | null;
  /** How long since it was granted, on the lease clock (a held lease shows "running for"). */
  running_ms: number;
  /** The last sign of progress the machine saw (a renewal whose progress token changed), wall ms; null: none seen yet. */
  last_progress_at: number | null;
  /** Renewals in a row with the same evidence and no progress. */
  identical_renewals: number;
  /** Since when the lease has been escalated for no progress (K identical renewals), wall ms; null: not escalated. */
  no_progress_since: number | null;
  /** The job-ref chain: when its first lease was granted, and the cap's deadline (null: no cap), wall ms. */
  chain_started_at: number;
  chain_deadline: number | null;
}

export function observerView(observer: ObserverDescription): ObserverView {
  switch (observer.kind) {
    case 'none':
      return { kind: 'none' };
    case 'pid':
      return { kind: 'pid', pid: observer.pid, start_time: observer.startTime };
    case 'provider_job': {
      const view: ObserverView = { kind: 'provider_job', id: observer.id };
      if (observer.command) view.command = [...observer.command];
      if (observer.url) view.url = observer.url;
      return view;
    }
  }
}

export function leaseViewOf(record: WaitLeaseRecord, now: ClockReading): LeaseView {
  const current = leaseAt(record, now);
  return {
    lease_id: current.id,
    pane: current.pane,
    generation: current.generation,
    job_ref: current.jobRef,
    job_type: current.jobType,
    kind: kindForConsumers(current.kind),
    description: current.description,
    state: current.state,
    state_reason: current.stateReason,
    valid: current.state === 'active',
    remaining_ms: current.state === 'ended' ? 0 : remainingMsAt(current, now),
    expires_at: current.expiresAtWallMs,
    authorized_until: current.authorizedUntilWallMs,
    clamped_by: [...current.clampedBy],
    observer: observerView(current.observer),
    renew_count: current.renewCount,
    last_evidence_at: current.lastEvidence?.observedAtWallMs ?? null,
    end_reason: current.endReason,
    expired_by: current.expiredBy,
    ended_at: current.endedAt?.wallMs ?? null,
    ended_ago_ms: current.endedAt ? elapsedMsSince(current.endedAt, now) : null,
    running_ms: elapsedMsSince(current.grantedAt, now),
    last_progress_at: current.progress.lastProgressAt?.wallMs ?? null,
    identical_renewals: current.progress.identicalRenewals,
    no_progress_since: current.progress.stalledSince?.wallMs ?? null,
    chain_started_at: current.chain.startedAt.wallMs,
    chain_deadline: current.chain.deadlineWallMs,
  };
}
