// The text the status bar and the CLI show beside a pane's display state, e.g.
//   idle · awaiting bslbv9989 (npm test), 12m left
//   idle · awaiting bslbv9989 (npm test), held on its process, running for 4m
//   working · awaiting 3 jobs, next ends in 4m
//   idle · lease degraded      idle · lease UNKNOWN      idle · lease expired 3m ago (once)
// The display state itself is printed unchanged: the lease is an annotation, never a state.
import { type ClockReading, elapsedMsSince } from './clockReading.ts';
import { kindForConsumers } from './jobType.ts';
import { ceilingRemainingMs } from './grant.ts';
import { type WaitLeaseRecord, ceilingOf, remainingMsAt } from './lease.ts';
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

/**
 * A held lease (the server renews it while its process or provider job verifies) has no
 * deadline anyone can use: its TTL jumps back on every renewal. Only its ceiling, if any, is one.
 */
export function isHeld(lease: WaitLeaseRecord): boolean {
  return lease.observer.kind !== 'none';
}

/** The truthful time part of one live lease: a countdown only where a real deadline exists. */
export function leaseTimeText(lease: WaitLeaseRecord, now: ClockReading): string {
  if (!isHeld(lease)) return `${formatRemaining(remainingMsAt(lease, now))} left`;
  const on = lease.observer.kind === 'pid' ? 'its process' : 'its provider job';
  const ceiling = ceilingOf(lease);
  const deadline = ceiling ? `, ceiling in ${formatRemaining(ceilingRemainingMs(ceiling, now))}` : '';
  return `held on ${on}, running for ${formatAgo(elapsedMsSince(lease.grantedAt, now))}${deadline}`;
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
    parts.push(`awaiting ${lease.jobRef}${label ? ` (${label})` : ''}, ${leaseTimeText(lease, now)}`);
  } else if (valid.length > 1) {
    // Only unheld leases (and ceilings) have deadlines; held ones are renewed while they run.
    const deadlines = valid.map((lease) => (isHeld(lease) ? (ceilingOf(lease) ? ceilingRemainingMs(ceilingOf(lease), now) : null) : remainingMsAt(lease, now))).filter((ms): ms is number => ms !== null);
    parts.push(deadlines.length > 0 ? `awaiting ${valid.length} jobs, next ends in ${formatRemaining(Math.min(...deadlines))}` : `awaiting ${valid.length} jobs, all held while they run`);
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
