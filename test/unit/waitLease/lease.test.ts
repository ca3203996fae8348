import assert from 'node:assert/strict';
import { LeaseholdError } from '../../../src/core/errors.ts';
import {
  acquire,
  applyClockJudgement,
  degrade,
  expireIfDue,
  isValidAt,
  lowerCeiling,
  markUnknown,
  orphan,
  release,
  remainingMsAt,
  renew,
} from '../../../src/core/waitLease/lease.ts';
import { judgeRestart } from '../../../src/core/waitLease/clockDomain.ts';
import type { AcquireInput } from '../../../src/core/waitLease/lease.ts';
import { HARD_MAX, MIN, WALL0, at, acquireLease as acquireUnpinned, expectOk, expectRefusal, pidProof } from './fixtures.ts';

/** Pinned on the process pidProof verifies: pid evidence renews only a lease pinned on that process. */
const PINNED = { kind: 'pid', pid: 4242, startTime: '98765' } as const;
const acquireLease = (overrides: Partial<AcquireInput> = {}) => acquireUnpinned({ observer: PINNED, ...overrides });

function renewAt(offsetMs: number, extra: Record<string, unknown> = {}) {
  const now = at(offsetMs);
  return { tokenHash: 'hash-good', ttlMs: 10 * MIN, now, hardMaxTtlMs: HARD_MAX, source: 'caller' as const, ...pidProof(now), ...extra };
}

describe('wait-lease acquire', () => {
  it('binds the lease to pane and generation, active, with the declared TTL and defaults', () => {
    const lease = acquireLease();
    assert.equal(lease.state, 'active');
    assert.equal(lease.pane, 'pane-a');
    assert.equal(lease.generation, 1);
    assert.equal(lease.jobType, 'other');
    assert.equal(lease.kind, 'declared');
    assert.equal(lease.declaredTtlMs, 10 * MIN);
    assert.equal(lease.expiresAtBootMs, at(10 * MIN).bootMs);
    assert.deepEqual(lease.clockDomain, at(0).domain);
  });

  it('refuses a missing TTL (no open-ended waits)', () => {
    assert.throws(() => acquireLease({ ttlMs: undefined }), (error: unknown) => error instanceof LeaseholdError && error.field === 'ttl_ms');
  });

  it('clamps to the hard max and reports it', () => {
    const { record, grant } = acquire({
      id: 'x', pane: 'p', generation: 1, jobRef: 'j', ttlMs: 10 * HARD_MAX, tokenHash: 'h', now: at(0), hardMaxTtlMs: HARD_MAX, paneLeases: [],
    });
    assert.deepEqual(grant.clampedBy, ['hard_max']);
    assert.equal(record.expiresAtBootMs, at(HARD_MAX).bootMs);
  });

  it('refuses an authorized_until already reached with OWNER_WINDOW_ENDED', () => {
    assert.throws(() => acquireLease({ authorizedUntil: WALL0 }), (error: unknown) => error instanceof LeaseholdError && error.code === 'OWNER_WINDOW_ENDED');
  });

  it('keeps the pane a set keyed by job_ref: a second valid lease for the same job_ref is a conflict', () => {
    const first = acquireLease();
    assert.throws(() => acquireLease({ id: 'wl_2', paneLeases: [first] }), (error: unknown) => error instanceof LeaseholdError && error.code === 'conflict');
    // A different job_ref coexists; the same job_ref after expiry or on a new generation is fine.
    assert.equal(acquireLease({ id: 'wl_2', jobRef: 'other-job', paneLeases: [first] }).state, 'active');
    assert.equal(acquireLease({ id: 'wl_2', now: at(11 * MIN), paneLeases: [first] }).state, 'active');
    assert.equal(acquireLease({ id: 'wl_2', generation: 2, paneLeases: [first] }).state, 'active');
  });
});

describe('wait-lease renew', () => {
  it('resets expiry from now under the same clamps with verified pid evidence', () => {
    const lease = acquireLease();
    const outcome = expectOk(renew(lease, renewAt(8 * MIN)));
    assert.equal(outcome.record.expiresAtBootMs, at(18 * MIN).bootMs);
    assert.equal(outcome.record.renewCount, 1);
    assert.equal(outcome.record.lastEvidence?.kind, 'pid');
    const clamped = expectOk(renew(lease, renewAt(8 * MIN, { ttlMs: 5 * HARD_MAX })));
    assert.deepEqual(clamped.grant.clampedBy, ['hard_max']);
    assert.equal(clamped.record.expiresAtBootMs, at(8 * MIN + HARD_MAX).bootMs);
  });

  it("accepts a fresh running observation of the lease's own job by the observer the lease names, or by the server", () => {
    const now = at(MIN);
    const evidence = { provider_job: { id: 'bslbv9989', state: 'running', observed_at: now.wallMs - 5_000 } };
    expectOk(renew(acquireUnpinned(), { tokenHash: 'hash-good', ttlMs: MIN, now, hardMaxTtlMs: HARD_MAX, evidence, source: 'lease_observer' }));
    const polled = { provider_job: { id: 'gen-17', state: 'running', observed_at: now.wallMs } };
    const held = acquireUnpinned({ observer: { kind: 'provider_job', id: 'gen-17', url: 'http://127.0.0.1:9/jobs/gen-17' } });
    expectOk(renew(held, { tokenHash: 'hash-good', ttlMs: MIN, now, hardMaxTtlMs: HARD_MAX, evidence: polled, source: 'server' }));
  });

  describe("evidence must be about the lease's own target (issue 8, evidence rule 1)", () => {
    it("refuses pid evidence for a lease that pins no process, even the renewer's own live process", () => {
      const outcome = expectRefusal(renew(acquireUnpinned(), renewAt(MIN)), 'EVIDENCE_MISSING');
      assert.match(outcome.error.message, /pins no process/);
    });

    it('refuses pid evidence about another live process than the pinned one, and a pinned pid with another start time', () => {
      const now = at(MIN);
      const other = expectRefusal(renew(acquireLease(), renewAt(MIN, pidProof(now, 5151, '222'))), 'EVIDENCE_MISSING');
      assert.match(other.error.message, /not this lease's target/);
      expectRefusal(renew(acquireLease(), renewAt(MIN, pidProof(now, 4242, '222'))), 'EVIDENCE_MISSING');
    });

    it('refuses a provider observation naming another job than the lease, whoever observed it', () => {
      const now = at(MIN);
      const evidence = { provider_job: { id: 'made-up', state: 'running', observed_at: now.wallMs } };
      for (const source of ['caller', 'lease_observer', 'server'] as const) {
        const outcome = expectRefusal(renew(acquireUnpinned(), renewAt(MIN, { evidence, source })), 'EVIDENCE_MISSING');
        assert.match(outcome.error.message, /not this lease's job/);
      }
    });

    it("refuses the caller's own word about the lease's own job: a caller-supplied observed_at is not an observation", () => {
      const now = at(MIN);
      const evidence = { provider_job: { id: 'bslbv9989', state: 'running', observed_at: now.wallMs } };
      const outcome = expectRefusal(renew(acquireUnpinned(), renewAt(MIN, { evidence, source: 'caller' })), 'EVIDENCE_MISSING');
      assert.match(outcome.error.message, /reported by the caller/);
    });
  });

  it('refuses a wrong token with TOKEN_MISMATCH and changes nothing', () => {
    const lease = acquireLease();
    const outcome = expectRefusal(renew(lease, renewAt(MIN, { tokenHash: 'hash-bad' })), 'TOKEN_MISMATCH');
    assert.equal(outcome.record, lease);
    assert.equal(outcome.changed, false);
  });

  it('refuses a missing ttl_ms with invalid_argument naming ttl_ms', () => {
    const outcome = expectRefusal(renew(acquireLease(), renewAt(MIN, { ttlMs: 0 })), 'invalid_argument');
    assert.equal(outcome.error.field, 'ttl_ms');
  });

  describe('evidence', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['no evidence', { evidence: undefined, pidReading: undefined }],
      ['a bare "still running"', { evidence: 'still running' }],
      ['a bare alive flag', { evidence: { alive: true } }],
      ['a pid without start time', { evidence: { pid: 4242 } }],
      ['a pid the server could not read', { pidReading: null }],
      ['a pid that is no longer running', { pidReading: { pid: 4242, startTime: null, readAtWallMs: at(MIN).wallMs } }],
      ['a reused pid (other start time)', { pidReading: { pid: 4242, startTime: '11111', readAtWallMs: at(MIN).wallMs } }],
      ['a stale pid reading', { pidReading: { pid: 4242, startTime: '98765', readAtWallMs: at(MIN).wallMs - 2 * MIN } }],
      ['a provider job without id', { evidence: { provider_job: { state: 'running', observed_at: at(MIN).wallMs } }, source: 'lease_observer' }],
      ['a finished provider job', { evidence: { provider_job: { id: 'bslbv9989', state: 'finished', observed_at: at(MIN).wallMs } }, source: 'lease_observer' }],
      ['a stale provider-job observation', { evidence: { provider_job: { id: 'bslbv9989', state: 'running', observed_at: at(MIN).wallMs - 5 * MIN } }, source: 'lease_observer' }],
      ['a provider-job observation from the future', { evidence: { provider_job: { id: 'bslbv9989', state: 'running', observed_at: at(MIN).wallMs + MIN } }, source: 'lease_observer' }],
    ];
    for (const [name, extra] of cases) {
      it(`refuses ${name} with EVIDENCE_MISSING and remembers the refusal`, () => {
        const lease = acquireLease();
        const outcome = expectRefusal(renew(lease, renewAt(MIN, extra)), 'EVIDENCE_MISSING');
        assert.equal(outcome.error.field, 'evidence');
        assert.equal(outcome.record.expiresAtBootMs, lease.expiresAtBootMs, 'expiry untouched');
        assert.equal(outcome.record.lastRefusal?.code, 'EVIDENCE_MISSING');
      });
    }

    it('honours a custom freshness window', () => {
      const now = at(MIN);
      const evidence = { provider_job: { id: 'bslbv9989', state: 'running', observed_at: now.wallMs - 20_000 } };
      const base = { tokenHash: 'hash-good', ttlMs: MIN, now, hardMaxTtlMs: HARD_MAX, evidence, source: 'lease_observer' as const };
      expectRefusal(renew(acquireLease(), { ...base, freshnessMs: 10_000 }), 'EVIDENCE_MISSING');
      expectOk(renew(acquireLease(), { ...base, freshnessMs: 30_000 }));
    });

    it('a successful renew clears the remembered refusal', () => {
      const refused = expectRefusal(renew(acquireLease(), renewAt(MIN, { evidence: undefined })), 'EVIDENCE_MISSING').record;
      assert.equal(expectOk(renew(refused, renewAt(2 * MIN))).record.lastRefusal, null);
    });
  });

  describe('an ended lease never comes back', () => {
    it('refuses renewing a released lease with LEASE_ENDED, even with the right token', () => {
      const released = expectOk(release(acquireLease(), { tokenHash: 'hash-good', now: at(MIN) })).record;
      expectRefusal(renew(released, renewAt(2 * MIN)), 'LEASE_ENDED');
    });

    it('refuses a lease that expired by time but was never swept, and returns the swept record', () => {
      const lease = acquireLease();
      const outcome = expectRefusal(renew(lease, renewAt(10 * MIN)), 'LEASE_ENDED');
      assert.equal(outcome.changed, true);
      assert.equal(outcome.record.state, 'ended');
      assert.equal(outcome.record.endReason, 'expired');
    });

    it('refuses an orphaned lease', () => {
      const orphaned = orphan(acquireLease(), { paneGeneration: 2, now: at(MIN) });
      expectRefusal(renew(orphaned, renewAt(2 * MIN)), 'LEASE_ENDED');
    });

    it('a renew racing a release: whichever lands second is refused, the lease stays released', () => {
      const lease = acquireLease();
      const released = expectOk(release(lease, { tokenHash: 'hash-good', now: at(MIN) })).record;
      const lateRenew = renew(released, renewAt(MIN + 1));
      expectRefusal(lateRenew, 'LEASE_ENDED');
      assert.equal(lateRenew.record.endReason, 'released');
      // The other order: renewed first, then released; the release wins and nothing resurrects it.
      const renewed = expectOk(renew(lease, renewAt(MIN))).record;
      const releasedAfter = expectOk(release(renewed, { tokenHash: 'hash-good', now: at(MIN + 1) })).record;
      expectRefusal(renew(releasedAfter, renewAt(MIN + 2)), 'LEASE_ENDED');
    });
  });

  describe('the authority ceiling', () => {
    it('clamps renewals to authorized_until and keeps it across renewals', () => {
      const lease = acquireLease({ authorizedUntil: WALL0 + 15 * MIN });
      const first = expectOk(renew(lease, renewAt(8 * MIN)));
      assert.deepEqual(first.grant.clampedBy, ['authorized_until']);
      assert.equal(first.record.expiresAtBootMs, at(15 * MIN).bootMs);
      assert.equal(first.record.authorizedUntilWallMs, WALL0 + 15 * MIN);
    });

    it('refuses a renew once the ceiling has passed with OWNER_WINDOW_ENDED', () => {
      const lease = acquireLease({ authorizedUntil: WALL0 + 5 * MIN, ttlMs: 10 * MIN });
      const outcome = expectRefusal(renew(lease, renewAt(5 * MIN)), 'OWNER_WINDOW_ENDED');
      assert.equal(outcome.record.state, 'ended');
      assert.equal(outcome.record.expiredBy, 'authorized_until');
    });

    it('refuses when only the wall clock says the ceiling passed', () => {
      const lease = acquireLease({ authorizedUntil: WALL0 + 5 * MIN });
      const now = at(3 * MIN, { wallOffsetMs: 6 * MIN });
      expectRefusal(renew(lease, { ...renewAt(3 * MIN), now, ...pidProof(now) }), 'OWNER_WINDOW_ENDED');
    });

    it('a wall-clock rollback never lets a renew pass the ceiling', () => {
      const lease = acquireLease({ authorizedUntil: WALL0 + 5 * MIN });
      const rolledBack = at(5 * MIN, { wallOffsetMs: -60 * MIN });
      expectRefusal(renew(lease, { ...renewAt(5 * MIN), now: rolledBack, ...pidProof(rolledBack) }), 'OWNER_WINDOW_ENDED');
      const before = at(4 * MIN, { wallOffsetMs: -60 * MIN });
      const renewed = expectOk(renew(lease, { ...renewAt(4 * MIN), now: before, ...pidProof(before) }));
      assert.ok(renewed.record.expiresAtBootMs <= at(5 * MIN).bootMs);
    });

    it('a renew may lower the ceiling but never raise it', () => {
      const lease = acquireLease({ authorizedUntil: WALL0 + 15 * MIN });
      const lowered = expectOk(renew(lease, renewAt(MIN, { authorizedUntil: WALL0 + 5 * MIN })));
      assert.equal(lowered.record.authorizedUntilWallMs, WALL0 + 5 * MIN);
      assert.equal(lowered.record.expiresAtBootMs, at(5 * MIN).bootMs);
      const raise = expectRefusal(renew(lease, renewAt(MIN, { authorizedUntil: WALL0 + 30 * MIN })), 'invalid_argument');
      assert.equal(raise.error.field, 'authorized_until');
      assert.match(raise.error.message, /only be lowered/, 'the message names the rule');
      assert.equal(raise.changed, false, 'a refused raise changes nothing');
    });

    it('a raise is refused as bad input before evidence is judged: nothing is remembered', () => {
      const lease = acquireLease({ authorizedUntil: WALL0 + 15 * MIN });
      const outcome = expectRefusal(renew(lease, renewAt(MIN, { authorizedUntil: WALL0 + 30 * MIN, evidence: undefined })), 'invalid_argument');
      assert.equal(outcome.changed, false);
      assert.equal(outcome.record.lastRefusal, null, 'no EVIDENCE_MISSING left behind by a malformed request');
    });

    it('keeps the ceiling across several renewals that do not mention it, and never clears it', () => {
      let lease = acquireLease({ authorizedUntil: WALL0 + 25 * MIN });
      for (const offset of [5 * MIN, 10 * MIN, 20 * MIN]) {
        const next = expectOk(renew(lease, renewAt(offset, { ttlMs: 30 * MIN })));
        assert.equal(next.record.authorizedUntilWallMs, WALL0 + 25 * MIN, `renewal at ${offset}`);
        assert.equal(next.record.expiresAtBootMs, at(25 * MIN).bootMs);
        assert.deepEqual(next.grant.clampedBy, ['authorized_until']);
        lease = next.record;
      }
      const past = expectRefusal(renew(lease, renewAt(25 * MIN)), 'OWNER_WINDOW_ENDED');
      assert.equal(past.error.field, 'authorized_until');
    });

    it('a ceiling lowered with a refused renewal is not applied (the renewal is refused as a whole)', () => {
      const lease = acquireLease({ authorizedUntil: WALL0 + 15 * MIN });
      const outcome = expectRefusal(renew(lease, renewAt(MIN, { authorizedUntil: WALL0 + 5 * MIN, evidence: undefined })), 'EVIDENCE_MISSING');
      assert.equal(outcome.record.authorizedUntilWallMs, WALL0 + 15 * MIN);
    });
  });

  it('a degraded lease renewed with verified evidence is active again', () => {
    const degraded = degrade(acquireLease(), { reason: 'ps failed', now: at(MIN) });
    assert.equal(expectOk(renew(degraded, renewAt(2 * MIN))).record.state, 'active');
  });

  it('refuses to renew an UNKNOWN lease, or one granted in another clock domain (marking it UNKNOWN)', () => {
    const unknown = markUnknown(acquireLease(), { reason: 'reboot', now: at(MIN) });
    expectRefusal(renew(unknown, renewAt(2 * MIN)), 'conflict');
    const lease = acquireLease();
    const otherBoot = at(MIN, { bootId: 'boot-b' });
    const outcome = expectRefusal(renew(lease, { ...renewAt(MIN), now: otherBoot, ...pidProof(otherBoot) }), 'conflict');
    assert.equal(outcome.record.state, 'unknown');
  });
});

describe('wait-lease release', () => {
  it('ends the lease as released with the reason kept', () => {
    const outcome = expectOk(release(acquireLease(), { tokenHash: 'hash-good', now: at(MIN), reason: 'task finished' }));
    assert.equal(outcome.record.state, 'ended');
    assert.equal(outcome.record.endReason, 'released');
    assert.equal(outcome.record.releaseNote, 'task finished');
  });

  it('is token conditional', () => {
    expectRefusal(release(acquireLease(), { tokenHash: 'hash-bad', now: at(MIN) }), 'TOKEN_MISMATCH');
  });

  it('releasing twice says LEASE_ENDED and changes nothing', () => {
    const released = expectOk(release(acquireLease(), { tokenHash: 'hash-good', now: at(MIN) })).record;
    const again = expectRefusal(release(released, { tokenHash: 'hash-good', now: at(2 * MIN) }), 'LEASE_ENDED');
    assert.equal(again.record, released);
  });

  it('releasing an expired-but-unswept lease says LEASE_ENDED and keeps it expired, not released', () => {
    const outcome = expectRefusal(release(acquireLease(), { tokenHash: 'hash-good', now: at(11 * MIN) }), 'LEASE_ENDED');
    assert.equal(outcome.record.endReason, 'expired');
  });
});

describe('wait-lease lowerCeiling', () => {
  it('lowers the ceiling and applies it at once', () => {
    const lease = acquireLease({ authorizedUntil: WALL0 + 20 * MIN, ttlMs: 30 * MIN });
    const outcome = expectOk(lowerCeiling(lease, { tokenHash: 'hash-good', authorizedUntil: WALL0 + 5 * MIN, now: at(MIN) }));
    assert.equal(outcome.record.authorizedUntilWallMs, WALL0 + 5 * MIN);
    assert.equal(outcome.record.expiresAtBootMs, at(5 * MIN).bootMs);
    assert.equal(remainingMsAt(outcome.record, at(MIN)), 4 * MIN);
  });

  it('sets a first ceiling on a lease that had none (lowering from unbounded)', () => {
    const outcome = expectOk(lowerCeiling(acquireLease(), { tokenHash: 'hash-good', authorizedUntil: WALL0 + 2 * MIN, now: at(0) }));
    assert.equal(outcome.record.expiresAtBootMs, at(2 * MIN).bootMs);
  });

  it('can end authority immediately', () => {
    const outcome = expectOk(lowerCeiling(acquireLease(), { tokenHash: 'hash-good', authorizedUntil: WALL0 + MIN, now: at(2 * MIN) }));
    assert.equal(outcome.record.state, 'ended');
    assert.equal(outcome.record.expiredBy, 'authorized_until');
    assert.equal(isValidAt(outcome.record, at(2 * MIN)), false);
  });

  it('refuses a raise or a clear with invalid_argument naming authorized_until', () => {
    const lease = acquireLease({ authorizedUntil: WALL0 + 5 * MIN });
    for (const value of [WALL0 + 6 * MIN, null, undefined]) {
      const outcome = expectRefusal(lowerCeiling(lease, { tokenHash: 'hash-good', authorizedUntil: value, now: at(0) }), 'invalid_argument');
      assert.equal(outcome.error.field, 'authorized_until');
    }
  });

  it('is token conditional and refuses an ended lease', () => {
    const lease = acquireLease();
    expectRefusal(lowerCeiling(lease, { tokenHash: 'hash-bad', authorizedUntil: WALL0 + MIN, now: at(0) }), 'TOKEN_MISMATCH');
    expectRefusal(lowerCeiling(lease, { tokenHash: 'hash-good', authorizedUntil: WALL0 + MIN, now: at(11 * MIN) }), 'LEASE_ENDED');
  });
});

describe('wait-lease expiry', () => {
  it('is active until the boot clock reaches expiry, then ended/expired by ttl at the expiry instant', () => {
    const lease = acquireLease();
    assert.equal(expireIfDue(lease, at(10 * MIN - 1)), lease);
    const ended = expireIfDue(lease, at(13 * MIN));
    assert.equal(ended.state, 'ended');
    assert.equal(ended.endReason, 'expired');
    assert.equal(ended.expiredBy, 'ttl');
    assert.equal(ended.endedAt?.bootMs, at(10 * MIN).bootMs, 'ended_at is the expiry, not the late sweep');
  });

  it('counts suspend: a boot clock that advanced across sleep expires the lease even if the process saw no ticks', () => {
    assert.equal(expireIfDue(acquireLease(), at(3 * 60 * MIN)).state, 'ended');
  });

  it('a wall-clock rollback never extends a lease', () => {
    const lease = acquireLease();
    assert.equal(expireIfDue(lease, at(10 * MIN, { wallOffsetMs: -120 * MIN })).state, 'ended');
  });

  it('ends at the ceiling when the wall clock reaches it first', () => {
    const lease = acquireLease({ authorizedUntil: WALL0 + 8 * MIN });
    const ended = expireIfDue(lease, at(5 * MIN, { wallOffsetMs: 9 * MIN }));
    assert.equal(ended.expiredBy, 'authorized_until');
  });

  it('judges a lease from another clock domain by the wall clock only', () => {
    const lease = acquireLease();
    assert.equal(expireIfDue(lease, at(-999_000, { bootId: 'boot-b', wallOffsetMs: 5 * MIN })).state, 'active');
    assert.equal(expireIfDue(lease, at(-999_000, { bootId: 'boot-b', wallOffsetMs: 11 * MIN })).state, 'ended');
  });
});

describe('wait-lease orphan, degrade, unknown', () => {
  it('a new pane generation orphans the lease; the same generation does not', () => {
    const lease = acquireLease();
    assert.equal(orphan(lease, { paneGeneration: 1, now: at(MIN) }), lease);
    const orphaned = orphan(lease, { paneGeneration: 2, now: at(MIN) });
    assert.equal(orphaned.state, 'ended');
    assert.equal(orphaned.endReason, 'orphaned');
  });

  it('degrade marks an active lease degraded; it no longer counts as valid', () => {
    const degraded = degrade(acquireLease(), { reason: 'cannot read /proc', now: at(MIN) });
    assert.equal(degraded.state, 'degraded');
    assert.equal(degraded.stateReason, 'cannot read /proc');
    assert.equal(isValidAt(degraded, at(MIN)), false);
  });

  it('degrade and markUnknown never touch an ended lease', () => {
    const released = expectOk(release(acquireLease(), { tokenHash: 'hash-good', now: at(MIN) })).record;
    assert.equal(degrade(released, { reason: 'x', now: at(MIN) }), released);
    assert.equal(markUnknown(released, { reason: 'x', now: at(MIN) }), released);
  });

  it('a restart into another boot makes every active lease UNKNOWN', () => {
    const leases = [acquireLease(), degrade(acquireLease({ id: 'wl_2', jobRef: 'b' }), { reason: 'x', now: at(0) })];
    const after = applyClockJudgement(leases, judgeRestart(at(0).domain, { bootId: 'boot-b', countsSuspend: true }), at(MIN));
    assert.deepEqual(after.map((lease) => lease.state), ['unknown', 'unknown']);
    const same = applyClockJudgement(leases, judgeRestart(at(0).domain, at(0).domain), at(MIN));
    assert.deepEqual(same.map((lease) => lease.state), ['active', 'degraded']);
  });
});
