import assert from 'node:assert/strict';
import { annotatePane, formatAgo, formatRemaining, shouldShowExpiredNotice } from '../../../src/core/waitLease/annotation.ts';
import { consumeExpiredNotice, degrade, expireIfDue, markUnknown, release, type WaitLeaseRecord } from '../../../src/core/waitLease/lease.ts';
import { MIN, acquireLease, at } from './fixtures.ts';

function annotate(displayState: string, leases: WaitLeaseRecord[], offsetMs: number, shown: string[] = []) {
  return annotatePane({ displayState, generation: 1, leases, now: at(offsetMs), shownNoticeIds: new Set(shown) });
}

describe('wait-lease annotation', () => {
  it('formats remaining time: minutes rounded up from 1m, seconds below', () => {
    assert.equal(formatRemaining(12 * MIN), '12m');
    assert.equal(formatRemaining(11 * MIN + 1), '12m');
    assert.equal(formatRemaining(MIN), '1m');
    assert.equal(formatRemaining(59_001), '60s');
    assert.equal(formatRemaining(1_500), '2s');
    assert.equal(formatRemaining(0), '0s');
    assert.equal(formatAgo(3 * MIN + 59_000), '3m');
    assert.equal(formatAgo(42_900), '42s');
  });

  it('shows one lease with its job, description and time left, beside the unchanged display state', () => {
    const lease = acquireLease({ description: 'npm test', ttlMs: 20 * MIN });
    assert.equal(annotate('idle', [lease], 8 * MIN).text, 'idle · awaiting bslbv9989 (npm test), 12m left');
    assert.equal(annotate('idle', [acquireLease()], 10 * MIN - 30_000).text, 'idle · awaiting bslbv9989, 30s left');
  });

  it('marks an inferred lease as such', () => {
    assert.equal(annotate('idle', [acquireLease({ kind: 'inferred' })], 0).text, 'idle · awaiting bslbv9989 (inferred), 10m left');
  });

  it('a held lease says it is held on its process and how long it has run, not a TTL that jumps back on each renewal', () => {
    const held: WaitLeaseRecord = { ...acquireLease({ description: 'npm test', ttlMs: 30 * MIN }), observer: { kind: 'pid', pid: 4242, startTime: '1' } };
    assert.equal(annotate('idle', [held], 4 * MIN + 10_000).text, 'idle · awaiting bslbv9989 (npm test), held on its process, running for 4m');
    assert.equal(annotate('idle', [held], 40_000).text, 'idle · awaiting bslbv9989 (npm test), held on its process, running for 40s');
    const job: WaitLeaseRecord = { ...acquireLease(), observer: { kind: 'provider_job', id: 'ci-1' } };
    assert.match(annotate('idle', [job], MIN).text, /held on its provider job, running for 1m$/);
  });

  it('a held lease with a ceiling counts down to the ceiling: the one real deadline', () => {
    const base = acquireLease({ ttlMs: 10 * MIN });
    const held: WaitLeaseRecord = { ...base, observer: { kind: 'pid', pid: 4242, startTime: '1' }, authorizedUntilWallMs: at(25 * MIN).wallMs, authorizedUntilBootMs: at(25 * MIN).bootMs };
    assert.equal(annotate('idle', [held], 5 * MIN).text, 'idle · awaiting bslbv9989, held on its process, running for 5m, ceiling in 20m');
  });

  it('several leases: the next deadline counts only unheld leases', () => {
    const held = (id: string): WaitLeaseRecord => ({ ...acquireLease({ id, jobRef: id, ttlMs: 2 * MIN }), observer: { kind: 'pid', pid: 4242, startTime: '1' } });
    assert.equal(annotate('working', [held('a'), acquireLease({ id: 'b', jobRef: 'b', ttlMs: 9 * MIN })], 0).text, 'working · awaiting 2 jobs, next ends in 9m');
    assert.equal(annotate('working', [held('a'), held('b')], 0).text, 'working · awaiting 2 jobs, all held while they run');
  });

  it('summarises several leases with the next to end', () => {
    const leases = [
      acquireLease({ id: 'a', jobRef: 'a', ttlMs: 4 * MIN }),
      acquireLease({ id: 'b', jobRef: 'b', ttlMs: 10 * MIN }),
      acquireLease({ id: 'c', jobRef: 'c', ttlMs: 20 * MIN }),
    ];
    assert.equal(annotate('working', leases, 0).text, 'working · awaiting 3 jobs, next ends in 4m');
  });

  it('shows degraded and UNKNOWN leases as such', () => {
    assert.equal(annotate('idle', [degrade(acquireLease(), { reason: 'x', now: at(0) })], MIN).text, 'idle · lease degraded');
    assert.equal(annotate('idle', [markUnknown(acquireLease(), { reason: 'x', now: at(0) })], MIN).text, 'idle · lease UNKNOWN');
  });

  it('shows "lease expired N ago" once, then never again', () => {
    const lease = acquireLease();
    const first = annotate('idle', [lease], 13 * MIN);
    assert.equal(first.text, 'idle · lease expired 3m ago');
    assert.deepEqual(first.noticesShown, ['wl_1']);
    assert.equal(annotate('idle', [lease], 14 * MIN, first.noticesShown).text, 'idle');
    const consumed = consumeExpiredNotice(expireIfDue(lease, at(13 * MIN)), at(13 * MIN));
    assert.equal(annotate('idle', [consumed], 14 * MIN).text, 'idle');
  });

  it('shouldShowExpiredNotice is only for expired leases not yet shown', () => {
    const expired = expireIfDue(acquireLease(), at(11 * MIN));
    assert.equal(shouldShowExpiredNotice(expired, new Set()), true);
    assert.equal(shouldShowExpiredNotice(expired, new Set(['wl_1'])), false);
    assert.equal(shouldShowExpiredNotice(consumeExpiredNotice(expired, at(13 * MIN)), new Set()), false);
    assert.equal(shouldShowExpiredNotice(acquireLease(), new Set()), false);
  });

  it('consuming the notice before the lease expired consumes nothing: the notice is still owed once it expires', () => {
    const lease = acquireLease();
    const early = consumeExpiredNotice(lease, at(MIN));
    assert.equal(early.expiredNoticeConsumed, false, 'a live lease has no notice to consume');
    assert.equal(annotate('idle', [early], 13 * MIN).text, 'idle · lease expired 3m ago');
    const released = release(lease, { tokenHash: 'hash-good', now: at(MIN) });
    assert.ok(released.ok);
    assert.equal(consumeExpiredNotice(released.record, at(2 * MIN)).expiredNoticeConsumed, false, 'a released lease has no notice either');
    // Due but not yet swept: it counts as expired, so it can be consumed (and is swept on the way).
    const dueUnswept = consumeExpiredNotice(lease, at(11 * MIN));
    assert.deepEqual([dueUnswept.state, dueUnswept.endReason, dueUnswept.expiredNoticeConsumed], ['ended', 'expired', true]);
  });

  it('shows nothing extra for a pane without leases', () => {
    assert.deepEqual(annotate('done', [], 0), { text: 'done', parts: [], noticesShown: [] });
  });
});
