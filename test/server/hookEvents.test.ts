// POST /api/v1/hook-events on real storage: validation, idempotency by id, per-op results.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { newEventId } from '../../src/runtime/spool.ts';
import { rejection, startTestServer, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage.ts';

for (const target of storageTargets) {
  describe(`hook events (${target.name})`, () => {
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer(target, { hookReplayIntervalMs: 0 });
    });
    afterEach(async () => {
      await t.stop();
    });
    const post = (body: unknown) => t.client.call<{ id: string; duplicate: boolean; results: Array<{ op: string; ok: boolean; detail?: Record<string, unknown>; error?: { code: string } }> }>('POST', '/api/v1/hook-events', { body });

    it('refuses a body that is not {id, ops}, naming the field', async () => {
      const error = await rejection(post({ id: '../x', ops: [] }));
      assert.equal(error.status, 400);
      assert.equal(error.field, 'id');
      const unknownOp = await rejection(post({ id: newEventId(), ops: [{ op: 'explode', session_id: 's' }] }));
      assert.equal(unknownOp.status, 400);
    });

    it('applies once per id: a repeat changes nothing and answers duplicate with the first results', async () => {
      const id = newEventId();
      const bind = { op: 'bind_session', session_id: 's1', pane_hint: { env_pane: 'p1', ancestry: [] } };
      const acquire = { op: 'acquire', session_id: 's1', job_ref: 'j1', job_type: 'workflow', kind: 'declared', ttl_ms: 60_000, description: 'x'.repeat(500) };
      const first = await post({ id, ops: [bind, acquire] });
      assert.equal(first.duplicate, false);
      assert.deepEqual(first.results.map((result) => result.ok), [true, true]);
      const again = await post({ id, ops: [bind, acquire] });
      assert.equal(again.duplicate, true);
      assert.deepEqual(again.results, first.results);
      const leases = (await t.client.call<{ leases: Array<{ job_type: string; description: string }> }>('GET', '/api/v1/wait-leases', { query: { session_id: 's1' } })).leases;
      assert.equal(leases.length, 1);
      assert.equal(leases[0]!.job_type, 'other:workflow');
      assert.equal(leases[0]!.description.length, 120);
      // A new id with the same launch keeps the live lease rather than doubling it.
      const relaunch = await post({ id: newEventId(), ops: [acquire] });
      assert.equal(relaunch.results[0]!.detail?.existing, true);
    });

    it('a refused op does not stop the next one, and says why', async () => {
      const answer = await post({
        id: newEventId(),
        ops: [
          { op: 'set_display', session_id: 'never-bound', state: 'working', reason: 'prompt' },
          { op: 'bind_session', session_id: 's2', pane_hint: { ancestry: [{ pid: 1, start_time: 'nope' }] } },
          { op: 'bind_session', session_id: 's2', pane_hint: { env_pane: 'p2', ancestry: [] } },
        ],
      });
      assert.deepEqual(answer.results.map((result) => [result.ok, result.error?.code]), [[false, 'not_found'], [false, 'not_found'], [true, undefined]]);
    });

    it('a Stop listing taken around an observed end (SubagentStop) does not start a second lease for the finished agent', async () => {
      const bind = { op: 'bind_session', session_id: 's7', pane_hint: { env_pane: 'p7', ancestry: [] } };
      const launch = { op: 'acquire', session_id: 's7', job_ref: 'agent-1', job_type: 'subagent', kind: 'declared', ttl_ms: 600_000 };
      const stopped = { op: 'release', session_id: 's7', job_ref: 'agent-1', end_reason: 'released', note: 'the subagent stopped (SubagentStop)', observed_end: true };
      await post({ id: newEventId(), ops: [bind, launch, stopped] });
      const running = [{ job_ref: 'agent-1', job_type: 'subagent', ttl_ms: 600_000, evidence: 'listed as running in background_tasks' }];
      const listing = await post({ id: newEventId(), ops: [{ op: 'reconcile', session_id: 's7', running, finished: [], release_unlisted: true }] });
      assert.deepEqual(listing.results[0]!.detail?.stale_listed, ['agent-1']);
      const leases = (await t.client.call<{ leases: Array<{ state: string }> }>('GET', '/api/v1/wait-leases', { query: { session_id: 's7' } })).leases;
      assert.deepEqual(leases.map((lease) => lease.state), ['ended'], 'one run, one lease');
    });

    it('a forked background session takes over its parent\'s live leases; leave_pane unbinds it so it drives no display (item 7)', async () => {
      const bind = { op: 'bind_session', session_id: 'parent', pane_hint: { env_pane: 'p8', ancestry: [] } };
      const launch = { op: 'acquire', session_id: 'parent', job_ref: 'bash-1', job_type: 'shell', kind: 'declared', ttl_ms: 600_000 };
      await post({ id: newEventId(), ops: [bind, launch] });
      const left = await post({
        id: newEventId(),
        ops: [
          { op: 'leave_pane', session_id: 'fork', reason: 'in the daemon', forked_from: 'parent' },
          { op: 'set_display', session_id: 'fork', state: 'idle', reason: 'session fork' },
        ],
      });
      assert.equal(left.results[0]!.ok, true);
      assert.equal((left.results[0]!.detail?.carried_from_fork as string[]).length, 1);
      assert.equal(left.results[1]!.error?.code, 'not_found', 'an unbound session drives no pane');
      const leases = (await t.client.call<{ leases: Array<{ session_id: string; state: string }> }>('GET', '/api/v1/wait-leases', { query: { pane: 'p8' } })).leases;
      assert.deepEqual(leases.map((lease) => [lease.session_id, lease.state]), [['fork', 'active']]);
      // Attached somewhere, then detached again: bound, then unbound.
      const attached = await post({ id: newEventId(), ops: [{ op: 'bind_session', session_id: 'fork', source: 'attach', pane_hint: { env_pane: 'p8b', ancestry: [] } }] });
      assert.equal(attached.results[0]!.detail?.pane, 'p8b');
      const again = await post({ id: newEventId(), ops: [{ op: 'bind_session', session_id: 'fork', source: 'attach', pane_hint: { env_pane: 'p8b', ancestry: [] } }] });
      assert.equal(again.results[0]!.detail?.unchanged, true, 'rebinding where it is bound changes nothing');
      const detached = await post({ id: newEventId(), ops: [{ op: 'leave_pane', session_id: 'fork', reason: 'detached' }] });
      assert.equal(detached.results[0]!.detail?.left, 'p8b');
    });

    it("a session whose Stop lists a task another session holds a live lease on takes that lease over: one job, one lease (item 7, a fork in a spare process)", async () => {
      await post({
        id: newEventId(),
        ops: [
          { op: 'bind_session', session_id: 'old', pane_hint: { env_pane: 'p6', ancestry: [] } },
          { op: 'acquire', session_id: 'old', job_ref: 'bash-6', job_type: 'shell', kind: 'declared', ttl_ms: 600_000 },
          { op: 'bind_session', session_id: 'new', pane_hint: { env_pane: 'p6b', ancestry: [] } },
        ],
      });
      const running = [{ job_ref: 'bash-6', job_type: 'shell', ttl_ms: 600_000, evidence: 'listed as running in background_tasks' }];
      const listing = await post({ id: newEventId(), ops: [{ op: 'reconcile', session_id: 'new', running, finished: [], release_unlisted: true }] });
      assert.deepEqual(listing.results[0]!.detail?.adopted, ['bash-6']);
      const leases = (await t.client.call<{ leases: Array<{ session_id: string; state: string }> }>('GET', '/api/v1/wait-leases', { query: { pane: 'p6' } })).leases;
      assert.deepEqual(leases.map((lease) => [lease.session_id, lease.state]), [['new', 'active']]);
      assert.equal((await t.client.call<{ leases: unknown[] }>('GET', '/api/v1/wait-leases', { query: { pane: 'p6b' } })).leases.length, 0, 'no second lease');
    });

    // Some hooks run async (off Claude Code's critical path), so events can arrive out of order.
    it('display changes are judged as of their observation: a late earlier "blocked" never undoes the tool that ran after it', async () => {
      const at = t.leaseClock.wallMs - 10_000;
      const event = (observed: number, ops: unknown[]) => post({ id: newEventId(observed), observed_at: observed, ops });
      await event(at, [
        { op: 'bind_session', session_id: 's5', pane_hint: { env_pane: 'p5', ancestry: [] } },
        { op: 'set_display', session_id: 's5', state: 'working', reason: 'prompt submitted' },
      ]);
      // PostToolUse (t+5) arrives before the PermissionRequest (t+1) that preceded it.
      const tool = await event(at + 5_000, [{ op: 'set_display', session_id: 's5', state: 'working', reason: 'tool ran', if_state: 'blocked' }]);
      assert.equal(tool.results[0]!.detail?.unchanged, true);
      const late = await event(at + 1_000, [{ op: 'set_display', session_id: 's5', state: 'blocked', reason: 'permission requested' }]);
      assert.equal(late.results[0]!.detail?.stale, true);
      assert.equal((await t.client.getPane('p5')).display_state, 'working');
      // In order, it still works: blocked, then the tool ran.
      await event(at + 6_000, [{ op: 'set_display', session_id: 's5', state: 'blocked', reason: 'permission requested' }]);
      assert.equal((await t.client.getPane('p5')).display_state, 'blocked');
      await event(at + 7_000, [{ op: 'set_display', session_id: 's5', state: 'working', reason: 'tool ran', if_state: 'blocked' }]);
      assert.equal((await t.client.getPane('p5')).display_state, 'working');
    });

    it('a launch that arrives after the Stop listing leased its task pins that lease on its process (one lease, held)', async () => {
      const child = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        const hint = { pid: child.pid!, start_time: readProcessInfo(child.pid!)!.startTime };
        const running = [{ job_ref: 'bash-4', job_type: 'shell', ttl_ms: 600_000, evidence: 'listed as running in background_tasks' }];
        await post({
          id: newEventId(),
          ops: [
            { op: 'bind_session', session_id: 's4', pane_hint: { env_pane: 'p4', ancestry: [] } },
            { op: 'reconcile', session_id: 's4', running, finished: [], release_unlisted: true },
          ],
        });
        const launch = await post({ id: newEventId(), ops: [{ op: 'acquire', session_id: 's4', job_ref: 'bash-4', job_type: 'shell', kind: 'declared', ttl_ms: 600_000, pid_hint: hint }] });
        assert.equal(launch.results[0]!.detail?.held, true);
        const leases = (await t.client.call<{ leases: Array<{ observer: { kind: string; pid?: number } }> }>('GET', '/api/v1/wait-leases', { query: { session_id: 's4' } })).leases;
        assert.deepEqual(leases.map((lease) => [lease.observer.kind, lease.observer.pid]), [['pid', child.pid]]);
      } finally {
        child.kill('SIGKILL');
      }
    });

    it('touch: a tool call inside a background subagent renews its unheld lease (news), and acquires nothing for an agent without one', async () => {
      await post({
        id: newEventId(),
        ops: [
          { op: 'bind_session', session_id: 's3', pane_hint: { env_pane: 'p3', ancestry: [] } },
          { op: 'acquire', session_id: 's3', job_ref: 'agent-3', job_type: 'subagent', kind: 'declared', ttl_ms: 3_600_000 },
        ],
      });
      const touched = await post({ id: newEventId(), ops: [{ op: 'touch', session_id: 's3', job_ref: 'agent-3' }, { op: 'touch', session_id: 's3', job_ref: 'foreground-agent' }] });
      assert.deepEqual(touched.results.map((result) => result.detail?.renewed), [true, false]);
      const leases = (await t.client.call<{ leases: Array<{ job_ref: string; renew_count: number }> }>('GET', '/api/v1/wait-leases', { query: { session_id: 's3' } })).leases;
      assert.deepEqual(leases.map((lease) => [lease.job_ref, lease.renew_count]), [['agent-3', 1]]);
    });

    it('a replayed event is judged as of when it was observed: it never grants more than it would have then (issue 8 evidence rule)', async () => {
      const leases = async () => (await t.client.call<{ leases: Array<{ job_ref: string; state: string; remaining_ms: number; renew_count: number }> }>('GET', '/api/v1/wait-leases', { query: { session_id: 's9' } })).leases;
      const bind = { op: 'bind_session', session_id: 's9', pane_hint: { env_pane: 'p9', ancestry: [] } };
      const acquire = (job_ref: string) => ({ op: 'acquire', session_id: 's9', job_ref, job_type: 'shell', kind: 'declared', ttl_ms: 120_000 });
      await post({ id: newEventId(), ops: [bind, acquire('fresh')] });
      t.leaseClock.advance(100_000); // 100 s later the lease has 20 s left
      const now = t.leaseClock.read().wallMs;
      // A Stop listing spooled 71 s ago, replayed now: too old to renew anything.
      const listing = { op: 'reconcile', session_id: 's9', running: [{ job_ref: 'fresh', job_type: 'shell', ttl_ms: 120_000, evidence: 'listed as running in background_tasks' }], finished: [], release_unlisted: true };
      const stale = await post({ id: newEventId(), observed_at: now - 71_000, ops: [listing] });
      assert.ok(JSON.stringify(stale.results[0]).includes('EVIDENCE_MISSING'), JSON.stringify(stale.results));
      const after = (await leases()).find((lease) => lease.job_ref === 'fresh')!;
      assert.equal(after.renew_count, 0);
      assert.ok(after.remaining_ms <= 20_000, `not renewed to a full TTL: ${after.remaining_ms}`);
      // A launch observed 30 s ago gets the TTL it would have had then, not a fresh one.
      await post({ id: newEventId(), observed_at: now - 30_000, ops: [acquire('late')] });
      const late = (await leases()).find((lease) => lease.job_ref === 'late')!;
      assert.ok(late.remaining_ms <= 90_000 && late.remaining_ms > 80_000, String(late.remaining_ms));
      // One observed longer ago than its whole TTL grants nothing.
      const expired = await post({ id: newEventId(), observed_at: now - 130_000, ops: [acquire('ancient')] });
      assert.equal(expired.results[0]!.detail?.expired_before_replay, true);
      assert.equal((await leases()).some((lease) => lease.job_ref === 'ancient'), false);
      // The same listing observed just now renews.
      await post({ id: newEventId(), observed_at: now, ops: [listing] });
      assert.equal((await leases()).find((lease) => lease.job_ref === 'fresh')!.renew_count, 1);
    });
  });
}
