// Builders of API views for the extension's pure-logic tests.
import type { PaneViewWire } from '../../../src/core/waitLease/wire.ts';
import type { LeaseViewWire } from '../../../src/extension/model/paneStatus.ts';

export const MIN = 60_000;
export const READ_AT = { monoMs: 10_000, wallMs: Date.UTC(2026, 11, 2, 12, 0, 0) };
export const later = (ms: number) => ({ monoMs: READ_AT.monoMs + ms, wallMs: READ_AT.wallMs + ms });

export function leaseView(overrides: Partial<LeaseViewWire> = {}): LeaseViewWire {
  return {
    lease_id: 'wl_1',
    pane: 'vscode-abc-1',
    generation: 1,
    job_ref: 'bslbv9989',
    job_type: 'shell',
    kind: 'declared',
    description: 'npm test',
    state: 'active',
    state_reason: null,
    valid: true,
    remaining_ms: 12 * MIN,
    expires_at: READ_AT.wallMs + 12 * MIN,
    authorized_until: null,
    clamped_by: [],
    observer: { kind: 'none' },
    renew_count: 0,
    last_evidence_at: null,
    end_reason: null,
    expired_by: null,
    ended_at: null,
    ended_ago_ms: null,
    ...overrides,
  };
}

export function paneView(leases: LeaseViewWire[], overrides: Partial<PaneViewWire> = {}): PaneViewWire {
  return { name: 'vscode-abc-1', generation: 1, display_state: 'idle', leases, ...overrides };
}

export const NO_NOTICES = { showing: new Set<string>(), done: new Set<string>() };
