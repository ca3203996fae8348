import assert from 'node:assert/strict';
import type { EndpointView, TodoView } from '../../../src/core/wire/claims.ts';
import { ALL_VERBS } from '../../../src/core/verbs.ts';
import { paneStatus } from '../../../src/extension/model/paneStatus.ts';
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
    const status = paneStatus({ pane: paneView([leaseView(), leaseView({ lease_id: 'wl_2', job_ref: 'x', state: 'degraded', valid: false })]), readAt: READ_AT }, READ_AT, NO_NOTICES);
    const pane = paneItem(status, { thisWindow: true, terminalTitle: 'bash' });
    assert.equal(pane.label, 'bash');
    assert.equal(pane.description, 'idle · awaiting bslbv9989 (npm test), 12m left · lease degraded');
    assert.equal(pane.contextValue, 'pane-local');
    assert.equal(pane.collapsible, 'expanded');
    const [live, degraded] = status.leases.map((line) => leaseItem(status.pane, line));
    assert.equal(live.label, 'bslbv9989');
    assert.equal(live.description, 'npm test · declared · 12m left · observer: process 4242');
    assert.equal(live.contextValue, 'lease-live');
    assert.match(degraded.description, /degraded/);
  });
});
