// A pane's leases are a set keyed by job_ref: per job_ref only the most recent lease speaks
// (a new acquire supersedes an expired, degraded or unknown one), and only the pane's current
// generation counts (older generations are orphaned).
import type { ClockReading } from './clockReading.ts';
import { type WaitLeaseRecord, leaseAt } from './lease.ts';

/** The current lease per job_ref at the pane's generation, each as it stands at `now`. Ordered by job_ref. */
export function currentLeasesByJobRef(leases: readonly WaitLeaseRecord[], generation: number, now: ClockReading): WaitLeaseRecord[] {
  const latest = new Map<string, WaitLeaseRecord>();
  for (const lease of leases) {
    if (lease.generation !== generation) continue;
    const current = leaseAt(lease, now);
    const seen = latest.get(lease.jobRef);
    if (!seen || isNewer(current, seen)) latest.set(current.jobRef, current);
  }
  return [...latest.values()].sort((a, b) => (a.jobRef < b.jobRef ? -1 : a.jobRef > b.jobRef ? 1 : 0));
}

function isNewer(a: WaitLeaseRecord, b: WaitLeaseRecord): boolean {
  // A live lease always outranks an ended one for the same job_ref; otherwise the later grant wins.
  if ((a.state === 'ended') !== (b.state === 'ended')) return b.state === 'ended';
  if (a.grantedAt.wallMs !== b.grantedAt.wallMs) return a.grantedAt.wallMs > b.grantedAt.wallMs;
  return a.id > b.id;
}
