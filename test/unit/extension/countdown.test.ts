import assert from 'node:assert/strict';
import { MAX_TICK_MS, msUntilRemainingChanges, nextTickMs } from '../../../src/extension/model/countdown.ts';
import { paneStatus } from '../../../src/extension/model/paneStatus.ts';
import { MIN, NO_NOTICES, READ_AT, leaseView, paneView } from './fixtures.ts';

describe('extension: countdown ticks', () => {
  it('no tick when nothing on the line counts time', () => {
    assert.equal(nextTickMs(undefined), null);
    assert.equal(nextTickMs(paneStatus({ pane: paneView([]), readAt: READ_AT }, READ_AT, NO_NOTICES)), null);
    const degraded = paneView([leaseView({ state: 'degraded', valid: false })]);
    assert.equal(nextTickMs(paneStatus({ pane: degraded, readAt: READ_AT }, READ_AT, NO_NOTICES)), null);
  });

  it('ticks at most a second apart while a countdown is shown, sooner at a boundary', () => {
    assert.equal(nextTickMs(paneStatus({ pane: paneView([leaseView()]), readAt: READ_AT }, READ_AT, NO_NOTICES)), MAX_TICK_MS);
    const nearBoundary = paneView([leaseView({ remaining_ms: 5 * MIN + 200 })]);
    assert.equal(nextTickMs(paneStatus({ pane: nearBoundary, readAt: READ_AT }, READ_AT, NO_NOTICES)), 200);
  });

  it('knows when the displayed remaining time changes', () => {
    assert.equal(msUntilRemainingChanges(12 * MIN), 60_000);
    assert.equal(msUntilRemainingChanges(12 * MIN - 1), 60_000 - 1);
    assert.equal(msUntilRemainingChanges(30_500), 500);
    assert.equal(msUntilRemainingChanges(0), Number.POSITIVE_INFINITY);
  });
});
