import assert from 'node:assert/strict';
import { computeVerdict } from '../../../src/core/waitLease/verdict.ts';
import { degrade, lowerCeiling, markUnknown, release, renew, type WaitLeaseRecord } from '../../../src/core/waitLease/lease.ts';
import { VerdictSchema } from '../../../src/core/waitLease/wire.ts';
import { HARD_MAX, MIN, WALL0, acquireLease, at, expectOk, expectRefusal } from './fixtures.ts';

function verdictOf(displayState: string, leases: WaitLeaseRecord[], offsetMs: number) {
  const verdict = computeVerdict({ name: 'pane-a', generation: 1, displayState }, leases, at(offsetMs));
  VerdictSchema.parse(verdict); // the wire schema and the domain output stay in step
  return verdict;
}

describe('pane verdict', () => {
  it('never changes the display state', () => {
    for (const display of ['idle', 'working', 'blocked', 'done', 'unknown']) {
      assert.equal(verdictOf(display, [acquireLease()], MIN).display_state, display);
    }
  });

  it('quiet and no lease is UNKNOWN, not idle, with the page-if-unresolved floor', () => {
    for (const display of ['idle', 'done', 'unknown']) {
      const verdict = verdictOf(display, [], 0);
      assert.equal(verdict.reading, 'UNKNOWN');
      assert.equal(verdict.waiting, false);
      assert.equal(verdict.attention.stall_alarm, 'normal');
      assert.equal(verdict.attention.page, 'if_unresolved');
    }
  });

  it('a valid declared lease on a quiet pane reads waiting and suppresses the stall alarm', () => {
    const verdict = verdictOf('idle', [acquireLease()], MIN);
    assert.equal(verdict.reading, 'waiting');
    assert.equal(verdict.waiting, true);
    assert.equal(verdict.waiting_basis, 'declared');
    assert.equal(verdict.attention.stall_alarm, 'suppress');
    assert.equal(verdict.attention.page, 'no');
    assert.equal(verdict.leases[0].remaining_ms, 9 * MIN);
    assert.deepEqual(verdict.reasons, []);
  });

  it('an inferred lease only extends grace: the reading stays UNKNOWN and is never reported safe', () => {
    const verdict = verdictOf('idle', [acquireLease({ kind: 'inferred' })], MIN);
    assert.equal(verdict.reading, 'UNKNOWN');
    assert.equal(verdict.waiting_basis, 'inferred');
    assert.equal(verdict.attention.stall_alarm, 'extend_grace');
    assert.equal(verdict.attention.page, 'if_unresolved');
    assert.notEqual(verdict.attention.stall_alarm, 'suppress');
    assert.doesNotMatch(JSON.stringify([Object.keys(verdict), Object.keys(verdict.attention)]), /safe/i);
  });

  it('an unknown kind in storage is treated as inferred', () => {
    const future = { ...acquireLease(), kind: 'attested' } as unknown as WaitLeaseRecord;
    const verdict = verdictOf('idle', [future], MIN);
    assert.equal(verdict.waiting_basis, 'inferred');
    assert.equal(verdict.leases[0].kind, 'inferred');
  });

  it('the pane is a set keyed by job_ref: waiting while any valid lease exists', () => {
    const a = acquireLease({ id: 'a', jobRef: 'a', ttlMs: 2 * MIN });
    const b = acquireLease({ id: 'b', jobRef: 'b', ttlMs: 20 * MIN });
    assert.equal(verdictOf('idle', [a, b], 5 * MIN).waiting, true);
    assert.equal(verdictOf('idle', [a, b], 25 * MIN).waiting, false);
  });

  it('leases of older generations do not count', () => {
    assert.equal(verdictOf('idle', [acquireLease({ generation: 0 })], MIN).waiting, false);
  });

  it('LEASE_STALE when a lease expired without renewal or release (re-verify, grace, page if unresolved)', () => {
    const verdict = verdictOf('idle', [acquireLease()], 12 * MIN);
    assert.deepEqual(verdict.reasons.map((r) => r.code), ['LEASE_STALE']);
    assert.equal(verdict.disposition, 'reverify_then_page');
    assert.equal(verdict.attention.page, 'if_unresolved');
    assert.equal(verdict.leases[0].state, 'ended');
  });

  it('LEASE_STALE stops being reported after the recent-end window, and a newer lease for the job supersedes it', () => {
    assert.deepEqual(verdictOf('idle', [acquireLease()], 60 * MIN).reasons, []);
    const fresh = acquireLease({ id: 'wl_2', now: at(11 * MIN) });
    assert.deepEqual(verdictOf('idle', [acquireLease(), fresh], 12 * MIN).reasons, []);
  });

  it('LEASE_STALE for a degraded lease and for an UNKNOWN one', () => {
    const degraded = degrade(acquireLease(), { reason: 'cannot read pid', now: at(MIN) });
    assert.deepEqual(verdictOf('idle', [degraded], 2 * MIN).reasons.map((r) => r.code), ['LEASE_STALE']);
    assert.equal(verdictOf('idle', [degraded], 2 * MIN).waiting, false);
    const unknown = markUnknown(acquireLease(), { reason: 'reboot', now: at(MIN) });
    assert.deepEqual(verdictOf('idle', [unknown], 2 * MIN).reasons.map((r) => r.code), ['LEASE_STALE']);
  });

  it('a lease from another boot shows as UNKNOWN even before the server marked it', () => {
    const verdict = computeVerdict({ name: 'pane-a', generation: 1, displayState: 'idle' }, [acquireLease()], at(MIN, { bootId: 'boot-b' }));
    assert.equal(verdict.leases[0].state, 'unknown');
    assert.equal(verdict.waiting, false);
  });

  it('EVIDENCE_MISSING after a renewal refused for lack of evidence (refuse renewal)', () => {
    const refused = expectRefusal(renew(acquireLease(), { tokenHash: 'hash-good', ttlMs: MIN, evidence: { alive: true }, now: at(MIN), hardMaxTtlMs: HARD_MAX, source: 'caller' }), 'EVIDENCE_MISSING').record;
    const verdict = verdictOf('idle', [refused], 2 * MIN);
    assert.deepEqual(verdict.reasons.map((r) => r.code), ['EVIDENCE_MISSING']);
    assert.equal(verdict.disposition, 'refuse_renewal');
    assert.equal(verdict.waiting, true, 'the lease still holds until its expiry');
  });

  it('OWNER_WINDOW_ENDED only when the ceiling ended it: drain and park, no page beyond the UNKNOWN floor', () => {
    const ended = expectOk(lowerCeiling(acquireLease(), { tokenHash: 'hash-good', authorizedUntil: WALL0 + MIN, now: at(MIN) })).record;
    const verdict = verdictOf('working', [ended], 2 * MIN);
    assert.deepEqual(verdict.reasons.map((r) => r.code), ['OWNER_WINDOW_ENDED']);
    assert.equal(verdict.disposition, 'drain_and_park');
    assert.equal(verdict.attention.page, 'no');
  });

  it('keeps all reasons and applies the strongest disposition', () => {
    const closed = expectOk(lowerCeiling(acquireLease({ id: 'a', jobRef: 'a' }), { tokenHash: 'hash-good', authorizedUntil: WALL0 + MIN, now: at(MIN) })).record;
    const stale = degrade(acquireLease({ id: 'b', jobRef: 'b' }), { reason: 'x', now: at(MIN) });
    const verdict = verdictOf('working', [closed, stale], 2 * MIN);
    assert.deepEqual(verdict.reasons.map((r) => r.code).sort(), ['LEASE_STALE', 'OWNER_WINDOW_ENDED']);
    assert.equal(verdict.disposition, 'reverify_then_page');
  });

  it('a released lease gives no reason and no waiting', () => {
    const released = expectOk(release(acquireLease(), { tokenHash: 'hash-good', now: at(MIN) })).record;
    const verdict = verdictOf('idle', [released], 2 * MIN);
    assert.deepEqual(verdict.reasons, []);
    assert.equal(verdict.reading, 'UNKNOWN');
  });

  it('never emits CHAIN_CAP_REACHED and never says safe to kill', () => {
    const leases = [acquireLease({ id: 'a', jobRef: 'a' }), degrade(acquireLease({ id: 'b', jobRef: 'b' }), { reason: 'x', now: at(0) }), acquireLease({ id: 'c', jobRef: 'c', kind: 'inferred' })];
    for (const offset of [0, MIN, 11 * MIN, 100 * MIN]) {
      const text = JSON.stringify(verdictOf('idle', leases, offset));
      assert.doesNotMatch(text, /CHAIN_CAP_REACHED/);
      assert.doesNotMatch(text, /kill|terminate_ok|safe_to/i);
    }
  });
});
