// The ledger row every lease leaves behind. Recorded, never acted upon: nothing on a decision
// path reads it. Declared TTLs are not trustworthy training data (operators inflate them to
// avoid pages); only measured durations of released leases are, and release is not completion.
import { elapsedMsSince } from './clockReading.ts';
import type { EndReason, WaitLeaseRecord } from './lease.ts';

export type Censoring = 'exact' | 'right_censored' | 'unknown';

export interface LedgerRow {
  lease_id: string;
  pane: string;
  job_ref: string;
  job_type: string;
  kind: string;
  declared_ttl_ms: number;
  granted_at: number;
  ended_at: number | null;
  end_reason: EndReason | null;
  release_note: string | null;
  censoring: Censoring;
  measured_duration_ms: number | null;
}

/**
 * Censoring by end reason: released → exact (the wait was observed to end); expired →
 * right_censored (it proves only "longer than the TTL"); orphaned, or not ended → unknown.
 */
export function censoringOf(endReason: EndReason | null): Censoring {
  if (endReason === 'released') return 'exact';
  if (endReason === 'expired') return 'right_censored';
  return 'unknown';
}

export function ledgerRowOf(record: WaitLeaseRecord): LedgerRow {
  const ended = record.state === 'ended' && record.endedAt !== null ? record.endedAt : null;
  const measured =
    ended === null
      ? null
      : elapsedMsSince(record.grantedAt, { bootMs: ended.bootMs, wallMs: ended.wallMs, domain: { bootId: ended.bootId, countsSuspend: record.clockDomain.countsSuspend } });
  return {
    lease_id: record.id,
    pane: record.pane,
    job_ref: record.jobRef,
    job_type: record.jobType,
    kind: record.kind,
    declared_ttl_ms: record.declaredTtlMs,
    granted_at: record.grantedAt.wallMs,
    ended_at: ended?.wallMs ?? null,
    end_reason: ended ? record.endReason : null,
    release_note: record.releaseNote,
    censoring: censoringOf(ended ? record.endReason : null),
    measured_duration_ms: measured,
  };
}
