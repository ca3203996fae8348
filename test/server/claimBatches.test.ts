// Transitions asked for at once are coalesced (PostgreSQL: one statement per batch of
// claim_next, release or complete; SQLite: one group commit), and each caller is still served
// as if alone: its own endpoint row and lease precedence, its own fencing epoch, its own
// refusal, FIFO per queue, no todo handed out twice.
import assert from 'node:assert/strict';
import { LeaseholdError } from '../../src/core/errors.ts';
import { ClaimStore } from '../../src/server/claims/claimStore.ts';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import type { Db } from '../../src/server/db/sql.ts';
import { storageTargets } from '../support/storage.ts';
import { startTestServer, vendWorker, type TestServer } from '../support/server.ts';

for (const target of storageTargets) {
  describe(`coalesced claim transitions on ${target.name}`, () => {
    let t: TestServer;
    let workers: EndpointRecord[];

    beforeEach(async () => {
      t = await startTestServer(target);
      await t.server.reaper.stop();
      workers = [];
      for (let index = 0; index < 8; index++) {
        // Three kinds of default: the server's (300), an endpoint's own, another endpoint's own.
        const defaultTtl = index % 3 === 0 ? undefined : index % 3 === 1 ? 3600 : 900;
        workers.push(await vendWorker(t.server, { slug: `w${index}`, default_lease_ttl_seconds: defaultTtl }));
      }
    });
    afterEach(async () => t.stop());

    const addTodos = async (queue: string, count: number) => {
      const ids: string[] = [];
      for (let index = 0; index < count; index++) ids.push((await t.server.claims.createTodo(t.server.human, { queue, title: `${queue}-${index}` })).id);
      return ids;
    };
    /** On PostgreSQL, the calls since `before` went in fewer statements than calls. */
    const assertCoalesced = (kind: 'claim_next' | 'completed' | 'released', before: ReturnType<TestServer['server']['claimStore']['batchStats']>, calls: number) => {
      if (target.name !== 'postgres') return;
      const after = t.server.claimStore.batchStats()[kind];
      assert.equal(after.requests - before[kind].requests, calls, 'every call went through the batcher');
      assert.ok(after.batches - before[kind].batches < calls, `${calls} calls in ${after.batches - before[kind].batches} statements`);
    };

    it('claim_next at once: distinct todos, oldest first, each with its own lease and source; the rest of the callers get none', async () => {
      const ids = await addTodos('reviews', 5);
      const before = t.server.claimStore.batchStats();
      const claims = await Promise.all(workers.map((worker, index) => t.server.claims.claimNext(worker, 'reviews', index === 7 ? 120 : undefined)));
      assertCoalesced('claim_next', before, 8);
      const granted = claims.filter((claim) => claim !== null);
      assert.equal(granted.length, 5);
      assert.deepEqual(new Set(granted.map((claim) => claim.todo_id)), new Set(ids), 'each todo handed out once');
      // FIFO: the earlier caller gets the older todo.
      assert.deepEqual(claims.slice(0, 5).map((claim) => claim?.todo_id), ids);
      assert.deepEqual(claims.slice(5), [null, null, null]);
      claims.slice(0, 5).forEach((claim, index) => {
        const expected = index % 3 === 0 ? [300, 'server'] : index % 3 === 1 ? [3600, 'endpoint'] : [900, 'endpoint'];
        assert.deepEqual([claim!.lease_ttl_seconds, claim!.lease_source], expected, `worker ${index}`);
        assert.equal(claim!.lease_expires_at, t.clock.nowMs() + claim!.lease_ttl_seconds * 1000);
        assert.equal(claim!.claim_epoch, 1);
      });
      for (const [index, claim] of claims.slice(0, 5).entries()) {
        const events = await t.server.claimStore.listClaimEvents(claim!.todo_id);
        assert.deepEqual(
          events.map((event) => [event.kind, event.endpoint_id, event.lease_ttl_seconds, event.lease_source]),
          [['claimed', workers[index]!.id, claim!.lease_ttl_seconds, claim!.lease_source]],
        );
      }
      const perCall = await addTodos('reviews', 1);
      const [again] = await Promise.all([t.server.claims.claimNext(workers[7]!, 'reviews', 120)]);
      assert.deepEqual([again?.todo_id, again?.lease_ttl_seconds, again?.lease_source], [perCall[0], 120, 'per_call']);
    });

    it('claim_next at once on several queues: each caller from its own queue', async () => {
      const a = await addTodos('a', 2);
      const b = await addTodos('b', 3);
      const queues = ['a', 'b', 'a', 'b', 'b', 'a', 'c', 'b'];
      const claims = await Promise.all(workers.map((worker, index) => t.server.claims.claimNext(worker, queues[index]!)));
      assert.deepEqual(
        claims.map((claim) => claim?.todo_id ?? null),
        [a[0], b[0], a[1], b[1], b[2], null, null, null],
      );
      claims.forEach((claim, index) => {
        if (claim) assert.equal(claim.queue, queues[index]);
      });
    });

    it('a stale endpoint copy in a batch is re-resolved from its row, a revoked one refused, the others unaffected', async () => {
      await addTodos('reviews', 8);
      await t.server.claims.setDefaultLease(workers[0]!, 1800); // workers[0] is now a stale copy (default was the server's)
      await t.server.claims.revokeEndpoint(t.server.human, workers[1]!.slug); // and workers[1] a revoked one
      const outcomes = await Promise.allSettled(workers.map((worker) => t.server.claims.claimNext(worker, 'reviews')));
      const stale = outcomes[0]!;
      assert.equal(stale.status, 'fulfilled');
      assert.deepEqual([stale.value?.lease_ttl_seconds, stale.value?.lease_source], [1800, 'endpoint'], 'the edit applies to this very call');
      const revoked = outcomes[1]!;
      assert.equal(revoked.status, 'rejected');
      assert.equal((revoked.reason as { code: string }).code, 'conflict');
      for (const outcome of outcomes.slice(2)) assert.equal(outcome.status, 'fulfilled');
      const handedOut = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' && outcome.value ? [outcome.value.todo_id] : []));
      assert.equal(new Set(handedOut).size, 7, 'seven distinct todos');
    });

    it('a call whose endpoint row changed gets that row back as stored, field for field, alone and in a batch', async () => {
      await addTodos('reviews', 8);
      const { claimStore, claims } = t.server;
      await claims.setDefaultLease(workers[0]!, 1800);
      const stored = (await claimStore.getEndpoint(workers[0]!.id))!;
      const grant = { leaseMs: 300_000, leaseSeconds: 300, source: 'server' as const };
      const alone = await claimStore.claimNext('reviews', workers[0]!, grant, Date.now());
      assert.deepEqual([alone.applied, alone.todo, alone.endpoint], [false, undefined, stored], 'nothing written; the row as getEndpoint reads it (no other column)');
      const batch = await Promise.all(workers.map((worker) => claimStore.claimNext('reviews', worker, grant, Date.now())));
      assert.deepEqual([batch[0]!.applied, batch[0]!.todo, batch[0]!.endpoint], [false, undefined, stored]);
      for (const [index, result] of batch.entries()) {
        if (index === 0) continue;
        assert.equal(result.applied, true);
        assert.deepEqual(result.endpoint, await claimStore.getEndpoint(workers[index]!.id));
      }
    });

    it('complete and release at once: each checked against its own epoch; a wrong epoch and a second complete are refused with what happened', async () => {
      await addTodos('reviews', 6);
      const held = (await Promise.all(workers.slice(0, 6).map((worker) => t.server.claims.claimNext(worker, 'reviews')))).map((claim) => claim!);
      const before = t.server.claimStore.batchStats();
      const outcomes = await Promise.allSettled([
        t.server.claims.complete(workers[0]!, held[0]!.todo_id, held[0]!.claim_epoch),
        t.server.claims.complete(workers[0]!, held[0]!.todo_id, held[0]!.claim_epoch), // the same complete twice
        t.server.claims.complete(workers[1]!, held[1]!.todo_id, held[1]!.claim_epoch + 1), // a wrong epoch
        t.server.claims.complete(workers[3]!, held[2]!.todo_id, held[2]!.claim_epoch), // another worker's todo
        t.server.claims.complete(workers[4]!, held[4]!.todo_id, held[4]!.claim_epoch),
        t.server.claims.complete(workers[5]!, held[5]!.todo_id, held[5]!.claim_epoch),
      ]);
      assertCoalesced('completed', before, 6);
      const [first, second, wrongEpoch, notHolder, fifth, sixth] = outcomes;
      const fulfilled = [first, second].filter((outcome) => outcome!.status === 'fulfilled');
      assert.equal(fulfilled.length, 1, 'a todo is completed once');
      const refusedTwice = [first, second].find((outcome) => outcome!.status === 'rejected') as PromiseRejectedResult;
      assert.deepEqual([refusedTwice.reason.code, refusedTwice.reason.details.ended_by], ['claim_ended', 'completed']);
      assert.equal(wrongEpoch!.status, 'rejected');
      assert.equal((wrongEpoch as PromiseRejectedResult).reason.code, 'wrong_claim_epoch');
      assert.equal(notHolder!.status, 'rejected');
      assert.equal((notHolder as PromiseRejectedResult).reason.code, 'held_by_other');
      assert.equal(fifth!.status, 'fulfilled');
      assert.equal(sixth!.status, 'fulfilled');
      const states = await Promise.all(held.map(async (claim) => (await t.server.claimStore.getTodo(claim.todo_id))!.state));
      assert.deepEqual(states, ['done', 'claimed', 'claimed', 'claimed', 'done', 'done'], 'refused calls changed nothing');

      const releasedBefore = t.server.claimStore.batchStats();
      const released = await Promise.all([
        t.server.claims.release(workers[1]!, held[1]!.todo_id, held[1]!.claim_epoch),
        t.server.claims.release(workers[2]!, held[2]!.todo_id, held[2]!.claim_epoch),
        t.server.claims.release(workers[3]!, held[3]!.todo_id, held[3]!.claim_epoch),
      ]);
      assertCoalesced('released', releasedBefore, 3);
      assert.deepEqual(released.map((todo) => todo.state), ['queued', 'queued', 'queued']);
      for (const [index, claim] of held.slice(1, 4).entries()) {
        const events = await t.server.claimStore.listClaimEvents(claim.todo_id);
        assert.deepEqual(events.map((event) => [event.kind, event.endpoint_id]).at(-1), ['released', workers[index + 1]!.id]);
      }
    });

    it('a call whose statement fails fails alone; the others of its batch are served', async () => {
      await addTodos('reviews', 3);
      // A queue name PostgreSQL cannot store (NUL) fails in SQL; SQLite finds no such queue.
      const before = t.server.claimStore.batchStats();
      const outcomes = await Promise.allSettled([
        t.server.claims.claimNext(workers[0]!, 'reviews'),
        t.server.claims.claimNext(workers[1]!, 'bad\u0000queue'),
        t.server.claims.claimNext(workers[2]!, 'reviews'),
      ]);
      assertCoalesced('claim_next', before, 3);
      assert.equal(outcomes[0]!.status, 'fulfilled');
      assert.equal(outcomes[2]!.status, 'fulfilled');
      assert.notEqual((outcomes[0] as PromiseFulfilledResult<{ todo_id: string }>).value.todo_id, (outcomes[2] as PromiseFulfilledResult<{ todo_id: string }>).value.todo_id);
      if (target.name === 'postgres') assert.equal(outcomes[1]!.status, 'rejected');
      else assert.deepEqual(outcomes[1], { status: 'fulfilled', value: null });
      const queued = await t.server.claimStore.listTodos({ queue: 'reviews', state: 'queued' });
      assert.equal(queued.length, 1, 'two claimed, one left: nothing claimed twice or lost');
    });
  });
}

describe('coalesced claim transitions when the database is gone', () => {
  // A stand-in for a PostgreSQL server that cannot be reached (the fault suite restarts a real
  // one under load: test/fault/postgresRestart.fault.test.ts); it counts the statements tried.
  const unreachable = () => {
    const tried: string[] = [];
    const fail = async (sql: string): Promise<never> => {
      tried.push(sql);
      throw new LeaseholdError('unavailable', 'storage error in PostgreSQL test: the database server is unreachable (ECONNREFUSED)');
    };
    const db = { dialect: 'postgres' as const, all: fail, run: fail, transaction: fail, execScript: fail, close: async () => undefined };
    return { db: db as unknown as Db, tried };
  };
  const endpoint: EndpointRecord = { id: 'ep_1', human_id: 'hu_1', slug: 'w', name: 'w', scope: [], friend: false, state: 'active', default_lease_ttl_seconds: null, created_at: 0, revoked_at: null };
  const lease = { leaseMs: 300_000, leaseSeconds: 300, source: 'server' as const };

  it('fails every call of the batch with the coded 503 at once, without trying each call again', async () => {
    const { db, tried } = unreachable();
    const store = new ClaimStore(db);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => store.claimNext('reviews', endpoint, lease, 1000)));
    assert.deepEqual(outcomes.map((outcome) => outcome.status === 'rejected' && (outcome.reason as LeaseholdError).code), Array(5).fill('unavailable'));
    assert.equal(tried.length, 1, 'one batch statement, no call-by-call retry');
  });
});
