import assert from 'node:assert/strict';
import { paneStatus, paneTooltipMarkdown } from '../../../src/extension/model/paneStatus.ts';
import { MIN, NO_NOTICES, READ_AT, later, leaseView, paneView } from './fixtures.ts';

describe('extension: pane status line', () => {
  it('shows the display state and one lease with its job-ref, description and minutes left', () => {
    const status = paneStatus({ pane: paneView([leaseView()]), readAt: READ_AT }, READ_AT, NO_NOTICES);
    assert.equal(status.text, 'idle · awaiting bslbv9989 (npm test), 12m left');
    assert.equal(status.timeDependent, true);
    assert.equal(status.attention, 'none');
  });

  it('counts down on the local clock between server reads', () => {
    const snapshot = { pane: paneView([leaseView()]), readAt: READ_AT };
    assert.equal(paneStatus(snapshot, later(2 * MIN + 1), NO_NOTICES).text, 'idle · awaiting bslbv9989 (npm test), 10m left');
    assert.equal(paneStatus(snapshot, later(10 * MIN - 30_000), NO_NOTICES).text, 'idle · awaiting bslbv9989 (npm test), 3m left');
  });

  it('an unverifiable lease stops reading "awaiting" at the no-news bound on the local clock too (issue 8 item 3)', () => {
    const snapshot = { pane: paneView([leaseView({ remaining_ms: 30 * MIN, running_ms: 4 * MIN, last_evidence_at: READ_AT.wallMs - MIN })]), readAt: READ_AT };
    assert.match(paneStatus(snapshot, later(9 * MIN - 1), NO_NOTICES).text, /awaiting bslbv9989/, 'news a minute before the read: 9m to go');
    const stale = paneStatus(snapshot, later(9 * MIN), NO_NOTICES);
    assert.equal(stale.text, 'idle · lease degraded');
    assert.equal(stale.attention, 'warning');
  });

  it('summarises several leases', () => {
    const pane = paneView([leaseView(), leaseView({ lease_id: 'wl_2', job_ref: 'agent-7', description: null, remaining_ms: 4 * MIN })]);
    assert.equal(paneStatus({ pane, readAt: READ_AT }, READ_AT, NO_NOTICES).text, 'idle · awaiting 2 jobs, next ends in 4m');
  });

  it('never changes the display state; degraded and UNKNOWN are shown as such', () => {
    const pane = paneView(
      [leaseView({ state: 'degraded', valid: false, state_reason: 'cannot verify pid' }), leaseView({ lease_id: 'wl_2', job_ref: 'b', state: 'unknown', valid: false })],
      { display_state: 'working' },
    );
    const status = paneStatus({ pane, readAt: READ_AT }, READ_AT, NO_NOTICES);
    assert.equal(status.text, 'working · lease degraded · lease UNKNOWN');
    assert.equal(status.attention, 'error');
  });

  it('shows "lease expired N ago" while the notice is pending, and not once the server has it consumed', () => {
    const expired = leaseView({ state: 'ended', valid: false, remaining_ms: 0, end_reason: 'expired', expired_by: 'ttl', ended_at: READ_AT.wallMs - 3 * MIN, ended_ago_ms: 3 * MIN, notice_pending: true });
    const pending = paneStatus({ pane: paneView([expired]), readAt: READ_AT }, READ_AT, NO_NOTICES);
    assert.equal(pending.text, 'idle · lease expired 3m ago');
    assert.deepEqual(pending.noticesShown, ['wl_1']);
    const consumed = paneStatus({ pane: paneView([{ ...expired, notice_pending: false }]), readAt: READ_AT }, READ_AT, NO_NOTICES);
    assert.equal(consumed.text, 'idle');
    // ...unless this display is still showing it (consumed because we showed it).
    const showing = paneStatus({ pane: paneView([{ ...expired, notice_pending: false }]), readAt: READ_AT }, READ_AT, { showing: new Set(['wl_1']), done: new Set() });
    assert.equal(showing.text, 'idle · lease expired 3m ago');
  });

  it('a lease that runs out locally reads as expired before the server says so', () => {
    const status = paneStatus({ pane: paneView([leaseView({ remaining_ms: 30_000, notice_pending: true })]), readAt: READ_AT }, later(90_000), NO_NOTICES);
    assert.equal(status.text, 'idle · lease expired 1m ago');
  });

  it('without notice_pending, falls back to the server annotation', () => {
    const expired = leaseView({ state: 'ended', valid: false, remaining_ms: 0, end_reason: 'expired', ended_ago_ms: MIN, ended_at: READ_AT.wallMs - MIN });
    assert.equal(paneStatus({ pane: paneView([expired], { annotation: 'idle' }), readAt: READ_AT }, READ_AT, NO_NOTICES).text, 'idle');
    assert.equal(paneStatus({ pane: paneView([expired], { annotation: 'idle · lease expired 1m ago' }), readAt: READ_AT }, READ_AT, NO_NOTICES).text, 'idle · lease expired 1m ago');
  });

  it('ignores leases of an older generation', () => {
    const status = paneStatus({ pane: paneView([leaseView({ generation: 1 })], { generation: 2 }), readAt: READ_AT }, READ_AT, NO_NOTICES);
    assert.equal(status.text, 'idle');
    assert.equal(status.timeDependent, false);
  });

  it('tooltip lists job-ref, kind, observer, remaining, ceiling and a release link per live lease', () => {
    const lease = leaseView({ authorized_until: READ_AT.wallMs + 30 * MIN, kind: 'inferred', observer: { kind: 'pid', pid: 4242, start_time: '1' } });
    const status = paneStatus({ pane: paneView([lease]), readAt: READ_AT }, READ_AT, NO_NOTICES);
    const markdown = paneTooltipMarkdown(status, (line) => `[Release](command:leasehold.releaseWaitLease?${line.leaseId})`);
    assert.match(markdown, /`bslbv9989` npm test/);
    assert.match(markdown, /\| inferred \| process 4242 \| held on its process, running for 0s, ceiling in 30m \| \d\d:\d\d \(in 30m\) \| \[Release\]\(command:leasehold\.releaseWaitLease\?wl_1\) \|/);
    assert.match(paneTooltipMarkdown(paneStatus({ pane: paneView([]), readAt: READ_AT }, READ_AT, NO_NOTICES), () => ''), /UNKNOWN/);
  });
});
