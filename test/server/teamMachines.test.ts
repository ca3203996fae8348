// Team mode across machines (issue 9): two lease-server processes on one PostgreSQL database,
// each in its own pid namespace so they really see different processes, and with distinct
// boot ids. The boot ids are a TEST SEAM (LH_TEAM_BOOT_ID, see test/support/teamServerProcess.ts):
// both namespaces share this kernel's boot id, which two real machines never would.
// One human (identity "dev") on both machines: another human could not even see the lease.
// Only the owning machine judges what only it can see: a hold granted on A survives B's hold
// loop and clock judgements while its job runs, ends when its job ends (seen by A), and goes
// UNKNOWN when A is killed (B notices A's silent heartbeat).
import assert from 'node:assert/strict';
import { startTeamProcess, useTeamDatabase, waitFor, type TeamProcess } from '../support/teamProcesses.ts';
import { LeaseholdClient } from '../../src/client/client.ts';
import { connectMcp } from '../support/mcp.ts';

interface LeaseView {
  state: string;
  valid: boolean;
  state_reason: string | null;
  remaining_ms: number;
}

describe('team mode: machines own their wait-leases (separate processes, pid namespaces)', function () {
  this.timeout(60_000);
  const team = useTeamDatabase();

  const start = async (bootId: string, human: string) => {
    const machine = await startTeamProcess({ dbUrl: team.url, schema: team.schema, bootId, human });
    team.machines.push(machine);
    return machine;
  };
  const lease = async (machine: TeamProcess, id: string) => {
    const answer = await machine.api<{ lease: LeaseView }>('GET', `/api/v1/wait-leases/${id}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.lease;
  };
  const holdOn = async (machine: TeamProcess, jobRef: string, ttlMs: number) => {
    const { spawned } = (await machine.command('spawn')) as { spawned: number };
    const held = await machine.api<{ lease_id: string }>('POST', '/api/v1/wait-leases/hold', { pane: 'build', job_ref: jobRef, ttl_ms: ttlMs, target: { pid: spawned } });
    assert.equal(held.status, 201, JSON.stringify(held.body));
    return { pid: spawned, leaseId: held.body.lease_id };
  };

  it('a hold granted on A survives B, ends when its job ends (seen by A), and goes UNKNOWN when A is killed', async () => {
    const a = await start('test-boot-A', 'dev');
    const job = await holdOn(a, 'gen-1', 3_000);
    // B starts while A's hold runs: B's restart judgement, clock watcher, sweeper and hold loop
    // (every 200 ms) all run over a database that holds A's lease on a pid B cannot see.
    const b = await start('test-boot-B', 'dev');
    assert.notEqual(a.machine, b.machine);
    assert.equal(
      (await b.command(`kill ${job.pid}`)).killed,
      job.pid,
      'B has no such child (its namespace does not see it); the command is a no-op there',
    );

    // Longer than the TTL: only A's renewals keep it; B must neither release, degrade, expire nor make it UNKNOWN.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    for (const machine of [a, b]) {
      const view = await lease(machine, job.leaseId);
      assert.equal(view.state, 'active', `as read through ${machine === a ? 'A' : 'B'}: ${JSON.stringify(view)}`);
      assert.equal(view.valid, true);
    }

    // The job ends on A: A sees it and releases; B reads the end.
    await a.command(`kill ${job.pid}`);
    const ended = await waitFor(() => lease(b, job.leaseId), (view) => view.state === 'ended', 5_000);
    const ledger = await b.api<{ rows: Array<{ lease_id: string; end_reason: string; censoring: string }> }>('GET', '/api/v1/ledger');
    const row = ledger.body.rows.find((entry) => entry.lease_id === job.leaseId);
    assert.equal(row?.end_reason, 'released', JSON.stringify(ended.value));
    assert.equal(row?.censoring, 'exact');

    // A dies with a hold running (kill -9 of its namespace): B makes the lease UNKNOWN after
    // A's heartbeat has been silent for the bound (2 s here), not "waiting" on nobody's word.
    const second = await holdOn(a, 'gen-2', 60_000);
    assert.equal((await lease(b, second.leaseId)).state, 'active');
    await a.kill9();
    const unknown = await waitFor(() => lease(b, second.leaseId), (view) => view.state !== 'active', 8_000);
    assert.equal(unknown.value.state, 'unknown', JSON.stringify(unknown.value));
    assert.equal(unknown.value.valid, false);
    assert.match(unknown.value.state_reason ?? '', /stopped answering: no heartbeat/);
    assert.ok(unknown.afterMs >= 1_500, `not before the silence bound (${unknown.afterMs} ms)`);
    const verdict = await b.api<{ waiting: boolean; reading: string; reasons: Array<{ code: string; lease_id?: string }> }>('GET', '/api/v1/panes/build/verdict');
    assert.equal(verdict.status, 200);
    assert.equal(verdict.body.waiting, false, 'a dead machine\'s lease never says waiting');
    assert.equal(verdict.body.reading, 'UNKNOWN');
    assert.ok(verdict.body.reasons.some((reason) => reason.code === 'LEASE_STALE' && reason.lease_id === second.leaseId));
  });

  it('renewing through a server that is not the owner is refused and changes nothing', async () => {
    const a = await start('test-boot-A', 'dev');
    const b = await start('test-boot-B', 'dev');
    const acquired = await a.api<{ lease_id: string; token: string }>('POST', '/api/v1/wait-leases', { pane: 'docs', job_ref: 'build-docs', ttl_ms: 60_000 });
    assert.equal(acquired.status, 201);
    const before = await lease(a, acquired.body.lease_id);
    const renew = await b.api<{ error: { code: string; message: string; field: string } }>('POST', `/api/v1/wait-leases/${acquired.body.lease_id}/renew`, {
      token: acquired.body.token,
      ttl_ms: 60_000,
      evidence: { pid: 1 },
    });
    assert.equal(renew.status, 409, JSON.stringify(renew.body));
    assert.match(renew.body.error.message, /granted on machine .* not this one/);
    const after = await lease(a, acquired.body.lease_id);
    assert.equal(after.state, 'active');
    assert.ok(after.remaining_ms <= before.remaining_ms);
  });

  it('three machines, two humans: a PATCH through B reaches an MCP session on A, C\'s human hears and reaches nothing of theirs', async () => {
    const a = await start('test-boot-A', 'dev');
    const b = await start('test-boot-B', 'dev');
    const c = await start('test-boot-C', 'other');
    const vended = await a.api<{ token: string }>('POST', '/api/v1/endpoints', { slug: 'worker', default_lease_ttl_seconds: 600 });
    assert.equal(vended.status, 201);
    const session = await connectMcp(a.url, vended.body.token);
    const heardOnC: string[] = [];
    const stream = new LeaseholdClient({ baseUrl: c.url, token: c.token }).openEventStream({ onEvent: (event) => heardOnC.push(event.event), onEnd: () => undefined });
    try {
      for (let round = 1; round <= 3; round++) {
        const heard = session.listChangedCount();
        const patched = await b.api('PATCH', '/api/v1/endpoints/worker', { default_lease_ttl_seconds: round % 2 ? 3600 : 900 });
        assert.equal(patched.status, 200, JSON.stringify(patched.body));
        await session.waitForListChanged(heard + 1, 1_000);
      }
      const acquired = await a.api<{ lease_id: string }>('POST', '/api/v1/wait-leases', { pane: 'build', job_ref: 'gen-1', ttl_ms: 60_000 });
      assert.equal(acquired.status, 201);
      await waitFor(() => b.api('GET', `/api/v1/wait-leases/${acquired.body.lease_id}`), (answer) => answer.status === 200, 2_000);
      const todo = await a.api('POST', '/api/v1/todos', { queue: 'shared', title: 'seen by all' });
      assert.equal(todo.status, 201);
      await waitFor(async () => heardOnC, (events) => events.includes('todo.changed'), 2_000);
      // Another human on another machine: the lease is the same 404 as a missing one, and no event of it reached them.
      const foreign = await c.api<{ error: { code: string; field: string } }>('GET', `/api/v1/wait-leases/${acquired.body.lease_id}`);
      const missing = await c.api<{ error: { code: string; field: string } }>('GET', '/api/v1/wait-leases/wl_missing');
      assert.equal(foreign.status, 404);
      assert.deepEqual([foreign.body.error.code, foreign.body.error.field], [missing.body.error.code, missing.body.error.field]);
      assert.deepEqual(heardOnC.filter((event) => event !== 'todo.changed'), []);
    } finally {
      stream.close();
      await session.close();
    }
  });

  it('revoking an endpoint through B requeues at once what it holds through A, recorded as "revoked"', async () => {
    const a = await start('test-boot-A', 'dev');
    const b = await start('test-boot-B', 'dev');
    const vended = await a.api<{ token: string; endpoint: { id: string } }>('POST', '/api/v1/endpoints', { slug: 'worker' });
    const todo = await a.api<{ todo: { id: string } }>('POST', '/api/v1/todos', { queue: 'jobs', title: 'held' });
    const session = await connectMcp(a.url, vended.body.token);
    try {
      const claimed = await session.call('claim_next', { queue: 'jobs' });
      assert.equal(claimed.isError, false, JSON.stringify(claimed.value));
      const revoked = await b.api('POST', '/api/v1/endpoints/worker/revoke');
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      const seenOnA = await a.api<{ todos: Array<{ id: string; state: string }> }>('GET', '/api/v1/todos?queue=jobs');
      assert.deepEqual(seenOnA.body.todos.map((item) => [item.id, item.state]), [[todo.body.todo.id, 'queued']]);
      const events = await a.api<{ events: Array<{ kind: string }> }>('GET', `/api/v1/todos/${todo.body.todo.id}/events`);
      assert.deepEqual(events.body.events.map((event) => event.kind), ['claimed', 'revoked']);
      // The revoked credential can no longer act through A.
      await assert.rejects(session.call('complete', { todo_id: todo.body.todo.id, claim_epoch: 1 }), /endpoint \\?"worker\\?" is revoked/);
    } finally {
      await session.close().catch(() => undefined);
    }
  });
});
