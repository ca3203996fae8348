// Panes and wait-leases over real HTTP with the typed client, on SQLite and PostgreSQL:
// binding and pane reuse, token-conditional writes (incl. a renew racing a release), the
// mandatory TTL, every clamp, evidence, ledger and censoring, verdicts, teardown truth table,
// the one-shot notice, and SSE-bound change events. Time moves only by hand (ManualLeaseClock).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LeaseholdApiError } from '../../src/client/client.ts';
import { readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { dispositionOf, strongestDisposition } from '../../src/core/waitLease/reasons.ts';
import { kindForConsumers } from '../../src/core/waitLease/jobType.ts';
import type { ChangeEvent } from '../../src/server/events.ts';
import { NO_NEWS_BOUND_MS } from '../../src/core/waitLease/lease.ts';
import { storageTargets } from '../support/storage.ts';
import { WaitLeaseStore } from '../../src/server/waitLeases/waitLeaseStore.ts';
import { rejection, startTestServer, stopWaitLeaseMaintenance, type TestServer } from '../support/server.ts';

const MIN = 60_000;
const self = { pid: process.pid, start_time: readProcessInfo(process.pid)!.startTime };


async function refused(promise: Promise<unknown>): Promise<LeaseholdApiError> {
  return (await rejection(promise)) as unknown as LeaseholdApiError;
}

for (const target of storageTargets) {
  describe(`wait-leases on ${target.name}`, () => {
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer(target, { hardMaxTtlMs: 60 * MIN });
      await stopWaitLeaseMaintenance(t);
    });
    afterEach(async () => t.stop());

    const acquire = (jobRef = 'job-1', extra: Record<string, unknown> = {}) =>
      t.client.acquireWaitLease({ pane: 'P', job_ref: jobRef, ttl_ms: 15 * MIN, ...extra });
    // Pinned on this test process, so `self` is evidence about the lease's own target (the
    // hold loop is stopped: only the test's renewals move it).
    const held = (jobRef = 'job-1', extra: Record<string, unknown> = {}) =>
      t.client.holdWaitLease({ pane: 'P', job_ref: jobRef, ttl_ms: 15 * MIN, target: { pid: process.pid }, ...extra });

    describe('binding and pane reuse', () => {
      it('a re-registered pane is a new generation; leases of the old one end orphaned and never renew', async () => {
        const first = await t.client.registerPane({ name: 'P', source: 'vscode', shell_pid: 4242, shell_start_time: '123' });
        assert.equal(first.generation, 1);
        const lease = await acquire();
        const again = await t.client.registerPane({ name: 'P', source: 'vscode' });
        assert.equal(again.generation, 2);
        assert.deepEqual(again.leases, [], 'the new generation inherits nothing');
        const old = await t.client.getWaitLease(lease.lease_id);
        assert.equal(old.state, 'ended');
        assert.equal(old.end_reason, 'orphaned');
        const error = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self }));
        assert.equal(error.code, 'LEASE_ENDED');
        const fresh = await acquire();
        assert.equal((await t.client.getWaitLease(fresh.lease_id)).generation, 2, 'the same job_ref is free on the new generation');
      });

      it('acquire on an unknown pane registers it (CLI naming); a closed pane refuses until re-registered', async () => {
        const lease = await acquire('j', {});
        const pane = await t.client.getPane('P');
        assert.equal(pane.generation, 1);
        assert.equal(pane.source, 'cli');
        await t.client.closePane('P');
        assert.equal((await t.client.getWaitLease(lease.lease_id)).end_reason, 'orphaned');
        assert.equal((await refused(t.client.getPane('P'))).status, 404);
        assert.equal((await refused(acquire('k'))).code, 'conflict');
        assert.equal((await t.client.registerPane({ name: 'P', source: 'cli' })).generation, 3);
      });

      it('a session is bound to one generation; after reuse it cannot acquire on the new one', async () => {
        await t.client.registerPane({ name: 'P', source: 'vscode' });
        assert.deepEqual(await t.client.bindSession('P', 'sess-1'), { session_id: 'sess-1', pane: 'P', generation: 1 });
        const lease = await acquire('job-s', { session_id: 'sess-1' });
        assert.equal((await t.client.getWaitLease(lease.lease_id)).session_id, 'sess-1');
        assert.equal((await t.client.listWaitLeases({ session_id: 'sess-1' })).length, 1);
        await t.client.registerPane({ name: 'P', source: 'vscode' });
        const error = await refused(acquire('job-t', { session_id: 'sess-1' }));
        assert.equal(error.code, 'conflict');
        assert.equal(error.field, 'session_id');
        assert.equal((await t.client.getSession('sess-1')).generation, 1);
        assert.equal((await refused(t.client.getSession('nobody'))).status, 404);
      });

      it('release-all ends every live lease of a session', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.bindSession('P', 's');
        const a = await acquire('a', { session_id: 's' });
        const b = await acquire('b', { session_id: 's' });
        await acquire('c');
        const { released } = await t.client.releaseSession('s', 'session ended');
        assert.deepEqual(released.sort(), [a.lease_id, b.lease_id].sort());
        assert.equal((await t.client.listWaitLeases({ pane: 'P', state: 'active' })).length, 1);
      });

      it('display state is set as reported and never touched by leases', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.setPaneDisplay('P', 'idle');
        await acquire('npm-test', { description: 'npm test' });
        const pane = await t.client.getPane('P');
        assert.equal(pane.display_state, 'idle');
        assert.equal(pane.annotation, 'idle · awaiting npm-test (npm test), 15m left');
      });
    });

    describe('token-conditional writes', () => {
      it('a wrong token is refused for renew, release and ceiling', async () => {
        const lease = await acquire();
        for (const attempt of [
          t.client.renewWaitLease(lease.lease_id, { token: 'wlt_wrong', ttl_ms: MIN, evidence: self }),
          t.client.releaseWaitLease(lease.lease_id, 'wlt_wrong'),
          t.client.lowerWaitLeaseCeiling(lease.lease_id, 'wlt_wrong', t.leaseClock.wallMs + MIN),
        ]) {
          const error = await refused(attempt);
          assert.equal(error.code, 'TOKEN_MISMATCH');
          assert.equal(error.status, 409);
        }
        assert.equal((await t.client.getWaitLease(lease.lease_id)).state, 'active');
      });

      it('a renew racing a release never resurrects the released lease (many rounds)', async () => {
        for (let round = 0; round < 40; round++) {
          const lease = await held(`race-${round}`);
          const [renewed, released] = await Promise.allSettled([
            t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: 30 * MIN, evidence: self }),
            t.client.releaseWaitLease(lease.lease_id, lease.token, 'race'),
          ]);
          assert.equal(released.status, 'fulfilled', 'release always wins or follows');
          if (renewed.status === 'rejected') assert.equal((renewed.reason as LeaseholdApiError).code, 'LEASE_ENDED');
          const view = await t.client.getWaitLease(lease.lease_id);
          assert.equal(view.state, 'ended', `round ${round}`);
          assert.equal(view.end_reason, 'released');
          const late = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self }));
          assert.equal(late.code, 'LEASE_ENDED');
        }
      });

      // Deterministic interleaving: the renew reads the lease and decides (core says "renew"),
      // then, before its conditional write lands, another writer ends the lease. The stale
      // write must be refused by the compare-and-set and the re-decision must see the end. This
      // fails if the store's CAS ever stops checking the version (the renew would overwrite the
      // ended row with its active record).
      for (const [ending, end] of [
        ['released', (lease: { lease_id: string; token: string }) => t.client.releaseWaitLease(lease.lease_id, lease.token, 'meanwhile')],
        ['orphaned', () => t.client.registerPane({ name: 'P', source: 'cli' })],
        [
          'expired',
          async () => {
            t.leaseClock.advance(15 * MIN);
            assert.equal(await t.server.expirySweeper.runOnce(), 1);
          },
        ],
      ] as const) {
        it(`a renew decided before the lease was ${ending} never writes it back to life`, async () => {
          // Every store (each request's is confined to its human) writes through this method.
          const store = WaitLeaseStore.prototype;
          const compareAndSet = store.compareAndSet;
          let interleave: (() => Promise<unknown>) | undefined;
          store.compareAndSet = async function (this: WaitLeaseStore, ...args: Parameters<WaitLeaseStore['compareAndSet']>) {
            const competitor = interleave;
            interleave = undefined;
            if (competitor) await competitor();
            return compareAndSet.apply(this, args);
          };
          try {
            const lease = await held(`stale-${ending}`);
            interleave = () => end(lease);
            const error = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: 30 * MIN, evidence: self }));
            assert.equal(interleave, undefined, 'the competing end ran between the decision and the write');
            assert.equal(error.code, 'LEASE_ENDED');
            const view = await t.client.getWaitLease(lease.lease_id);
            assert.deepEqual([view.state, view.end_reason, view.renew_count], ['ended', ending, 0]);
          } finally {
            store.compareAndSet = compareAndSet;
          }
        });
      }

      it('an in-flight renew cannot resurrect an expired lease either', async () => {
        const lease = await acquire();
        t.leaseClock.advance(15 * MIN);
        const error = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self }));
        assert.equal(error.code, 'LEASE_ENDED');
        assert.equal((await t.client.getWaitLease(lease.lease_id)).end_reason, 'expired');
      });
    });

    describe('mandatory TTL and job vocabulary', () => {
      it('ttl_ms is required and must be a positive whole number', async () => {
        for (const body of [{ pane: 'P', job_ref: 'j' }, { pane: 'P', job_ref: 'j', ttl_ms: 0 }, { pane: 'P', job_ref: 'j', ttl_ms: 1.5 }]) {
          const error = await refused(t.client.acquireWaitLease(body as never));
          assert.equal(error.status, 400);
          assert.equal(error.field, 'ttl_ms');
        }
      });

      it('job_type is an enforced enum with other:<name>; unknown keys are refused', async () => {
        await acquire('a', { job_type: 'build' });
        await acquire('b', { job_type: 'other:gpu-render' });
        assert.equal((await refused(acquire('c', { job_type: 'my fancy job' }))).status, 400);
        assert.equal((await refused(acquire('d', { kind: 'delegated' }))).field, 'kind');
        assert.equal((await refused(acquire('e', { expires_at: 1 }))).status, 400, 'clients never write an expiry');
      });

      it('a second valid lease for the same job_ref on the pane is a conflict', async () => {
        await acquire('same');
        assert.equal((await refused(acquire('same'))).code, 'conflict');
      });
    });

    describe('clamps', () => {
      it('the hard max bounds each grant, never the declared value', async () => {
        await t.stop();
        t = await startTestServer(target, { hardMaxTtlMs: 10 * MIN });
        await stopWaitLeaseMaintenance(t);
        const lease = await t.client.holdWaitLease({ pane: 'P', job_ref: 'long', ttl_ms: 120 * MIN, target: { pid: process.pid } });
        assert.equal(lease.expires_in_ms, 10 * MIN);
        assert.deepEqual(lease.clamped_by, ['hard_max']);
        t.leaseClock.advance(5 * MIN);
        const renewed = await t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: 120 * MIN, evidence: self });
        assert.equal(renewed.expires_in_ms, 10 * MIN);
        assert.deepEqual(renewed.clamped_by, ['hard_max']);
        const [row] = await t.client.ledger();
        assert.equal(row!.declared_ttl_ms, 120 * MIN, 'the ledger keeps the declared TTL');
      });

      it('authorized_until clamps; a lowered ceiling applies at once; it is never raised or cleared', async () => {
        const until = t.leaseClock.wallMs + 30 * MIN;
        const lease = await held('c', { ttl_ms: 45 * MIN, authorized_until: until });
        assert.equal(lease.expires_in_ms, 30 * MIN);
        assert.deepEqual(lease.clamped_by, ['authorized_until']);
        const lowered = await t.client.lowerWaitLeaseCeiling(lease.lease_id, lease.token, t.leaseClock.wallMs + 10 * MIN);
        assert.equal(lowered.expires_in_ms, 10 * MIN);
        assert.equal((await t.client.getWaitLease(lease.lease_id)).remaining_ms, 10 * MIN, 'applied at once');
        const raise = await refused(t.client.lowerWaitLeaseCeiling(lease.lease_id, lease.token, until));
        assert.equal(raise.field, 'authorized_until');
        const raiseByRenew = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self, authorized_until: until }));
        assert.equal(raiseByRenew.field, 'authorized_until');
        const renewed = await t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: 45 * MIN, evidence: self });
        assert.equal(renewed.expires_in_ms, 10 * MIN, 'kept across renewals');
        t.leaseClock.advance(10 * MIN);
        const past = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self }));
        assert.equal(past.code, 'OWNER_WINDOW_ENDED');
        const view = await t.client.getWaitLease(lease.lease_id);
        assert.deepEqual([view.end_reason, view.expired_by], ['expired', 'authorized_until']);
        const verdict = await t.client.paneVerdict('P');
        assert.deepEqual(verdict.reasons.map((reason) => reason.code), ['OWNER_WINDOW_ENDED']);
        assert.equal(verdict.disposition, 'drain_and_park');
      });

      it('lowering the ceiling to now revokes at once (early revocation)', async () => {
        const lease = await acquire('r');
        const lowered = await t.client.lowerWaitLeaseCeiling(lease.lease_id, lease.token, t.leaseClock.wallMs);
        assert.equal(lowered.state, 'ended');
        assert.equal((await t.client.getWaitLease(lease.lease_id)).expired_by, 'authorized_until');
      });
    });

    describe('evidence', () => {
      it('renew without a fresh observation of the target is EVIDENCE_MISSING', async () => {
        const lease = await held();
        for (const evidence of [undefined, { alive: true }, 'still running', { pid: process.pid }, { pid: process.pid, start_time: '1' }, { pid: 2 ** 22 + 7, start_time: '5' }]) {
          const error = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence }));
          assert.equal(error.code, 'EVIDENCE_MISSING', JSON.stringify(evidence));
          assert.equal(error.field, 'evidence');
        }
        let verdict = await t.client.paneVerdict('P');
        assert.ok(verdict.reasons.some((reason) => reason.code === 'EVIDENCE_MISSING'));
        assert.equal(verdict.disposition, 'refuse_renewal');
        await t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self });
        verdict = await t.client.paneVerdict('P');
        assert.deepEqual(verdict.reasons, [], 'a verified renewal clears the refusal');
        assert.equal((await t.client.getWaitLease(lease.lease_id)).renew_count, 1);
      });

      // Issue 8, evidence rule 1: evidence must be about the lease's own target.
      it("the renewer's own live process is not evidence for a lease that pins another process, or none", async () => {
        const declared = await acquire('declared');
        const child = spawn('sleep', ['30'], { stdio: 'ignore' });
        try {
          const onChild = await held('child', { target: { pid: child.pid } });
          for (const lease of [declared, onChild]) {
            const error = await refused(t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self }));
            assert.equal(error.code, 'EVIDENCE_MISSING');
            assert.match(error.message, /not this lease's target/);
          }
          const childEvidence = { pid: child.pid!, start_time: readProcessInfo(child.pid!)!.startTime };
          await t.client.renewWaitLease(onChild.lease_id, { token: onChild.token, ttl_ms: MIN, evidence: childEvidence });
          assert.equal((await t.client.getWaitLease(onChild.lease_id)).renew_count, 1, 'the pinned process itself renews');
          assert.equal((await t.client.getWaitLease(declared.lease_id)).renew_count, 0);
        } finally {
          child.kill('SIGKILL');
        }
      });

      it("a caller's provider-job observation renews nothing, whatever job it names; the server's own observation of the lease's provider does", async () => {
        const lease = await acquire('gen-17');
        for (const id of ['made-up', 'gen-17']) {
          const error = await refused(
            t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: { provider_job: { id, state: 'running', observed_at: t.leaseClock.wallMs } } }),
          );
          assert.equal(error.code, 'EVIDENCE_MISSING', id);
        }
        assert.equal((await t.client.getWaitLease(lease.lease_id)).renew_count, 0);

        let polls = 0;
        let state = 'running';
        const provider = createServer((_request, response) => {
          polls += 1;
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ state }));
        });
        await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
        try {
          const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/jobs/render-3`;
          const job = await held('render-3', { target: { provider_job: { id: 'render-3', url } } });
          const other = await refused(t.client.renewWaitLease(job.lease_id, { token: job.token, ttl_ms: MIN, evidence: { provider_job: { id: 'render-4', state: 'running', observed_at: t.leaseClock.wallMs } } }));
          assert.match(other.message, /not this lease's job/);
          const before = polls;
          // The caller names the job; its observed_at (here none) is not used: the server polls.
          await t.client.renewWaitLease(job.lease_id, { token: job.token, ttl_ms: MIN, evidence: { provider_job: { id: 'render-3', state: 'running' } } });
          assert.equal(polls, before + 1, 'the server observed the job itself');
          assert.equal((await t.client.getWaitLease(job.lease_id)).renew_count, 1);
          state = 'finished';
          const finished = await refused(t.client.renewWaitLease(job.lease_id, { token: job.token, ttl_ms: MIN, evidence: { provider_job: { id: 'render-3', state: 'running', observed_at: t.leaseClock.wallMs } } }));
          assert.equal(finished.code, 'EVIDENCE_MISSING', "the caller's 'running' does not outvote the server's observation");
        } finally {
          provider.close();
        }
      });
    });

    // Issue 8 item 3: a lease with no verifiable target reads waiting for at most the no-news
    // bound after its last news, not for its whole TTL.
    describe('the no-news bound', () => {
      it('an unverifiable lease is degraded by the sweeper at the bound (an event, LEASE_STALE, no suppressed alarm); a pinned one is not', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.setPaneDisplay('P', 'idle');
        const declared = await acquire('declared', { ttl_ms: 60 * MIN });
        const pinned = await held('pinned', { ttl_ms: 60 * MIN });
        const events: ChangeEvent[] = [];
        const unsubscribe = t.server.bus.subscribe((event) => events.push(event));
        t.leaseClock.advance(NO_NEWS_BOUND_MS - 1);
        await t.server.expirySweeper.runOnce();
        assert.equal((await t.client.paneVerdict('P')).reading, 'waiting');
        assert.equal(events.length, 0);
        t.leaseClock.advance(1);
        await t.server.expirySweeper.runOnce();
        unsubscribe();
        assert.deepEqual(
          events.map((event) => `${event.type}:${'change' in event ? event.change : ''}:${'lease_id' in event ? String(event.lease_id) : ''}`),
          [`lease.changed:degraded:${declared.lease_id}`],
        );
        const view = await t.client.getWaitLease(declared.lease_id);
        assert.equal(view.state, 'degraded');
        assert.match(view.state_reason ?? '', /no news for 10m/);
        assert.equal((await t.client.getWaitLease(pinned.lease_id)).state, 'active', 'the hold loop judges a pinned target');
        const verdict = await t.client.paneVerdict('P');
        assert.ok(verdict.reasons.some((reason) => reason.code === 'LEASE_STALE' && reason.lease_id === declared.lease_id));
        assert.equal(verdict.disposition, 'reverify_then_page');
        // Still waiting on the pinned job; the unverifiable one no longer counts.
        assert.deepEqual(verdict.leases.filter((lease) => lease.valid).map((lease) => lease.job_ref), ['pinned']);
      });

      it("the sweeper's timer is armed at the bound: no backstop tick is needed", async () => {
        await acquire('declared', { ttl_ms: 60 * MIN });
        const delay = await t.server.waitLeases.store.nextNoNewsInMs(t.leaseClock.read(), t.server.waitLeases.machineId, NO_NEWS_BOUND_MS);
        assert.equal(delay, NO_NEWS_BOUND_MS);
      });
    });

    describe('expiry, ledger and the one-shot notice', () => {
      it('the sweeper ends due leases; ledger rows carry censoring by end reason', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        const released = await acquire('rel', { job_type: 'test' });
        const expired = await acquire('exp', { job_type: 'build', ttl_ms: 5 * MIN });
        const orphaned = await acquire('orph', { kind: 'inferred' });
        const live = await t.client.acquireWaitLease({ pane: 'Q', job_ref: 'live', ttl_ms: 30 * MIN });
        t.leaseClock.advance(3 * MIN);
        await t.client.releaseWaitLease(released.lease_id, released.token, 'tests passed');
        t.leaseClock.advance(4 * MIN);
        assert.equal(await t.server.expirySweeper.runOnce(), 1);
        await t.client.registerPane({ name: 'P', source: 'cli' });
        const rows = new Map((await t.client.ledger()).map((row) => [row.lease_id, row]));
        const rel = rows.get(released.lease_id)!;
        assert.deepEqual([rel.end_reason, rel.censoring, rel.measured_duration_ms, rel.release_note], ['released', 'exact', 3 * MIN, 'tests passed']);
        const exp = rows.get(expired.lease_id)!;
        assert.deepEqual([exp.end_reason, exp.censoring, exp.measured_duration_ms], ['expired', 'right_censored', 5 * MIN], 'ended at the deadline, not at the sweep');
        const orph = rows.get(orphaned.lease_id)!;
        assert.deepEqual([orph.end_reason, orph.censoring, orph.kind], ['orphaned', 'unknown', 'inferred']);
        const open = rows.get(live.lease_id)!;
        assert.deepEqual([open.end_reason, open.censoring, open.ended_at, open.measured_duration_ms], [null, 'unknown', null, null]);
        assert.deepEqual((await t.client.ledger({ end_reason: 'expired' })).map((row) => row.lease_id), [expired.lease_id]);
        assert.deepEqual((await t.client.ledger({ job_type: 'test' })).map((row) => row.lease_id), [released.lease_id]);
        assert.equal((await t.client.ledger({ limit: 2 })).length, 2);
      });

      it('an expired lease shows "lease expired N ago" until the notice is consumed', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.setPaneDisplay('P', 'idle');
        const lease = await acquire('n', { ttl_ms: 5 * MIN });
        t.leaseClock.advance(8 * MIN);
        await t.server.expirySweeper.runOnce();
        const before = await t.client.getWaitLease(lease.lease_id);
        assert.equal(before.notice_pending, true, 'reading the lease alone does not consume the notice');
        const consumed = await t.client.consumeExpiredNotice(lease.lease_id);
        assert.equal(consumed.notice_pending, false);
        assert.equal((await t.client.getPane('P')).annotation, 'idle');
        await t.client.consumeExpiredNotice(lease.lease_id);
        assert.equal((await t.client.getPane('P')).annotation, 'idle', 'one-shot: consuming again brings nothing back');
      });

      it('the expired notice is one-shot on every surface: GET /panes and GET /panes/:pane show it once', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.registerPane({ name: 'Q', source: 'cli' });
        await t.client.setPaneDisplay('P', 'idle');
        await t.client.setPaneDisplay('Q', 'idle');
        await acquire('n', { ttl_ms: 5 * MIN });
        await t.client.acquireWaitLease({ pane: 'Q', job_ref: 'q', ttl_ms: 5 * MIN });
        t.leaseClock.advance(25 * MIN);
        await t.server.expirySweeper.runOnce();
        const first = new Map((await t.client.listPanes()).map((pane) => [pane.name, pane]));
        assert.equal(first.get('P')!.annotation, 'idle · lease expired 20m ago');
        assert.equal(first.get('P')!.leases[0]!.notice_pending, true, 'the reader that shows it is told it is new');
        const second = new Map((await t.client.listPanes()).map((pane) => [pane.name, pane]));
        assert.equal(second.get('P')!.annotation, 'idle', 'the next read does not repeat it');
        assert.equal(second.get('Q')!.annotation, 'idle');
        assert.equal((await t.client.getPane('P')).annotation, 'idle');
      });

      it('GET /panes/:pane shows a pending notice once', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.setPaneDisplay('P', 'idle');
        await acquire('n', { ttl_ms: 5 * MIN });
        t.leaseClock.advance(7 * MIN);
        assert.equal((await t.client.getPane('P')).annotation, 'idle · lease expired 2m ago');
        assert.equal((await t.client.getPane('P')).annotation, 'idle');
        assert.equal((await t.client.listPanes())[0]!.annotation, 'idle');
      });

      it('consuming the notice of a live lease is a no-op: the notice is still owed when it expires', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.setPaneDisplay('P', 'idle');
        const lease = await acquire('early', { ttl_ms: 5 * MIN });
        assert.equal((await t.client.consumeExpiredNotice(lease.lease_id)).notice_pending, false);
        t.leaseClock.advance(6 * MIN);
        const pane = await t.client.getPane('P');
        assert.equal(pane.annotation, 'idle · lease expired 1m ago', 'shown even before the sweeper wrote the expiry');
        assert.equal(pane.leases[0]!.notice_pending, true);
      });
    });

    describe('verdicts: the consumer contract', () => {
      it('quiet and no lease is UNKNOWN (not idle); a declared lease suppresses the stall alarm; an inferred one only extends grace', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        await t.client.setPaneDisplay('P', 'idle');
        let verdict = await t.client.paneVerdict('P');
        assert.deepEqual([verdict.reading, verdict.attention.stall_alarm, verdict.attention.page], ['UNKNOWN', 'normal', 'if_unresolved']);
        const inferred = await acquire('i', { kind: 'inferred' });
        verdict = await t.client.paneVerdict('P');
        assert.deepEqual([verdict.reading, verdict.waiting, verdict.waiting_basis, verdict.attention.stall_alarm], ['UNKNOWN', true, 'inferred', 'extend_grace']);
        assert.match(verdict.attention.summary, /never safe to keep billing/);
        await acquire('d');
        verdict = await t.client.paneVerdict('P');
        assert.deepEqual([verdict.reading, verdict.waiting_basis, verdict.attention.stall_alarm, verdict.attention.page], ['waiting', 'declared', 'suppress', 'no']);
        await t.client.setPaneDisplay('P', 'working');
        assert.equal((await t.client.paneVerdict('P')).reading, 'active');
        await t.client.releaseWaitLease(inferred.lease_id, inferred.token);
        assert.doesNotMatch(JSON.stringify(await t.client.paneVerdict('P')), /safe to kill|terminate now/i);
      });

      it('LEASE_STALE on expiry; all reasons kept, the strongest disposition applies', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        const stale = await acquire('stale', { ttl_ms: 5 * MIN });
        const windowed = await acquire('owner', { ttl_ms: 30 * MIN, authorized_until: t.leaseClock.wallMs + 5 * MIN });
        t.leaseClock.advance(6 * MIN);
        await t.server.expirySweeper.runOnce();
        const verdict = await t.client.paneVerdict('P');
        assert.deepEqual(verdict.reasons.map((reason) => [reason.code, reason.lease_id]).sort(), [
          ['LEASE_STALE', stale.lease_id],
          ['OWNER_WINDOW_ENDED', windowed.lease_id],
        ].sort());
        assert.equal(verdict.disposition, 'reverify_then_page', 'a normal close never suppresses the stronger reason');
        assert.ok(!verdict.reasons.some((reason) => reason.code === 'CHAIN_CAP_REACHED'), 'reserved: never emitted');
      });

      it('forward compatibility: an unknown reason code gets the strongest safe disposition; an unknown kind reads as inferred', () => {
        assert.equal(dispositionOf('BUDGET_EXHAUSTED_V9'), 'page_immediately');
        assert.equal(strongestDisposition(['OWNER_WINDOW_ENDED', 'BUDGET_EXHAUSTED_V9']), 'page_immediately');
        assert.equal(dispositionOf('CHAIN_CAP_REACHED'), 'page_immediately');
        assert.equal(kindForConsumers('delegated'), 'inferred');
        assert.equal(kindForConsumers(undefined), 'inferred');
      });

      it('an unknown pane has no verdict (404), never a guess', async () => {
        assert.equal((await refused(t.client.paneVerdict('nope'))).status, 404);
      });
    });

    describe('teardown-check (HTTP)', () => {
      it('yes only for lease absent/expired AND heartbeat stale AND floor passed; each unmet condition named', async () => {
        await t.client.registerPane({ name: 'P', source: 'cli' });
        const active = await acquire('active-job');
        await acquire('expired-job', { ttl_ms: MIN });
        const released = await acquire('released-job');
        await t.client.releaseWaitLease(released.lease_id, released.token);
        t.leaseClock.advance(2 * MIN);
        await t.server.expirySweeper.runOnce();
        assert.equal((await t.client.getWaitLease(active.lease_id)).state, 'active');
        const check = (job: string, age: number | null, quiet: number) =>
          t.client.teardownCheck({ pane: 'P', job_ref: job, job_heartbeat_age_ms: age, heartbeat_stale_after_ms: 5 * MIN, quiet_for_ms: quiet, policy_floor_ms: 15 * MIN });
        const leases = { 'active-job': 'active', 'expired-job': 'expired', 'released-job': 'absent', 'never-job': 'absent' } as const;
        for (const [job, leaseState] of Object.entries(leases)) {
          for (const age of [null, MIN, 10 * MIN]) {
            for (const quiet of [MIN, 20 * MIN]) {
              const answer = await check(job, age, quiet);
              const leaseOk = leaseState !== 'active';
              const heartbeatOk = age !== null && age >= 5 * MIN;
              const floorOk = quiet >= 15 * MIN;
              assert.equal(answer.lease, leaseState);
              assert.equal(answer.allowed, leaseOk && heartbeatOk && floorOk, `${job} ${age} ${quiet}`);
              assert.equal(answer.unmet.some((text) => text.startsWith('lease_not_ended')), !leaseOk);
              assert.equal(answer.unmet.some((text) => text.startsWith('job_heartbeat')), !heartbeatOk);
              assert.equal(answer.unmet.some((text) => text.startsWith('policy_floor_not_passed')), !floorOk);
            }
          }
        }
        const unknownPane = t.client.teardownCheck({ pane: 'nope', job_ref: 'x', job_heartbeat_age_ms: 1, heartbeat_stale_after_ms: 0, quiet_for_ms: 1, policy_floor_ms: 0 });
        assert.equal((await refused(unknownPane)).status, 404, 'an unknown pane is never read as "lease absent"');
      });
    });

    describe('events', () => {
      it('publishes pane.changed and lease.changed for every change', async () => {
        const events: ChangeEvent[] = [];
        const unsubscribe = t.server.bus.subscribe((event) => events.push(event));
        await t.client.registerPane({ name: 'P', source: 'cli' });
        const lease = await held('e', { ttl_ms: MIN });
        await t.client.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: MIN, evidence: self });
        await t.client.setPaneDisplay('P', 'idle');
        t.leaseClock.advance(2 * MIN);
        await t.server.expirySweeper.runOnce();
        unsubscribe();
        const changes = events.map((event) => `${event.type}:${'change' in event ? event.change : ''}`);
        assert.deepEqual(changes, ['pane.changed:registered', 'lease.changed:acquired', 'lease.changed:renewed', 'pane.changed:display', 'lease.changed:expired']);
      });
    });
  });
}
