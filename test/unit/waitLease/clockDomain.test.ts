import assert from 'node:assert/strict';
import { judgeContinuity, judgeRestart } from '../../../src/core/waitLease/clockDomain.ts';
import { MIN, at } from './fixtures.ts';

describe('wait-lease clock continuity', () => {
  it('clocks advancing together are continuous', () => {
    const judgement = judgeContinuity(at(0), at(MIN));
    assert.equal(judgement.kind, 'continuous');
    assert.equal(judgement.leasesBecomeUnknown, false);
  });

  it('a wall rollback while the boot clock advanced is explained and changes no lease', () => {
    const judgement = judgeContinuity(at(0), at(MIN, { wallOffsetMs: -60 * MIN }));
    assert.equal(judgement.kind, 'wall_rollback');
    assert.equal(judgement.leasesBecomeUnknown, false);
  });

  it('a suspend on a suspend-counting clock is continuous (both clocks advanced)', () => {
    assert.equal(judgeContinuity(at(0), at(8 * 60 * MIN)).kind, 'continuous');
  });

  it('the wall running ahead of a suspend-counting boot clock is a wall jump, not a reason for UNKNOWN', () => {
    const judgement = judgeContinuity(at(0), at(MIN, { wallOffsetMs: 30 * MIN }));
    assert.equal(judgement.kind, 'wall_jump_forward');
    assert.equal(judgement.leasesBecomeUnknown, false);
  });

  it('a boot clock going backwards is a reboot: UNKNOWN', () => {
    const judgement = judgeContinuity(at(MIN), at(0, { wallOffsetMs: 2 * MIN }));
    assert.equal(judgement.kind, 'reboot');
    assert.equal(judgement.leasesBecomeUnknown, true);
  });

  it('a changed boot id is a reboot: UNKNOWN', () => {
    assert.equal(judgeContinuity(at(0), at(MIN, { bootId: 'boot-b' })).kind, 'reboot');
  });

  it('a boot id appearing or vanishing, or changed clock semantics, is unverifiable: UNKNOWN', () => {
    assert.equal(judgeContinuity(at(0), at(MIN, { bootId: null })).kind, 'unverifiable');
    assert.equal(judgeContinuity(at(0), at(MIN, { countsSuspend: false })).leasesBecomeUnknown, true);
  });

  it('on a clock that does not count suspend, wall far ahead of boot is an unaccounted suspend: UNKNOWN', () => {
    const before = at(0, { countsSuspend: false });
    const slept = at(MIN, { countsSuspend: false, wallOffsetMs: 45 * MIN });
    const judgement = judgeContinuity(before, slept);
    assert.equal(judgement.kind, 'unaccounted_suspend');
    assert.equal(judgement.leasesBecomeUnknown, true);
  });

  it('small drift within tolerance is not a suspend', () => {
    const before = at(0, { countsSuspend: false });
    assert.equal(judgeContinuity(before, at(MIN, { countsSuspend: false, wallOffsetMs: MIN + 500 })).kind, 'continuous');
    assert.equal(judgeContinuity(before, at(MIN, { countsSuspend: false, wallOffsetMs: MIN + 500 }), { suspendToleranceMs: 100 }).kind, 'unaccounted_suspend');
  });

  it('two readings without boot identity in one process are judged by the clocks alone', () => {
    assert.equal(judgeContinuity(at(0, { bootId: null }), at(MIN, { bootId: null })).kind, 'continuous');
  });
});

describe('wait-lease restart judgement', () => {
  const domain = { bootId: 'boot-a', countsSuspend: true };
  it('the same verified boot keeps leases valid', () => {
    assert.deepEqual(judgeRestart(domain, { ...domain }).leasesBecomeUnknown, false);
  });
  it('a different boot makes leases UNKNOWN', () => {
    assert.equal(judgeRestart(domain, { bootId: 'boot-b', countsSuspend: true }).kind, 'reboot');
  });
  it('an unverifiable boot (null id on either side) makes leases UNKNOWN', () => {
    assert.equal(judgeRestart({ bootId: null, countsSuspend: true }, { bootId: null, countsSuspend: true }).leasesBecomeUnknown, true);
    assert.equal(judgeRestart(domain, { bootId: null, countsSuspend: true }).kind, 'unverifiable');
  });
  it('changed clock semantics make leases UNKNOWN', () => {
    assert.equal(judgeRestart(domain, { bootId: 'boot-a', countsSuspend: false }).kind, 'unverifiable');
  });
});
