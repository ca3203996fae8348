import assert from 'node:assert/strict';
import { TEARDOWN_LEASE_STATES, teardownCheck, teardownLeaseStateOf } from '../../../src/core/waitLease/teardown.ts';
import { degrade, release } from '../../../src/core/waitLease/lease.ts';
import { MIN, acquireLease, at, expectOk } from './fixtures.ts';

const STALE_AFTER = 5 * MIN;
const FLOOR = 30 * MIN;
const HEARTBEATS = { stale: 10 * MIN, fresh: MIN, absent: null } as const;
const FLOORS = { passed: 40 * MIN, not_passed: 10 * MIN } as const;

describe('teardown check', () => {
  describe('truth table over every combination', () => {
    for (const lease of TEARDOWN_LEASE_STATES) {
      for (const [heartbeatName, heartbeatAge] of Object.entries(HEARTBEATS)) {
        for (const [floorName, quietFor] of Object.entries(FLOORS)) {
          const leaseOk = lease === 'absent' || lease === 'expired';
          const expected = leaseOk && heartbeatName === 'stale' && floorName === 'passed';
          it(`lease ${lease}, heartbeat ${heartbeatName}, floor ${floorName} → ${expected ? 'yes' : 'no'}`, () => {
            const result = teardownCheck({ lease, jobHeartbeatAgeMs: heartbeatAge, heartbeatStaleAfterMs: STALE_AFTER, quietForMs: quietFor, policyFloorMs: FLOOR });
            assert.equal(result.allowed, expected);
            assert.equal(result.unmet.length === 0, expected);
            assert.equal(result.unmet.some((u) => u.startsWith('lease_not_ended')), !leaseOk);
            assert.equal(result.unmet.some((u) => u.startsWith('job_heartbeat')), heartbeatName !== 'stale');
            assert.equal(result.unmet.some((u) => u.startsWith('policy_floor_not_passed')), floorName !== 'passed');
          });
        }
      }
    }
  });

  it('a lease alone, the display alone, or both never yield yes (no independent heartbeat)', () => {
    for (const lease of TEARDOWN_LEASE_STATES) {
      for (const quiet of [0, FLOOR, 10 * FLOOR]) {
        assert.equal(teardownCheck({ lease, jobHeartbeatAgeMs: null, heartbeatStaleAfterMs: STALE_AFTER, quietForMs: quiet, policyFloorMs: FLOOR }).allowed, false);
      }
    }
  });

  it('an unknown lease state or nonsense numbers never yield yes', () => {
    assert.equal(teardownCheck({ lease: 'paused', jobHeartbeatAgeMs: 10 * MIN, heartbeatStaleAfterMs: STALE_AFTER, quietForMs: 40 * MIN, policyFloorMs: FLOOR }).allowed, false);
    assert.equal(teardownCheck({ lease: 'absent', jobHeartbeatAgeMs: Number.NaN, heartbeatStaleAfterMs: STALE_AFTER, quietForMs: 40 * MIN, policyFloorMs: FLOOR }).allowed, false);
    assert.equal(teardownCheck({ lease: 'absent', jobHeartbeatAgeMs: 10 * MIN, heartbeatStaleAfterMs: STALE_AFTER, quietForMs: Number.NaN, policyFloorMs: FLOOR }).allowed, false);
  });

  it('derives the lease state of a job from its leases', () => {
    const lease = acquireLease();
    assert.equal(teardownLeaseStateOf([], 'bslbv9989', at(0)), 'absent');
    assert.equal(teardownLeaseStateOf([lease], 'bslbv9989', at(MIN)), 'active');
    assert.equal(teardownLeaseStateOf([lease], 'bslbv9989', at(11 * MIN)), 'expired');
    assert.equal(teardownLeaseStateOf([degrade(lease, { reason: 'x', now: at(MIN) })], 'bslbv9989', at(MIN)), 'degraded');
    const released = expectOk(release(lease, { tokenHash: 'hash-good', now: at(MIN) })).record;
    assert.equal(teardownLeaseStateOf([released], 'bslbv9989', at(2 * MIN)), 'absent');
  });
});
