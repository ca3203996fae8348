// The text the status bar and the CLI show beside a pane's display state, e.g.
//   idle · awaiting bslbv9989 (npm test), 12m left
//   working · awaiting 3 jobs, next ends in 4m
//   idle · lease degraded      idle · lease UNKNOWN      idle · lease expired 3m ago (once)
// The display state itself is printed unchanged: the lease is an annotation, never a state.
import { type ClockReading, elapsedMsSince } from './clockReading.ts';
import { kindForConsumers } from './jobType.ts';
import { type WaitLeaseRecord, remainingMsAt } from './lease.ts';
import { currentLeasesByJobRef } from './paneLeases.ts';

export const ANNOTATION_SEPARATOR = ' · ';

/** Time left: whole minutes rounded up from one minute, else whole seconds rounded up (never shows less than is left). */
export function formatRemaining(ms: number): string {
  if (!(ms > 0)) return '0s';
  if (ms >= 60_000) return `${Math.ceil(ms / 60_000)}m`;
  return `${Math.ceil(ms / 1000)}s`;
}

/** Time since: whole minutes rounded down from one minute, else whole seconds. */
export function formatAgo(ms: number): string {
  if (!(ms > 0)) return '0s';
  if (ms >= 60_000) return `${Math.floor(ms / 60_000)}m`;
  return `${Math.floor(ms / 1000)}s`;
}

/**
 * Whether the one-shot "lease expired N ago" notice for this lease is still to be shown:
 * only for an expired lease, never twice (neither when the server has recorded it consumed
 * nor when this display has already shown it).
 */
export function shouldShowExpiredNotice(lease: WaitLeaseRecord, shownNoticeIds: ReadonlySet<string> = new Set()): boolean {
  return lease.state === 'ended' && lease.endReason === 'expired' && !lease.expiredNoticeConsumed && !shownNoticeIds.has(lease.id);
}

export interface PaneAnnotation {
  /** The full line: display state, then the lease parts. */
  text: string;
  /** The lease parts alone (empty when there is nothing to say). */
  parts: string[];
  /** Lease ids whose expired notice this annotation shows: record them as shown (consumeExpiredNotice). */
  noticesShown: string[];
}

export interface AnnotateInput {
  displayState: string;
  generation: number;
  leases: readonly WaitLeaseRecord[];
  now: ClockReading;
  shownNoticeIds?: ReadonlySet<string>;
}

export function annotatePane(input: AnnotateInput): PaneAnnotation {
  const { now } = input;
  const shown = input.shownNoticeIds ?? new Set<string>();
  const current = currentLeasesByJobRef(input.leases, input.generation, now);
  const parts: string[] = [];

  const valid = current.filter((lease) => lease.state === 'active');
  if (valid.length === 1) {
    const lease = valid[0];
    const label = [lease.description, kindForConsumers(lease.kind) === 'inferred' ? 'inferred' : null].filter(Boolean).join(', ');
    parts.push(`awaiting ${lease.jobRef}${label ? ` (${label})` : ''}, ${formatRemaining(remainingMsAt(lease, now))} left`);
  } else if (valid.length > 1) {
    const next = Math.min(...valid.map((lease) => remainingMsAt(lease, now)));
    parts.push(`awaiting ${valid.length} jobs, next ends in ${formatRemaining(next)}`);
  }

  const degraded = current.filter((lease) => lease.state === 'degraded').length;
  if (degraded > 0) parts.push(degraded === 1 ? 'lease degraded' : `${degraded} leases degraded`);
  const unknown = current.filter((lease) => lease.state === 'unknown').length;
  if (unknown > 0) parts.push(unknown === 1 ? 'lease UNKNOWN' : `${unknown} leases UNKNOWN`);

  const notices = current.filter((lease) => shouldShowExpiredNotice(lease, shown));
  if (notices.length > 0) {
    const latestAgo = Math.min(...notices.map((lease) => (lease.endedAt ? elapsedMsSince(lease.endedAt, now) : 0)));
    parts.push(notices.length === 1 ? `lease expired ${formatAgo(latestAgo)} ago` : `${notices.length} leases expired, latest ${formatAgo(latestAgo)} ago`);
  }

  const text = [input.displayState, ...parts].join(ANNOTATION_SEPARATOR);
  return { text, parts, noticesShown: notices.map((lease) => lease.id) };
}
