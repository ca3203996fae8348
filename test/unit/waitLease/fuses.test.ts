// The chain cap and progress-token escalation (core fuses), on explicit clock readings: each
// fires exactly when it should, not a millisecond early, and not otherwise.
import assert from 'node:assert/strict';
import { LeaseholdError } from '../../../src/core/errors.ts';
import { acquire, expireIfDue, release, renew, type WaitLeaseRecord } from '../../../src/core/waitLease/lease.ts';
import { computeVerdict } from '../../../src/core/waitLease/verdict.ts';
import { dispositionOf } from '../../../src/core/waitLease/reasons.ts';
import { validateChainCapMs, validateIdenticalRenewalLimit } from '../../../src/core/waitLease/fuses.ts';
import { HARD_MAX, MIN, acquireLease as acquireUnpinned, at, expectOk, expectRefusal } from './fixtures.ts';
import type { AcquireInput } from '../../../src/core/waitLease/lease.ts';

/** A lease held on pid 4242 (started 98765): the target pid evidence must be about. */
const acquireLease = (overrides: Partial<AcquireInput> = {}) => acquireUnpinned({ observer: { kind: 'pid', pid: 4242, startTime: '98765' }, ...overrides });

const CAP = 45 * MIN;
const pane = { name: 'pane-a', generation: 1, displayState: 'idle' };

function proof(offsetMs: number, cpu: number) {
  const now = at(offsetMs);
  return { now, evidence: { pid: 4242, start_time: '98765' }, pidReading: { pid: 4242, startTime: '98765', readAtWallMs: now.wallMs, cpuTicks: cpu } };
}

function renewAt(record: WaitLeaseRecord, offsetMs: number, cpu = 7, limit = 12) {
  return renew(record, { tokenHash: 'hash-good', ttlMs: 10 * MIN, source: 'caller', ...proof(offsetMs, cpu), hardMaxTtlMs: HARD_MAX, identicalRenewalLimit: limit });
}

function codes(record: WaitLeaseRecord, offsetMs: number): string[] {
  return computeVerdict(pane, [record], at(offsetMs)).reasons.map((reason) => reason.code);
}

describe('chain cap (CHAIN_CAP_REACHED)', () => {
  it('clamps the grant that reaches the chain deadline and ends the lease there, renewals included', () => {
    let lease = acquireLease({ chainCapMs: CAP });
    assert.equal(lease.chain.deadlineBootMs, at(CAP).bootMs);
    for (const offset of [8, 16, 24, 32]) lease = expectOk(renewAt(lease, offset * MIN, offset)).record;
    const last = expectOk(renewAt(lease, 40 * MIN, 40));
    assert.equal(last.grant.expiresInMs, 5 * MIN, 'only what the chain has left');
    assert.deepEqual(last.grant.clampedBy, ['chain_cap']);
    lease = last.record;
    assert.equal(expireIfDue(lease, at(CAP - 1)).state, 'active', 'not a millisecond early');
    const ended = expireIfDue(lease, at(CAP));
    assert.deepEqual([ended.state, ended.endReason, ended.expiredBy], ['ended', 'expired', 'chain_cap']);
    const refused = expectRefusal(renewAt(lease, CAP + 1), 'CHAIN_CAP_REACHED');
    assert.equal(refused.error.field, 'job_ref');
    const verdict = computeVerdict(pane, [lease], at(CAP + MIN));
    assert.deepEqual(verdict.reasons.map((reason) => reason.code), ['CHAIN_CAP_REACHED']);
    assert.equal(verdict.disposition, 'page_immediately');
    assert.equal(verdict.attention.page, 'now');
    assert.equal(dispositionOf('CHAIN_CAP_REACHED'), 'page_immediately');
  });

  it('letting a lease expire and acquiring the same job again continues its chain; a capped chain refuses a new lease', () => {
    const first = acquireLease({ chainCapMs: CAP });
    const expired = expireIfDue(first, at(10 * MIN));
    assert.equal(expired.expiredBy, 'ttl');
    const again = acquire({ id: 'wl_2', pane: 'pane-a', generation: 1, jobRef: 'bslbv9989', ttlMs: 60 * MIN, tokenHash: 'h2', now: at(20 * MIN), hardMaxTtlMs: HARD_MAX, paneLeases: [expired], chainCapMs: CAP });
    assert.deepEqual(again.record.chain.startedAt, first.chain.startedAt, 'same chain');
    assert.equal(again.grant.expiresInMs, 25 * MIN);
    assert.deepEqual(again.grant.clampedBy, ['chain_cap']);
    const capped = expireIfDue(again.record, at(CAP));
    assert.equal(capped.expiredBy, 'chain_cap');
    assert.throws(
      () => acquire({ id: 'wl_3', pane: 'pane-a', generation: 1, jobRef: 'bslbv9989', ttlMs: MIN, tokenHash: 'h3', now: at(CAP + 10 * MIN), hardMaxTtlMs: HARD_MAX, paneLeases: [expired, capped], chainCapMs: CAP }),
      (error: unknown) => error instanceof LeaseholdError && error.code === 'CHAIN_CAP_REACHED' && error.field === 'job_ref',
    );
  });

  it('an observed end (release) closes the chain; another job, or a new pane generation, starts its own', () => {
    const first = acquireLease({ chainCapMs: CAP });
    const released = expectOk(release(first, { tokenHash: 'hash-good', now: at(5 * MIN) })).record;
    const next = acquire({ id: 'wl_2', pane: 'pane-a', generation: 1, jobRef: 'bslbv9989', ttlMs: 60 * MIN, tokenHash: 'h2', now: at(6 * MIN), hardMaxTtlMs: HARD_MAX, paneLeases: [released], chainCapMs: CAP });
    assert.equal(next.record.chain.startedAt.bootMs, at(6 * MIN).bootMs);
    assert.equal(next.grant.expiresInMs, CAP);
    const expired = expireIfDue(first, at(10 * MIN));
    const reopened = acquire({ id: 'wl_4', pane: 'pane-a', generation: 2, jobRef: 'bslbv9989', ttlMs: MIN, tokenHash: 'h4', now: at(11 * MIN), hardMaxTtlMs: HARD_MAX, paneLeases: [expired], chainCapMs: CAP });
    assert.equal(reopened.record.chain.startedAt.bootMs, at(11 * MIN).bootMs);
  });

  it('without a cap nothing changes; an inferred lease (no authority to cap) runs uncapped; the settings are validated', () => {
    const lease = acquireLease();
    assert.equal(lease.chain.deadlineBootMs, null);
    assert.equal(acquireLease({ kind: 'inferred', chainCapMs: CAP }).chain.deadlineBootMs, null);
    assert.throws(() => validateChainCapMs(0), (error: unknown) => error instanceof LeaseholdError && error.field === 'chain_cap_ms');
    assert.throws(() => validateIdenticalRenewalLimit(0), (error: unknown) => error instanceof LeaseholdError && error.field === 'identical_renewal_limit');
    assert.equal(validateIdenticalRenewalLimit(1), 1);
  });
});

describe('progress-token escalation (NO_PROGRESS)', () => {
  const K = 3;

  it('K identical renewals in a row escalate to a page; the K-1th does not', () => {
    let lease = acquireLease({ initialProgressToken: 'pid:4242:98765|cpu:7' });
    for (let n = 1; n < K; n++) {
      lease = expectOk(renewAt(lease, n * MIN, 7, K)).record;
      assert.equal(lease.progress.identicalRenewals, n);
      assert.deepEqual(codes(lease, n * MIN), [], `no page after ${n}`);
    }
    lease = expectOk(renewAt(lease, K * MIN, 7, K)).record;
    assert.equal(lease.progress.stalledSince?.bootMs, at(K * MIN).bootMs);
    assert.deepEqual(codes(lease, K * MIN), ['NO_PROGRESS']);
    const verdict = computeVerdict(pane, [lease], at(K * MIN));
    assert.equal(verdict.disposition, 'page_immediately');
    assert.equal(verdict.reading, 'waiting', 'the lease still stands: the page is the escalation');
    assert.match(verdict.reasons[0]!.detail, /3 renewals in a row with the same evidence; no sign of progress since it was granted/);
  });

  it('a pid whose platform reads no CPU time (macOS) is never paged for it: its renewals count neither way', () => {
    let lease = acquireLease({ initialProgressToken: 'pid:4242:98765|cpu:7' });
    lease = expectOk(renewAt(lease, MIN, 7, K)).record;
    assert.equal(lease.progress.identicalRenewals, 1);
    for (let n = 2; n <= K + 5; n++) {
      const now = at(n * MIN);
      const blind = { now, evidence: { pid: 4242, start_time: '98765' }, pidReading: { pid: 4242, startTime: '98765', readAtWallMs: now.wallMs } };
      lease = expectOk(renew(lease, { tokenHash: 'hash-good', ttlMs: 10 * MIN, source: 'caller', ...blind, hardMaxTtlMs: HARD_MAX, identicalRenewalLimit: K })).record;
    }
    assert.equal(lease.progress.identicalRenewals, 1, 'unchanged: nothing was known either way');
    assert.deepEqual(codes(lease, (K + 5) * MIN), []);
    lease = expectOk(renewAt(lease, (K + 6) * MIN, 7, K)).record;
    assert.equal(lease.progress.identicalRenewals, 2, 'a CPU reading again counts as before');
  });

  it('progress (CPU time moved) resets the count and is recorded as the last sign of progress', () => {
    let lease = acquireLease({ initialProgressToken: 'pid:4242:98765|cpu:7' });
    for (let n = 1; n <= K; n++) lease = expectOk(renewAt(lease, n * MIN, 7, K)).record;
    assert.deepEqual(codes(lease, K * MIN), ['NO_PROGRESS']);
    lease = expectOk(renewAt(lease, 5 * MIN, 9, K)).record;
    assert.equal(lease.progress.identicalRenewals, 0);
    assert.equal(lease.progress.lastProgressAt?.wallMs, at(5 * MIN).wallMs);
    assert.deepEqual(codes(lease, 5 * MIN), []);
    assert.equal(computeVerdict(pane, [lease], at(5 * MIN)).leases[0]!.last_progress_at, at(5 * MIN).wallMs);
  });

  it('without a baseline the first renewal sets one; a caller progress value counts as progress', () => {
    let lease = acquireLease();
    lease = expectOk(renewAt(lease, MIN, 7, K)).record;
    assert.equal(lease.progress.identicalRenewals, 0);
    const withValue = (value: string, offset: number, record: WaitLeaseRecord) => {
      const { now, pidReading } = proof(offset, 7);
      return expectOk(renew(record, { tokenHash: 'hash-good', ttlMs: 10 * MIN, source: 'caller', evidence: { pid: 4242, start_time: '98765', progress: value }, pidReading, now, hardMaxTtlMs: HARD_MAX, identicalRenewalLimit: K })).record;
    };
    lease = withValue('step 1', 2 * MIN, lease);
    lease = withValue('step 2', 3 * MIN, lease);
    assert.equal(lease.progress.identicalRenewals, 0);
    assert.equal(lease.progress.lastProgressAt?.wallMs, at(3 * MIN).wallMs);
  });
});
