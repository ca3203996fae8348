import assert from 'node:assert/strict';
import { LeaseholdError } from '../../../src/core/errors.ts';
import {
  ceilingReached,
  clampGrant,
  effectiveHardMaxTtlMs,
  projectCeiling,
  validateAuthorizedUntil,
  validateTtlMs,
} from '../../../src/core/waitLease/grant.ts';
import { HARD_MAX, MIN, WALL0, at } from './fixtures.ts';

describe('wait-lease grant clamp', () => {
  it('refuses a missing, zero, negative or fractional ttl_ms with invalid_argument naming ttl_ms', () => {
    for (const bad of [undefined, null, 0, -1, 1.5, '600000', Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => validateTtlMs(bad),
        (error: unknown) => error instanceof LeaseholdError && error.code === 'invalid_argument' && error.field === 'ttl_ms',
        String(bad),
      );
    }
    assert.equal(validateTtlMs(1), 1);
  });

  it('grants the requested TTL when nothing clamps it', () => {
    const grant = clampGrant({ now: at(0), ttlMs: 5 * MIN, hardMaxTtlMs: HARD_MAX, ceiling: null });
    assert.equal(grant.expiresInMs, 5 * MIN);
    assert.equal(grant.expiresAtBootMs, at(0).bootMs + 5 * MIN);
    assert.deepEqual(grant.clampedBy, []);
  });

  it('clamps to the server hard max and says so', () => {
    const grant = clampGrant({ now: at(0), ttlMs: 5 * HARD_MAX, hardMaxTtlMs: HARD_MAX, ceiling: null });
    assert.equal(grant.expiresInMs, HARD_MAX);
    assert.deepEqual(grant.clampedBy, ['hard_max']);
  });

  it('clamps to authorized_until and says so', () => {
    const ceiling = projectCeiling(WALL0 + 3 * MIN, at(0));
    const grant = clampGrant({ now: at(0), ttlMs: 10 * MIN, hardMaxTtlMs: HARD_MAX, ceiling });
    assert.equal(grant.expiresInMs, 3 * MIN);
    assert.deepEqual(grant.clampedBy, ['authorized_until']);
  });

  it('names only the binding clamp, and both when they tie', () => {
    const ceiling = projectCeiling(WALL0 + 30 * MIN, at(0));
    assert.deepEqual(clampGrant({ now: at(0), ttlMs: 90 * MIN, hardMaxTtlMs: 60 * MIN, ceiling }).clampedBy, ['authorized_until']);
    assert.deepEqual(clampGrant({ now: at(0), ttlMs: 90 * MIN, hardMaxTtlMs: 30 * MIN, ceiling }).clampedBy, ['hard_max', 'authorized_until']);
  });

  it('never passes min(now + ttl, now + hard max, authorized_until) for any combination', () => {
    for (const ttl of [1, MIN, 20 * MIN, 100 * MIN]) {
      for (const hardMax of [MIN, 30 * MIN]) {
        for (const ceilingOffset of [null, 10 * MIN, 50 * MIN]) {
          const ceiling = ceilingOffset === null ? null : projectCeiling(WALL0 + ceilingOffset, at(0));
          const grant = clampGrant({ now: at(0), ttlMs: ttl, hardMaxTtlMs: hardMax, ceiling });
          assert.equal(grant.expiresInMs, Math.min(ttl, hardMax, ceilingOffset ?? Infinity));
        }
      }
    }
  });

  it('a per-job-type cap only tightens the global hard max', () => {
    assert.equal(effectiveHardMaxTtlMs(HARD_MAX, 10 * MIN), 10 * MIN);
    assert.equal(effectiveHardMaxTtlMs(HARD_MAX, 10 * HARD_MAX), HARD_MAX);
    assert.equal(effectiveHardMaxTtlMs(HARD_MAX, null), HARD_MAX);
  });

  it('validates authorized_until as absolute wall ms, naming the field', () => {
    assert.equal(validateAuthorizedUntil(undefined), null);
    assert.throws(() => validateAuthorizedUntil('tomorrow'), (error: unknown) => error instanceof LeaseholdError && error.field === 'authorized_until');
  });
});

describe('wait-lease ceiling on two clocks', () => {
  it('is reached when the wall clock says so even if the boot projection has not', () => {
    const ceiling = projectCeiling(WALL0 + 10 * MIN, at(0));
    assert.equal(ceilingReached(ceiling, at(5 * MIN)), false);
    // The wall clock jumped 6 minutes ahead of the boot clock.
    assert.equal(ceilingReached(ceiling, at(5 * MIN, { wallOffsetMs: 11 * MIN })), true);
  });

  it('is reached when the boot projection says so even after the wall clock rolled back', () => {
    const ceiling = projectCeiling(WALL0 + 10 * MIN, at(0));
    // 10 minutes of real time passed, but the wall clock was set back an hour.
    assert.equal(ceilingReached(ceiling, at(10 * MIN, { wallOffsetMs: -50 * MIN })), true);
  });

  it('a re-projection after a wall rollback never moves the ceiling later', () => {
    const first = projectCeiling(WALL0 + 10 * MIN, at(0));
    const rolledBack = at(5 * MIN, { wallOffsetMs: -55 * MIN });
    const second = projectCeiling(WALL0 + 10 * MIN, rolledBack, first);
    assert.equal(second.bootMs, first.bootMs);
  });

  it('a grant made after a wall rollback is still bounded by the boot projection', () => {
    const ceiling = projectCeiling(WALL0 + 10 * MIN, at(0));
    const rolledBack = at(4 * MIN, { wallOffsetMs: -56 * MIN });
    const grant = clampGrant({ now: rolledBack, ttlMs: 30 * MIN, hardMaxTtlMs: HARD_MAX, ceiling });
    assert.equal(grant.expiresAtBootMs, ceiling.bootMs);
    assert.deepEqual(grant.clampedBy, ['authorized_until']);
  });
});
