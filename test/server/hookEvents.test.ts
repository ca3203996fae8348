// POST /api/v1/hook-events on real storage: validation, idempotency by id, per-op results.
import assert from 'node:assert/strict';
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
  });
}
