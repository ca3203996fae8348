// What the status bar and the Panes view say about one pane, computed from the server's view of
// it (read at some local instant) and the local clock now, so a countdown stays current between
// server events without asking the server again. The wording is core's annotatePane: the
// lease is an annotation beside the display state, never a state.
import type { ClockDomain, ClockReading } from '../../core/waitLease/clockReading.ts';
import { annotatePane, formatAgo, formatRemaining, isHeld, leaseTimeText } from '../../core/waitLease/annotation.ts';
import { kindForConsumers, type JobType } from '../../core/waitLease/jobType.ts';
import type { WaitLeaseRecord } from '../../core/waitLease/lease.ts';
import { EMPTY_PROGRESS } from '../../core/waitLease/fuses.ts';
import { currentLeasesByJobRef } from '../../core/waitLease/paneLeases.ts';
import type { PaneViewWire } from '../../core/waitLease/wire.ts';

export type LeaseViewWire = PaneViewWire['leases'][number];

/** The extension's own timeline: a monotonic clock of this process. Never compared with the server's boot clock. */
export const LOCAL_DOMAIN: ClockDomain = { bootId: 'leasehold-extension-local', countsSuspend: false };

export interface LocalInstant {
  /** Monotonic ms (performance.now() in the extension). */
  monoMs: number;
  /** Wall ms. */
  wallMs: number;
}

export function localReading(instant: LocalInstant): ClockReading {
  return { bootMs: instant.monoMs, wallMs: instant.wallMs, domain: LOCAL_DOMAIN };
}

/** A pane as read from the server, and when (locally) it was read. */
export interface PaneSnapshot {
  pane: PaneViewWire;
  readAt: LocalInstant;
}

/**
 * Whether the server has recorded this lease's expired notice as shown: the view's
 * `notice_pending` when present; else the server's own annotation, which says "expired" only
 * while a notice is unconsumed.
 */
export function serverConsumedNotice(pane: PaneViewWire, lease: LeaseViewWire): boolean {
  const pending = (lease as { notice_pending?: unknown }).notice_pending;
  if (typeof pending === 'boolean') return !pending;
  if (typeof pane.annotation === 'string') return !/expired/.test(pane.annotation);
  return false;
}

function observerOf(observer: LeaseViewWire['observer']): WaitLeaseRecord['observer'] {
  if (observer.kind === 'pid') return { kind: 'pid', pid: observer.pid, startTime: observer.start_time };
  if (observer.kind === 'provider_job') return { kind: 'provider_job', id: observer.id };
  return { kind: 'none' };
}

/** The wire view as a domain record on the local timeline, as it stood when read. */
export function recordFromView(view: LeaseViewWire, readAt: LocalInstant, noticeConsumed: boolean): WaitLeaseRecord {
  const reading = localReading(readAt);
  const endedAt =
    view.ended_ago_ms !== null
      ? { bootMs: reading.bootMs - view.ended_ago_ms, wallMs: reading.wallMs - view.ended_ago_ms, bootId: LOCAL_DOMAIN.bootId }
      : view.ended_at !== null
        ? { bootMs: reading.bootMs - Math.max(0, reading.wallMs - view.ended_at), wallMs: view.ended_at, bootId: LOCAL_DOMAIN.bootId }
        : null;
  const runningMs = view.running_ms ?? 0;
  const grantedAt = { bootMs: reading.bootMs - runningMs, wallMs: reading.wallMs - runningMs, bootId: LOCAL_DOMAIN.bootId };
  return {
    id: view.lease_id,
    pane: view.pane,
    generation: view.generation,
    jobRef: view.job_ref,
    jobType: view.job_type as JobType,
    kind: kindForConsumers(view.kind),
    description: view.description,
    tokenHash: '',
    declaredTtlMs: Math.max(1, view.remaining_ms),
    grantedAt,
    clockDomain: LOCAL_DOMAIN,
    // The last news (core's no-news bound counts from it): the last evidence, on the local timeline.
    renewedAt:
      view.last_evidence_at === null
        ? null
        : { bootMs: reading.bootMs - Math.max(0, reading.wallMs - view.last_evidence_at), wallMs: view.last_evidence_at, bootId: LOCAL_DOMAIN.bootId },
    renewCount: view.renew_count,
    // remaining_ms already is the stricter of TTL and ceiling: it alone drives the countdown.
    expiresAtBootMs: reading.bootMs + view.remaining_ms,
    expiresAtWallMs: reading.wallMs + view.remaining_ms,
    // The ceiling on the local timeline: a held lease counts down to it (its one real deadline).
    authorizedUntilWallMs: view.authorized_until,
    authorizedUntilBootMs: view.authorized_until === null ? null : reading.bootMs + (view.authorized_until - reading.wallMs),
    clampedBy: [...view.clamped_by],
    state: view.state,
    stateReason: view.state_reason,
    endReason: view.end_reason,
    expiredBy: view.expired_by,
    endedAt,
    releaseNote: null,
    observer: observerOf(view.observer),
    lastEvidence: null,
    lastRefusal: null,
    expiredNoticeConsumed: noticeConsumed,
    // Fuses are the server's to judge; the local copy only counts down what the view says.
    chain: { startedAt: grantedAt, deadlineBootMs: null, deadlineWallMs: null },
    progress: EMPTY_PROGRESS,
  };
}

/** Notice bookkeeping the status bar keeps (see NoticeTracker). */
export interface NoticeState {
  /** Notices on screen right now: shown even though the server already has them consumed. */
  showing: ReadonlySet<string>;
  /** Notices shown and moved on from: never again. */
  done: ReadonlySet<string>;
}

export interface PaneLeaseLine {
  leaseId: string;
  jobRef: string;
  kind: 'declared' | 'inferred';
  jobType: string;
  description: string | null;
  state: LeaseViewWire['state'];
  stateReason: string | null;
  observer: string;
  remainingMs: number;
  remaining: string;
  /** Held on its process or provider job: no countdown, only how long it has run. */
  held: boolean;
  /** What is true about its time: "12m left", or "held on its process, running for 4m". */
  timeText: string;
  ceiling: string;
  endReason: LeaseViewWire['end_reason'];
  endedAgo: string | null;
  /** Can still be released by its owner (not ended). */
  releasable: boolean;
}

export interface PaneStatus {
  pane: string;
  displayState: string;
  /** e.g. "idle · awaiting bslbv9989 (npm test), 12m left". */
  text: string;
  /** The lease parts alone. */
  parts: string[];
  /** Lease ids whose expired notice this text shows. */
  noticesShown: string[];
  /** Something on the line counts time (a countdown or "expired N ago"): tick while shown. */
  timeDependent: boolean;
  attention: 'none' | 'warning' | 'error';
  leases: PaneLeaseLine[];
}

export function describeObserver(observer: LeaseViewWire['observer']): string {
  switch (observer.kind) {
    case 'none':
      return 'none (renewed by its holder)';
    case 'pid':
      return `process ${observer.pid}`;
    case 'provider_job':
      return `provider job ${observer.id}`;
  }
}

function ceilingText(view: LeaseViewWire, nowWallMs: number): string {
  if (view.authorized_until === null) return 'none';
  const at = new Date(view.authorized_until);
  const hh = String(at.getHours()).padStart(2, '0');
  const mm = String(at.getMinutes()).padStart(2, '0');
  const left = view.authorized_until - nowWallMs;
  return left > 0 ? `${hh}:${mm} (in ${formatRemaining(left)})` : `${hh}:${mm} (reached)`;
}

/** A VS Code terminal with no Claude Code session bound is a plain shell, not an agent state. */
export function hasAgentSession(pane: PaneViewWire): boolean {
  return !(pane.source === 'vscode' && pane.sessions !== undefined && pane.sessions.length === 0);
}

function displayStateOf(pane: PaneViewWire): string {
  return hasAgentSession(pane) ? pane.display_state : 'shell';
}

export function paneStatus(snapshot: PaneSnapshot, now: LocalInstant, notices: NoticeState): PaneStatus {
  const { pane, readAt } = snapshot;
  const reading = localReading(now);
  const records = pane.leases.map((view) =>
    recordFromView(view, readAt, notices.showing.has(view.lease_id) ? false : serverConsumedNotice(pane, view)),
  );
  const annotation = annotatePane({
    displayState: displayStateOf(pane),
    generation: pane.generation,
    leases: records,
    now: reading,
    shownNoticeIds: notices.done,
  });
  const current = currentLeasesByJobRef(records, pane.generation, reading);
  const byId = new Map(pane.leases.map((view) => [view.lease_id, view]));
  const lines: PaneLeaseLine[] = [];
  for (const record of current) {
    const view = byId.get(record.id);
    if (!view) continue;
    // Ended leases appear only while their notice is on screen.
    if (record.state === 'ended' && !annotation.noticesShown.includes(record.id)) continue;
    const remainingMs = record.state === 'ended' ? 0 : Math.max(0, record.expiresAtBootMs - reading.bootMs);
    lines.push({
      leaseId: record.id,
      jobRef: record.jobRef,
      kind: kindForConsumers(record.kind),
      jobType: view.job_type,
      description: record.description,
      state: record.state,
      stateReason: record.stateReason,
      observer: describeObserver(view.observer),
      remainingMs,
      remaining: record.state === 'ended' ? 'ended' : formatRemaining(remainingMs),
      held: isHeld(record),
      timeText: record.state === 'ended' ? 'ended' : leaseTimeText(record, reading),
      ceiling: ceilingText(view, now.wallMs),
      endReason: record.endReason,
      endedAgo: record.endedAt ? formatAgo(Math.max(0, reading.bootMs - record.endedAt.bootMs)) : null,
      releasable: record.state !== 'ended',
    });
  }
  const timeDependent = lines.some((line) => line.state === 'active' || line.state === 'ended');
  const attention = lines.some((line) => line.state === 'unknown')
    ? 'error'
    : lines.some((line) => line.state === 'degraded' || line.state === 'ended')
      ? 'warning'
      : 'none';
  return {
    pane: pane.name,
    displayState: displayStateOf(pane),
    text: annotation.text,
    parts: annotation.parts,
    noticesShown: annotation.noticesShown,
    timeDependent,
    attention,
    leases: lines,
  };
}

/** Markdown for the status bar tooltip. `releaseLink` builds a command link for one lease. */
export function paneTooltipMarkdown(status: PaneStatus, releaseLink: (line: PaneLeaseLine) => string): string {
  const out: string[] = [`**Leasehold** · pane \`${status.pane}\``, '', `Display state: **${status.displayState}** (as reported; a lease never changes it)`, ''];
  if (status.leases.length === 0) {
    out.push('No wait-lease: a quiet pane without a lease reads as UNKNOWN to stall detectors, not idle.');
    return out.join('\n');
  }
  out.push('| job | kind | observer | time | ceiling | |', '|---|---|---|---|---|---|');
  for (const line of status.leases) {
    const state = line.state === 'active' ? '' : line.state === 'ended' ? ` (${line.endReason ?? 'ended'} ${line.endedAgo ?? ''} ago)` : ` (**${line.state === 'unknown' ? 'UNKNOWN' : 'degraded'}**${line.stateReason ? `: ${line.stateReason}` : ''})`;
    const job = `\`${escapeCell(line.jobRef)}\`${line.description ? ` ${escapeCell(line.description)}` : ''}${state}`;
    out.push(`| ${job} | ${line.kind} | ${escapeCell(line.observer)} | ${escapeCell(line.timeText)} | ${escapeCell(line.ceiling)} | ${line.releasable ? releaseLink(line) : ''} |`);
  }
  return out.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/[|\\`*_[\]<>]/g, (ch) => `\\${ch}`).replace(/\n/g, ' ');
}
