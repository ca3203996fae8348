// The no-news bound (issue 8 item 3): a lease whose target the server cannot verify stops
// reading "waiting" once NO_NEWS_BOUND_MS passed without a grant or renewal; a pinned one is
// judged by the hold loop instead. Time is an injected reading only.
import assert from 'node:assert/strict';
import { NO_NEWS_BOUND_MS, degradeIfNoNews, leaseAt, noNewsDeadlineBootMs, renew } from '../../../src/core/waitLease/lease.ts';
import { computeVerdict } from '../../../src/core/waitLease/verdict.ts';
import { HARD_MAX, MIN, acquireLease, at, expectOk } from './fixtures.ts';

const HOUR = 60 * MIN;
const unverifiable = () => acquireLease({ ttlMs: HOUR });
const verdictAt = (lease: ReturnType<typeof acquireLease>, offsetMs: number) => computeVerdict({ name: 'pane-a', generation: 1, displayState: 'idle' }, [lease], at(offsetMs));

describe('the no-news bound', () => {
  it('is ten minutes, well inside any hook TTL', () => {
    assert.equal(NO_NEWS_BOUND_MS, 10 * MIN);
  });

  it('an unverifiable lease reads waiting until the bound, then degraded: LEASE_STALE, UNKNOWN, no suppressed alarm, for the rest of its TTL', () => {
    const lease = unverifiable();
    assert.equal(verdictAt(lease, NO_NEWS_BOUND_MS - 1).reading, 'waiting');
    for (const offset of [NO_NEWS_BOUND_MS, 30 * MIN, HOUR - 1]) {
      const verdict = verdictAt(lease, offset);
      assert.equal(verdict.reading, 'UNKNOWN', `at ${offset}`);
      assert.notEqual(verdict.attention.stall_alarm, 'suppress');
      assert.deepEqual(
        verdict.reasons.map((reason) => reason.code),
        ['LEASE_STALE'],
      );
      assert.match(verdict.reasons[0]!.detail, /no news for 10m since its grant/);
      assert.equal(verdict.leases[0]!.state, 'degraded');
    }
  });

  it('news (a renewal on the lease observer) restarts the bound, and brings a degraded lease back', () => {
    const lease = unverifiable();
    const degraded = degradeIfNoNews(lease, at(11 * MIN), NO_NEWS_BOUND_MS);
    assert.equal(degraded.state, 'degraded');
    const now = at(12 * MIN);
    const renewed = expectOk(
      renew(degraded, {
        tokenHash: 'hash-good',
        ttlMs: HOUR,
        now,
        hardMaxTtlMs: HARD_MAX,
        source: 'lease_observer',
        evidence: { provider_job: { id: lease.jobRef, state: 'running', observed_at: now.wallMs } },
      }),
    ).record;
    assert.equal(renewed.state, 'active');
    assert.equal(noNewsDeadlineBootMs(renewed, NO_NEWS_BOUND_MS), now.bootMs + NO_NEWS_BOUND_MS);
    assert.equal(leaseAt(renewed, at(21 * MIN)).state, 'active');
    assert.equal(leaseAt(renewed, at(22 * MIN)).state, 'degraded');
    assert.match(leaseAt(renewed, at(22 * MIN)).stateReason ?? '', /since its last renewal/);
  });

  it('does not apply to a lease pinned on a process or a provider job (the hold loop checks those)', () => {
    for (const observer of [
      { kind: 'pid', pid: 4242, startTime: '98765' },
      { kind: 'provider_job', id: 'gen-17', url: 'http://127.0.0.1:9/jobs/gen-17' },
    ] as const) {
      const lease = acquireLease({ ttlMs: HOUR, observer });
      assert.equal(noNewsDeadlineBootMs(lease, NO_NEWS_BOUND_MS), null);
      assert.equal(verdictAt(lease, 30 * MIN).reading, 'waiting');
    }
  });

  it('is judged on the boot clock: a wall-clock jump neither triggers nor delays it', () => {
    const lease = unverifiable();
    assert.equal(leaseAt(lease, at(5 * MIN, { wallOffsetMs: 5 * HOUR })).state, 'active');
    assert.equal(leaseAt(lease, at(10 * MIN, { wallOffsetMs: -HOUR })).state, 'degraded');
  });
});
