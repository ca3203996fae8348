// Per-job-type hard max TTLs: a setting that can only tighten the global cap, applied to every
// grant (acquire and renew) of a lease of that type. Pure, on explicit clock readings.
import assert from 'node:assert/strict';
import { LeaseholdError } from '../../../src/core/errors.ts';
import { hardMaxTtlMsFor, validateHardMaxTtlByJobType } from '../../../src/core/waitLease/grant.ts';
import { renew } from '../../../src/core/waitLease/lease.ts';
import { HARD_MAX, MIN, acquireLease, at, expectOk, pidProof } from './fixtures.ts';

function refusedOn(field: string) {
  return (error: unknown) => error instanceof LeaseholdError && error.code === 'invalid_argument' && error.field === field;
}

describe('per-job-type hard max TTL caps', () => {
  it('accepts known job types with positive whole ms up to the global cap', () => {
    assert.deepEqual(validateHardMaxTtlByJobType({ test: 10 * MIN, 'other:deploy': HARD_MAX }, HARD_MAX), { test: 10 * MIN, 'other:deploy': HARD_MAX });
    assert.deepEqual(validateHardMaxTtlByJobType(undefined, HARD_MAX), {});
  });

  it('refuses a cap looser than the global one, an unknown type, and a bad value, naming the type', () => {
    assert.throws(() => validateHardMaxTtlByJobType({ build: HARD_MAX + 1 }, HARD_MAX), refusedOn('hard_max_ttl_by_job_type.build'));
    assert.throws(() => validateHardMaxTtlByJobType({ 'Free Text': MIN }, HARD_MAX), refusedOn('hard_max_ttl_by_job_type.Free Text'));
    for (const bad of [0, -1, 1.5, '10m', null]) assert.throws(() => validateHardMaxTtlByJobType({ test: bad }, HARD_MAX), refusedOn('hard_max_ttl_by_job_type.test'), String(bad));
    assert.throws(() => validateHardMaxTtlByJobType([1], HARD_MAX), refusedOn('hard_max_ttl_by_job_type'));
  });

  it('the effective cap is the per-type one when set, never above the global one', () => {
    assert.equal(hardMaxTtlMsFor(HARD_MAX, { test: 10 * MIN }, 'test'), 10 * MIN);
    assert.equal(hardMaxTtlMsFor(HARD_MAX, { test: 10 * MIN }, 'build'), HARD_MAX);
    assert.equal(hardMaxTtlMsFor(HARD_MAX, { test: 2 * HARD_MAX }, 'test'), HARD_MAX, 'even an unvalidated looser value cannot loosen it');
    assert.equal(hardMaxTtlMsFor(HARD_MAX, { toString: 1 } as unknown as Record<string, number>, 'constructor'), HARD_MAX, 'only own keys count');
  });

  it('acquire and renew of a capped type are clamped by hard_max; other types keep the global cap', () => {
    const caps = { test: 10 * MIN };
    const capped = acquireLease({ ttlMs: 30 * MIN, jobType: 'test', hardMaxTtlMsByJobType: caps, observer: { kind: 'pid', pid: 4242, startTime: '98765' } });
    assert.equal(capped.expiresAtBootMs - capped.grantedAt.bootMs, 10 * MIN);
    assert.deepEqual(capped.clampedBy, ['hard_max']);
    const free = acquireLease({ ttlMs: 30 * MIN, jobType: 'build', hardMaxTtlMsByJobType: caps });
    assert.equal(free.expiresAtBootMs - free.grantedAt.bootMs, 30 * MIN);
    assert.deepEqual(free.clampedBy, []);

    const now = at(5 * MIN);
    const renewed = expectOk(renew(capped, { tokenHash: 'hash-good', ttlMs: 30 * MIN, source: 'caller', ...pidProof(now), now, hardMaxTtlMs: HARD_MAX, hardMaxTtlMsByJobType: caps }));
    assert.equal(renewed.grant.expiresInMs, 10 * MIN);
    assert.deepEqual(renewed.grant.clampedBy, ['hard_max']);
  });
});
