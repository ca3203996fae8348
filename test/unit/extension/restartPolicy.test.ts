import assert from 'node:assert/strict';
import { RestartPolicy } from '../../../src/extension/server/restartPolicy.ts';

describe('extension: server restart backoff', () => {
  it('doubles the delay up to the cap, then gives up after repeated crashes in the window', () => {
    const policy = new RestartPolicy({ initialDelayMs: 1000, maxDelayMs: 5000, windowMs: 60_000, maxCrashes: 5 });
    assert.deepEqual(policy.recordCrash(0), { action: 'restart', attempt: 1, delayMs: 1000 });
    assert.deepEqual(policy.recordCrash(1), { action: 'restart', attempt: 2, delayMs: 2000 });
    assert.deepEqual(policy.recordCrash(2), { action: 'restart', attempt: 3, delayMs: 4000 });
    assert.deepEqual(policy.recordCrash(3), { action: 'restart', attempt: 4, delayMs: 5000 });
    assert.deepEqual(policy.recordCrash(4), { action: 'give_up', crashes: 5, windowMs: 60_000 });
  });
  it('forgets crashes older than the window', () => {
    const policy = new RestartPolicy({ windowMs: 60_000, maxCrashes: 3 });
    policy.recordCrash(0);
    policy.recordCrash(1);
    assert.equal(policy.recordCrash(70_000).action, 'restart');
    assert.equal(policy.recentCrashes, 1);
  });
  it('a manual restart starts afresh', () => {
    const policy = new RestartPolicy({ maxCrashes: 2 });
    policy.recordCrash(0);
    policy.reset();
    assert.equal(policy.recordCrash(1).action, 'restart');
  });
});
