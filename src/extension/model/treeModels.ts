// What the Endpoints and Panes trees show for each API view: label, description, tooltip,
// contextValue (which menu actions apply) and icon name. Pure, so the wording is tested
// without VS Code; views/ turns these into TreeItems.
import { formatDurationSeconds } from '../../core/duration.ts';
import { formatRemaining } from '../../core/waitLease/annotation.ts';
import { ALL_VERBS, DRAIN_VERBS, WAIT_LEASE_VERBS } from '../../core/verbs.ts';
import type { EndpointView, TodoView } from '../../core/wire/claims.ts';
import { READING_LOOK, summarizePanes } from './paneReading.ts';
import type { PaneRow } from './paneRows.ts';
import type { PaneLeaseLine } from './paneStatus.ts';

export interface TreeItemModel {
  /** Stable id within the tree (survives refreshes, keeps expansion). */
  id: string;
  label: string;
  description: string;
  tooltip: string;
  /** Matched by `viewItem` in package.json menus. */
  contextValue: string;
  /** A codicon name. */
  icon: string;
  /** Theme color id for the icon, when it should stand out. */
  iconColor?: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
}

export const ENDPOINT_CONTEXT = {
  /** Active, with its own default lease (reset applies). */
  activeCustom: 'endpoint-active-custom',
  /** Active, on the server default. */
  activeServer: 'endpoint-active-server',
  revoked: 'endpoint-revoked',
} as const;

/** "15m · this endpoint's default" / "5m · server default". */
export function effectiveLeaseText(endpoint: Pick<EndpointView, 'effective_lease_ttl_seconds' | 'effective_lease_source'>): string {
  const whose = endpoint.effective_lease_source === 'endpoint' ? "this endpoint's default" : 'server default';
  return `${formatDurationSeconds(endpoint.effective_lease_ttl_seconds)} · ${whose}`;
}

export function scopeText(scope: readonly string[]): string {
  const has = (verbs: readonly string[]) => verbs.every((verb) => scope.includes(verb));
  if (scope.length === ALL_VERBS.length && has(ALL_VERBS)) return 'all verbs';
  const groups: string[] = [];
  let rest = [...scope];
  if (has(DRAIN_VERBS)) {
    groups.push('drain');
    rest = rest.filter((verb) => !(DRAIN_VERBS as readonly string[]).includes(verb));
  }
  if (has(WAIT_LEASE_VERBS)) {
    groups.push('wait-leases');
    rest = rest.filter((verb) => !(WAIT_LEASE_VERBS as readonly string[]).includes(verb));
  }
  return [...groups, ...rest].join(', ');
}

export function endpointItem(endpoint: EndpointView): TreeItemModel {
  const revoked = endpoint.state === 'revoked';
  const contextValue = revoked ? ENDPOINT_CONTEXT.revoked : endpoint.default_lease_ttl_seconds === null ? ENDPOINT_CONTEXT.activeServer : ENDPOINT_CONTEXT.activeCustom;
  const description = [effectiveLeaseText(endpoint), endpoint.state, `scope: ${scopeText(endpoint.scope)}`].join(' · ');
  const tooltip = [
    `${endpoint.name} (${endpoint.slug}, ${endpoint.id})`,
    `Lease TTL: ${effectiveLeaseText(endpoint)}`,
    `State: ${endpoint.state}${endpoint.revoked_at ? ` since ${new Date(endpoint.revoked_at).toISOString()}` : ''}`,
    `Scope: ${endpoint.scope.join(', ')}`,
    endpoint.friend ? 'Friend endpoint' : '',
  ]
    .filter(Boolean)
    .join('\n');
  return {
    id: `endpoint:${endpoint.id}`,
    label: endpoint.slug,
    description,
    tooltip,
    contextValue,
    icon: revoked ? 'circle-slash' : 'plug',
    iconColor: revoked ? 'disabledForeground' : undefined,
    collapsible: revoked ? 'none' : 'collapsed',
  };
}

export function claimItem(endpointId: string, claim: TodoView): TreeItemModel {
  const remaining = claim.lease_remaining_ms === null ? 'no lease' : claim.lease_remaining_ms > 0 ? `${formatRemaining(claim.lease_remaining_ms)} left` : 'lapsing';
  return {
    id: `claim:${endpointId}:${claim.id}`,
    label: claim.title,
    description: `${claim.queue} · ${remaining} · epoch ${claim.claim_epoch}`,
    tooltip: [`Todo ${claim.id} in queue ${claim.queue}`, `Lease: ${remaining}`, `Claim epoch (fencing token): ${claim.claim_epoch}`, `Attempts: ${claim.attempts}`].join('\n'),
    contextValue: 'claim',
    icon: 'tasklist',
    collapsible: 'none',
  };
}

/**
 * A pane row's id. It carries whether the pane has leases: VS Code remembers a row's folding by
 * id, and a row first seen without children would otherwise stay folded when a lease arrives.
 */
export function paneItemId(row: PaneRow): string {
  return `pane:${row.status.pane}${row.status.leases.length > 0 ? ':leases' : ''}`;
}

export function paneItem(row: PaneRow): TreeItemModel {
  const { status, reading } = row;
  const look = READING_LOOK[reading];
  const live = status.leases.length > 0;
  return {
    id: paneItemId(row),
    label: row.label,
    description: status.text,
    tooltip: [`${row.label}: ${look.words}`, `Pane ${status.pane}${row.local ? ' (this window)' : row.windowId ? ` (window ${row.windowId})` : ''}`, `Display state: ${status.displayState}`, status.parts.join('\n')].filter(Boolean).join('\n'),
    contextValue: `${row.local ? 'pane-local' : 'pane'}-${reading}`,
    icon: look.icon,
    iconColor: look.color,
    collapsible: live ? 'expanded' : 'none',
  };
}

export function windowItem(windowId: string, rows: readonly PaneRow[]): TreeItemModel {
  const summary = summarizePanes(rows.map((row) => row.reading));
  return {
    id: `window:${windowId}`,
    label: windowId ? `Window ${windowId.slice(0, 8)}` : 'Outside VS Code',
    description: summary.text.replace(/\$\([a-z-]+\) ?/g, ''),
    tooltip: summary.tooltip,
    contextValue: 'window',
    icon: 'window',
    collapsible: 'expanded',
  };
}

export function leaseItem(pane: string, line: PaneLeaseLine): TreeItemModel {
  const stateText =
    line.state === 'active' ? line.timeText : line.state === 'ended' ? `${line.endReason ?? 'ended'} ${line.endedAgo ?? ''} ago` : line.state === 'unknown' ? `UNKNOWN (${line.remaining} nominal)` : `degraded (${line.remaining} nominal)`;
  return {
    id: `lease:${pane}:${line.leaseId}`,
    label: line.jobRef,
    description: [line.description, line.kind, stateText, `observer: ${line.observer}`].filter(Boolean).join(' · '),
    tooltip: [
      `Wait-lease ${line.leaseId} on ${pane}`,
      `Job: ${line.jobRef}${line.description ? ` (${line.description})` : ''}, type ${line.jobType}, ${line.kind}`,
      `State: ${line.state}${line.stateReason ? ` (${line.stateReason})` : ''}`,
      `Time: ${line.timeText}`,
      `Ceiling: ${line.ceiling}`,
      `Observer: ${line.observer}`,
    ].join('\n'),
    contextValue: line.releasable ? 'lease-live' : 'lease-ended',
    icon: line.state === 'unknown' ? 'question' : line.state === 'degraded' ? 'warning' : line.state === 'ended' ? 'history' : 'watch',
    iconColor: line.state === 'unknown' ? 'errorForeground' : line.state === 'degraded' ? 'list.warningForeground' : undefined,
    collapsible: 'none',
  };
}
