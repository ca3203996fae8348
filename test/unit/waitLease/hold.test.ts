import assert from 'node:assert/strict';
import { LeaseholdError } from '../../../src/core/errors.ts';
import { decideHoldStep, pinPidTarget } from '../../../src/core/waitLease/hold.ts';
import { degrade, renew } from '../../../src/core/waitLease/lease.ts';
import { HARD_MAX, MIN, acquireLease, at, expectOk } from './fixtures.ts';

const pidLease = () => acquireLease({ observer: { kind: 'pid', pid: 4242, startTime: '98765' } });
const jobLease = () => acquireLease({ observer: { kind: 'provider_job', id: 'gen-17', url: 'http://127.0.0.1:9/jobs/gen-17' } });

describe('hold loop decisions', () => {
  it('renews while the pid verifies with its start time, and the renewal is accepted', () => {
    const now = at(MIN);
    const step = decideHoldStep(pidLease(), { kind: 'pid', reading: { pid: 4242, startTime: '98765', readAtWallMs: now.wallMs } });
    assert.equal(step.action, 'renew');
    if (step.action !== 'renew') return;
    expectOk(renew(pidLease(), { tokenHash: 'hash-good', ttlMs: MIN, now, hardMaxTtlMs: HARD_MAX, evidence: step.evidence, pidReading: step.pidReading, source: 'server' }));
  });

  it('releases when the target exits, and when its pid was reused (start time differs)', () => {
    assert.equal(decideHoldStep(pidLease(), { kind: 'pid', reading: { pid: 4242, startTime: null, readAtWallMs: 1 } }).action, 'release');
    assert.equal(decideHoldStep(pidLease(), { kind: 'pid', reading: { pid: 4242, startTime: '11111', readAtWallMs: 1 } }).action, 'release');
  });

  it('degrades when the target cannot be verified', () => {
    assert.equal(decideHoldStep(pidLease(), { kind: 'pid', reading: null, error: 'EACCES' }).action, 'degrade');
    assert.equal(decideHoldStep(jobLease(), { kind: 'provider_job', state: null, observedAtWallMs: 1, error: 'timeout' }).action, 'degrade');
    assert.equal(decideHoldStep(jobLease(), { kind: 'provider_job', state: 'unknown', observedAtWallMs: 1 }).action, 'degrade');
  });

  it('follows a provider job: renew while running, release when finished or failed', () => {
    const running = decideHoldStep(jobLease(), { kind: 'provider_job', state: 'running', observedAtWallMs: at(MIN).wallMs });
    assert.equal(running.action, 'renew');
    assert.equal(decideHoldStep(jobLease(), { kind: 'provider_job', state: 'finished', observedAtWallMs: 1 }).action, 'release');
    assert.equal(decideHoldStep(jobLease(), { kind: 'provider_job', state: 'failed', observedAtWallMs: 1 }).action, 'release');
  });

  it('degrades, not renews, while the target is stopped (Ctrl+Z): alive, but nothing runs', () => {
    const step = decideHoldStep(pidLease(), { kind: 'pid', reading: { pid: 4242, startTime: '98765', readAtWallMs: 1, stopped: true } });
    assert.equal(step.action, 'degrade');
    assert.match((step as { reason: string }).reason, /target pid 4242 is stopped/);
  });

  it('stops renewing a degraded lease', () => {
    const degraded = degrade(pidLease(), { reason: 'x', now: at(0) });
    assert.equal(decideHoldStep(degraded, { kind: 'pid', reading: { pid: 4242, startTime: '98765', readAtWallMs: 1 } }).action, 'stop');
  });

  it('pins the start time at hold and refuses a target that is not running or not the named process', () => {
    assert.deepEqual(pinPidTarget({ pid: 7 }, { pid: 7, startTime: '555', readAtWallMs: 1 }), { kind: 'pid', pid: 7, startTime: '555' });
    assert.deepEqual(pinPidTarget({ pid: 7, start_time: 555 }, { pid: 7, startTime: '555', readAtWallMs: 1 }), { kind: 'pid', pid: 7, startTime: '555' });
    const missing = (error: unknown) => error instanceof LeaseholdError && error.code === 'EVIDENCE_MISSING';
    assert.throws(() => pinPidTarget({ pid: 7 }, { pid: 7, startTime: null, readAtWallMs: 1 }), missing);
    assert.throws(() => pinPidTarget({ pid: 7, start_time: '1' }, { pid: 7, startTime: '555', readAtWallMs: 1 }), missing);
    assert.throws(() => pinPidTarget({ pid: -1 }, null), (error: unknown) => error instanceof LeaseholdError && error.code === 'invalid_argument');
  });
});
