import assert from 'node:assert/strict';
import { censoringOf, ledgerRowOf } from '../../../src/core/waitLease/ledger.ts';
import { expireIfDue, orphan, release } from '../../../src/core/waitLease/lease.ts';
import { MIN, WALL0, acquireLease, at, expectOk } from './fixtures.ts';

describe('wait-lease ledger rows', () => {
  it('censoring: exact for released, right_censored for expired, unknown otherwise', () => {
    assert.equal(censoringOf('released'), 'exact');
    assert.equal(censoringOf('expired'), 'right_censored');
    assert.equal(censoringOf('orphaned'), 'unknown');
    assert.equal(censoringOf(null), 'unknown');
  });

  it('a released lease records its measured duration exactly, with the release note', () => {
    const lease = acquireLease({ jobType: 'test', ttlMs: 30 * MIN });
    const released = expectOk(release(lease, { tokenHash: 'hash-good', now: at(7 * MIN), reason: 'exit 0' })).record;
    assert.deepEqual(ledgerRowOf(released), {
      lease_id: 'wl_1',
      pane: 'pane-a',
      job_ref: 'bslbv9989',
      job_type: 'test',
      kind: 'declared',
      declared_ttl_ms: 30 * MIN,
      granted_at: WALL0,
      ended_at: WALL0 + 7 * MIN,
      end_reason: 'released',
      release_note: 'exit 0',
      censoring: 'exact',
      measured_duration_ms: 7 * MIN,
    });
  });

  it('an expired lease is right-censored at its TTL, however late it was swept', () => {
    const row = ledgerRowOf(expireIfDue(acquireLease(), at(50 * MIN)));
    assert.equal(row.censoring, 'right_censored');
    assert.equal(row.measured_duration_ms, 10 * MIN);
  });

  it('an orphaned lease and an open lease have unknown censoring', () => {
    assert.equal(ledgerRowOf(orphan(acquireLease(), { paneGeneration: 2, now: at(MIN) })).censoring, 'unknown');
    const open = ledgerRowOf(acquireLease());
    assert.equal(open.censoring, 'unknown');
    assert.equal(open.ended_at, null);
    assert.equal(open.measured_duration_ms, null);
  });
});
