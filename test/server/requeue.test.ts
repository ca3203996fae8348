// Revoke ends what the endpoint holds, and a human can hand one claimed todo back: both
// requeue at once on real storage, record their own claim event kind, and fence the old
// holder (its complete under the old epoch fails with claim_ended, naming the human's requeue).
import assert from 'node:assert/strict';
import { LeaseholdClient } from '../../src/client/client.ts';
import { hashToken } from '../../src/server/auth/tokens.ts';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import type { ChangeEvent } from '../../src/server/events.ts';
import { storageTargets } from '../support/storage.ts';
import { rejection, startTestServer, vendWorker, type TestServer } from '../support/server.ts';

for (const target of storageTargets) {
  describe(`requeue and revoke on ${target.name}`, () => {
    let t: TestServer;
    let worker: EndpointRecord;
    let other: EndpointRecord;
    const events: ChangeEvent[] = [];

    beforeEach(async () => {
      t = await startTestServer(target);
      await t.server.reaper.stop();
      worker = await vendWorker(t.server, { slug: 'worker' });
      other = await vendWorker(t.server, { slug: 'other' });
      events.length = 0;
      t.server.bus.subscribe((event) => events.push(event));
    });
    afterEach(async () => t.stop());

    const addTodo = (title: string) => t.server.claims.createTodo(t.server.human, { queue: 'jobs', title });

    it('revoking an endpoint requeues every todo it holds at once, with a "revoked" event, and leaves others alone', async () => {
      const [a, b, c] = [await addTodo('a'), await addTodo('b'), await addTodo('c')];
      const claimA = await t.server.claims.claim(worker, a.id, 3600);
      await t.server.claims.claim(worker, b.id, 3600);
      await t.server.claims.claim(other, c.id, 3600);
      await t.server.claims.revokeEndpoint(t.server.human, 'worker');
      for (const todo of [a, b]) {
        const stored = (await t.server.claimStore.getTodo(todo.id))!;
        assert.deepEqual([stored.state, stored.holder_endpoint_id, stored.lease_expires_at], ['queued', null, null]);
        const kinds = (await t.server.claimStore.listClaimEvents(todo.id)).map((event) => [event.kind, event.endpoint_id]);
        assert.deepEqual(kinds, [
          ['claimed', worker.id],
          ['revoked', worker.id],
        ]);
      }
      assert.equal((await t.server.claimStore.getTodo(c.id))?.state, 'claimed', "another endpoint's claim stays");
      assert.deepEqual(
        events.filter((event) => event.type === 'todo.changed' && event.change === 'revoked').map((event) => (event as { todo_id: string }).todo_id).sort(),
        [a.id, b.id].sort(),
      );
      // Nobody waits for a lease to lapse: another worker takes them now.
      assert.equal((await t.server.claims.claimNext(other, 'jobs'))?.todo_id, a.id);
      assert.equal((await t.server.claims.claimNext(other, 'jobs'))?.todo_id, b.id);
      // The revoked credential cannot act on its old claim either.
      assert.equal((await rejection(t.server.claims.complete(worker, a.id, claimA.claim_epoch))).code, 'conflict');
    });

    it('a human requeue hands the todo back now and fences the old holder', async () => {
      const todo = await addTodo('long job');
      const claim = await t.server.claims.claim(worker, todo.id, 3600);
      const requeued = await t.client.requeueTodo(todo.id);
      assert.deepEqual([requeued.state, requeued.holder, requeued.lease_expires_at], ['queued', null, null]);
      const lapsed = await rejection(t.server.claims.complete(worker, todo.id, claim.claim_epoch));
      assert.equal(lapsed.code, 'claim_ended');
      assert.match(lapsed.message, /a human handed the todo back to its queue/);
      assert.equal((await rejection(t.server.claims.heartbeat(worker, todo.id, claim.claim_epoch))).code, 'claim_ended');
      const again = await t.server.claims.claimNext(other, 'jobs');
      assert.equal(again?.todo_id, todo.id);
      assert.equal((await rejection(t.server.claims.complete(worker, todo.id, claim.claim_epoch))).code, 'held_by_other', 'still fenced after a re-claim');
      await t.server.claims.complete(other, todo.id, again!.claim_epoch);
      const kinds = (await t.server.claimStore.listClaimEvents(todo.id)).map((event) => [event.kind, event.claim_epoch, event.endpoint_id]);
      assert.deepEqual(kinds, [
        ['claimed', 1, worker.id],
        ['requeued', 1, worker.id],
        ['claimed', 2, other.id],
        ['completed', 2, other.id],
      ]);
      assert.ok(events.some((event) => event.type === 'todo.changed' && event.change === 'requeued' && event.endpoint_id === worker.id));
    });

    it('requeue refuses what is not claimed, unknown todos, and other humans\' claims; nothing changes', async () => {
      const queued = await addTodo('queued');
      const notClaimed = (await rejection(t.client.requeueTodo(queued.id)));
      assert.deepEqual([notClaimed.status, notClaimed.code, notClaimed.field], [409, 'conflict', 'todo_id']);
      assert.match(notClaimed.message, /only a claimed todo can be requeued/);
      const missing = (await rejection(t.client.requeueTodo('td_nope')));
      assert.deepEqual([missing.status, missing.code], [404, 'not_found']);

      // Another human, neither holder nor creator, may not yank this human's claim.
      await t.server.claimStore.insertHuman({ id: 'hu_other', name: 'other', created_at: 0, token_hash: hashToken('lhh_other-token') });
      const stranger = new LeaseholdClient({ baseUrl: t.server.url, token: 'lhh_other-token' });
      const held = await addTodo('held');
      const claim = await t.server.claims.claim(worker, held.id, 3600);
      const refused = (await rejection(stranger.requeueTodo(held.id)));
      assert.deepEqual([refused.status, refused.code], [403, 'forbidden']);
      const stored = (await t.server.claimStore.getTodo(held.id))!;
      assert.deepEqual([stored.state, stored.claim_epoch, stored.holder_endpoint_id], ['claimed', claim.claim_epoch, worker.id]);
      await t.server.claims.complete(worker, held.id, claim.claim_epoch);
    });
  });
}
