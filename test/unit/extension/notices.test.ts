import assert from 'node:assert/strict';
import { NOTICE_MAX_LINGER_MS, NOTICE_MIN_VISIBLE_MS, NoticeTracker } from '../../../src/extension/model/notices.ts';

describe('extension: one-shot expired notice', () => {
  it('reports a notice to the server only the first time it is shown', () => {
    const tracker = new NoticeTracker();
    assert.deepEqual(tracker.shown('p1', ['wl_1'], 0), ['wl_1']);
    assert.deepEqual(tracker.shown('p1', ['wl_1'], 500), []);
    assert.equal(tracker.isShowing('wl_1'), true);
  });

  it('clears after it was shown and the user moved on, and never comes back', () => {
    const tracker = new NoticeTracker();
    tracker.shown('p1', ['wl_1'], 0);
    assert.deepEqual(tracker.movedOn('p1', NOTICE_MIN_VISIBLE_MS - 1), [], 'a glance is not seeing it');
    assert.deepEqual(tracker.movedOn('p2', NOTICE_MIN_VISIBLE_MS), [], 'moving on from another pane does not clear it');
    assert.deepEqual(tracker.movedOn('p1', NOTICE_MIN_VISIBLE_MS), ['wl_1']);
    assert.equal(tracker.state().done.has('wl_1'), true);
    assert.equal(tracker.state().showing.has('wl_1'), false);
    assert.deepEqual(tracker.shown('p1', ['wl_1'], NOTICE_MIN_VISIBLE_MS + 1), [], 'done notices are not shown again');
  });

  it('a notice nobody moved on from clears after lingering', () => {
    const tracker = new NoticeTracker();
    tracker.shown('p1', ['wl_1'], 0);
    assert.deepEqual(tracker.expireLingering(NOTICE_MAX_LINGER_MS - 1), []);
    assert.deepEqual(tracker.expireLingering(NOTICE_MAX_LINGER_MS), ['wl_1']);
  });
});
