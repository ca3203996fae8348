import assert from 'node:assert/strict';
import type { EndpointView, TodoView } from '../../../src/core/wire/claims.ts';
import { ALL_VERBS } from '../../../src/core/verbs.ts';
import { paneRows } from '../../../src/extension/model/paneRows.ts';
import { ENDPOINT_CONTEXT, claimItem, endpointItem, leaseItem, paneItem, scopeText } from '../../../src/extension/model/treeModels.ts';
import { NO_NOTICES, READ_AT, leaseView, paneView } from './fixtures.ts';

function endpoint(overrides: Partial<EndpointView> = {}): EndpointView {
  return {
    id: 'ep_1',
    slug: 'reviewer',
    name: 'reviewer',
    scope: [...ALL_VERBS],
    friend: false,
    state: 'active',
    default_lease_ttl_seconds: 900,
    effective_lease_ttl_seconds: 900,
    effective_lease_source: 'endpoint',
    created_at: 0,
    revoked_at: null,
    ...overrides,
  };
}

describe('extension: tree item models', () => {
  it('endpoint: effective lease and whose, state, scope; context for menus', () => {
    const custom = endpointItem(endpoint());
    assert.equal(custom.label, 'reviewer');
    assert.equal(custom.description, "15m · this endpoint's default · active · scope: all verbs");
    assert.equal(custom.contextValue, ENDPOINT_CONTEXT.activeCustom);
    const server = endpointItem(endpoint({ default_lease_ttl_seconds: null, effective_lease_ttl_seconds: 300, effective_lease_source: 'server' }));
    assert.equal(server.description, '5m · server default · active · scope: all verbs');
    assert.equal(server.contextValue, ENDPOINT_CONTEXT.activeServer);
    const revoked = endpointItem(endpoint({ state: 'revoked', revoked_at: 1 }));
    assert.equal(revoked.contextValue, ENDPOINT_CONTEXT.revoked);
    assert.equal(revoked.collapsible, 'none');
  });

  it('scope summary groups verbs', () => {
    assert.equal(scopeText(['claim', 'claim_next', 'heartbeat', 'release', 'complete']), 'drain');
    assert.equal(scopeText(['claim', 'get_default_lease']), 'claim, get_default_lease');
  });

  it('claim: todo, lease remaining, epoch', () => {
    const claim: TodoView = {
      id: 'td_1', queue: 'reviews', title: 'Review PR 12', payload: null, state: 'claimed', attempts: 1, claim_epoch: 3,
      holder: { endpoint_id: 'ep_1', slug: 'reviewer' }, held_by_other: false, lease_expires_at: 0, lease_remaining_ms: 14 * 60_000 + 1, created_at: 0, updated_at: 0, completed_at: null,
    };
    const item = claimItem('ep_1', claim);
    assert.equal(item.label, 'Review PR 12');
    assert.equal(item.description, 'reviews · 15m left · epoch 3');
  });

  it('pane and lease items', () => {
    const snapshot = { pane: paneView([leaseView({ observer: { kind: 'pid', pid: 4242, start_time: '1' }, running_ms: 4 * 60_000 }), leaseView({ lease_id: 'wl_2', job_ref: 'x', state: 'degraded', valid: false })]), readAt: READ_AT };
    const [row] = paneRows([snapshot], READ_AT, NO_NOTICES, () => ({ name: 'bash', position: 1 }));
    const pane = paneItem(row!);
    assert.equal(pane.label, 'bash');
    assert.equal(pane.description, 'idle · awaiting bslbv9989 (npm test), held on its process, running for 4m · lease degraded');
    assert.equal(pane.contextValue, 'pane-local-unknown');
    assert.equal(pane.collapsible, 'expanded');
    assert.equal(pane.id, 'pane:vscode-abc-1:leases', 'a pane with leases has its own id, so VS Code opens it unfolded');
    const [live, degraded] = row!.status.leases.map((line) => leaseItem(row!.status.pane, line));
    assert.equal(live!.label, 'bslbv9989');
    assert.equal(live!.description, 'npm test · declared · held on its process, running for 4m · observer: process 4242');
    assert.equal(live!.contextValue, 'lease-live');
    assert.match(degraded!.description, /degraded/);
  });

  it('a pane without leases is not expandable and has another id', () => {
    const [row] = paneRows([{ pane: paneView([]), readAt: READ_AT }], READ_AT, NO_NOTICES, () => undefined);
    const item = paneItem(row!);
    assert.equal(item.collapsible, 'none');
    assert.equal(item.id, 'pane:vscode-abc-1');
  });
});
