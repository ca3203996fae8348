// Teardown check for destructive or expensive automation (e.g. tearing down billed resources).
// Yes only when ALL hold: (a) the lease is absent or expired, (b) an independent job-side
// heartbeat is stale, (c) a policy time floor has passed. A lease alone, the display alone, or
// both together never suffice: the job's own heartbeat is the independent witness.
import type { ClockReading } from './clockReading.ts';
import { type WaitLeaseRecord, leaseAt } from './lease.ts';

export const TEARDOWN_LEASE_STATES = ['absent', 'expired', 'active', 'degraded', 'unknown'] as const;
export type TeardownLeaseState = (typeof TEARDOWN_LEASE_STATES)[number];

export interface TeardownCheckInput {
  /** The job's lease: `absent` when there is none (never acquired, released or orphaned). Any other value is treated as not ended. */
  lease: TeardownLeaseState | string;
  /** Age of the job's own heartbeat (given by the caller, not derived from the lease); null when there is none. */
  jobHeartbeatAgeMs: number | null;
  heartbeatStaleAfterMs: number;
  /** How long the pane has been quiet / the job unattended. */
  quietForMs: number;
  policyFloorMs: number;
}

export interface TeardownCheck {
  allowed: boolean;
  /** Each unmet condition, named; empty exactly when allowed. */
  unmet: string[];
}

function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export function teardownCheck(input: TeardownCheckInput): TeardownCheck {
  const unmet: string[] = [];
  if (input.lease !== 'absent' && input.lease !== 'expired') {
    unmet.push(`lease_not_ended: the lease is ${input.lease}; it must be absent or expired`);
  }
  if (input.jobHeartbeatAgeMs === null || !isNonNegative(input.jobHeartbeatAgeMs)) {
    unmet.push('job_heartbeat_unknown: no independent job-side heartbeat was given, so it cannot be shown stale');
  } else if (!isNonNegative(input.heartbeatStaleAfterMs) || input.jobHeartbeatAgeMs < input.heartbeatStaleAfterMs) {
    unmet.push(`job_heartbeat_fresh: the job's heartbeat is ${input.jobHeartbeatAgeMs} ms old; stale only from ${input.heartbeatStaleAfterMs} ms`);
  }
  if (!isNonNegative(input.quietForMs) || !isNonNegative(input.policyFloorMs) || input.quietForMs < input.policyFloorMs) {
    unmet.push(`policy_floor_not_passed: quiet for ${input.quietForMs} ms; the policy floor is ${input.policyFloorMs} ms`);
  }
  return { allowed: unmet.length === 0, unmet };
}

/**
 * The teardown lease state of one job_ref from the pane's leases: its current lease as it
 * stands at `now`. Released and orphaned leases count as absent; an expired one as expired.
 */
export function teardownLeaseStateOf(leases: readonly WaitLeaseRecord[], jobRef: string, now: ClockReading): TeardownLeaseState {
  const current = leases.filter((lease) => lease.jobRef === jobRef).map((lease) => leaseAt(lease, now));
  if (current.length === 0) return 'absent';
  const live = current.filter((lease) => lease.state !== 'ended');
  if (live.some((lease) => lease.state === 'active')) return 'active';
  if (live.some((lease) => lease.state === 'unknown')) return 'unknown';
  if (live.some((lease) => lease.state === 'degraded')) return 'degraded';
  const latest = current.reduce((a, b) => ((b.endedAt?.wallMs ?? 0) > (a.endedAt?.wallMs ?? 0) ? b : a));
  return latest.endReason === 'expired' ? 'expired' : 'absent';
}
