// Typed calls of the pane and wait-lease half of the API (docs/api.md) over the one client's
// public call(); the typed client grows the same methods, and these can then delegate.
import type { LeaseholdClient } from '../client/client.ts';
import type { LedgerRowWire, PaneViewWire } from '../core/waitLease/wire.ts';
import type { LeaseViewWire } from './model/paneStatus.ts';

export interface RegisterPane {
  name: string;
  source: 'vscode';
  shell_pid?: number;
  shell_start_time?: string;
  window_id?: string;
  title?: string;
}

const enc = encodeURIComponent;

export async function registerPane(client: LeaseholdClient, pane: RegisterPane): Promise<PaneViewWire> {
  return (await client.call<{ pane: PaneViewWire }>('POST', '/api/v1/panes', { body: pane })).pane;
}
export async function closePane(client: LeaseholdClient, name: string): Promise<void> {
  await client.call('DELETE', `/api/v1/panes/${enc(name)}`);
}
export async function listPanes(client: LeaseholdClient): Promise<PaneViewWire[]> {
  return (await client.call<{ panes: PaneViewWire[] }>('GET', '/api/v1/panes')).panes;
}
export async function getPane(client: LeaseholdClient, name: string): Promise<PaneViewWire> {
  return (await client.call<{ pane: PaneViewWire }>('GET', `/api/v1/panes/${enc(name)}`)).pane;
}
export async function listWaitLeases(client: LeaseholdClient, query: { pane?: string; state?: string } = {}): Promise<LeaseViewWire[]> {
  return (await client.call<{ leases: LeaseViewWire[] }>('GET', '/api/v1/wait-leases', { query })).leases;
}
export async function releaseWaitLeaseByOwner(client: LeaseholdClient, leaseId: string, reason?: string): Promise<unknown> {
  return client.call('POST', `/api/v1/wait-leases/${enc(leaseId)}/release-by-owner`, { body: reason ? { reason } : {} });
}
export async function consumeExpiredNotice(client: LeaseholdClient, leaseId: string): Promise<void> {
  await client.call('POST', `/api/v1/wait-leases/${enc(leaseId)}/notice-consumed`, { body: {} });
}
export async function readLedger(client: LeaseholdClient, query: { job_type?: string; kind?: string; end_reason?: string; since?: number; limit?: number } = {}): Promise<LedgerRowWire[]> {
  return (await client.call<{ rows: LedgerRowWire[] }>('GET', '/api/v1/ledger', { query })).rows;
}
