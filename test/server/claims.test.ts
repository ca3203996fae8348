// ADR-0043 on real storage: lease precedence on claim, claim_next and heartbeat; edits apply
// to the next call and leave granted leases alone; fencing after reap and re-claim; reaper.
import assert from 'node:assert/strict';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import { storageTargets } from '../support/storage.ts';
import { rejection, startTestServer, vendWorker, type TestServer } from '../support/server.ts';

for (const target of storageTargets) {
  describe(`claim leases on ${target.name}`, () => {
    let t: TestServer;
    let reviewer: EndpointRecord;
    let plain: EndpointRecord;

    beforeEach(async () => {
      t = await startTestServer(target);
      await t.server.reaper.stop(); // tests drive the reaper with runOnce
      reviewer = await vendWorker(t.server, { slug: 'reviewer', default_lease_ttl_seconds: 3600 });
      plain = await vendWorker(t.server, { slug: 'plain' });
    });
    afterEach(async () => t.stop());

    const addTodo = (title = 'review PR', queue = 'reviews') => t.server.claims.createTodo(t.server.human, { queue, title });

    describe('precedence: per-call > endpoint default > server default, capped at 86400', () => {
      it('claim', async () => {
        const a = await addTodo();
        const b = await addTodo();
        const c = await addTodo();
        const d = await addTodo();
        const perCall = await t.server.claims.claim(reviewer, a.id, 120);
        assert.deepEqual([perCall.lease_ttl_seconds, perCall.lease_source], [120, 'per_call']);
        const endpointDefault = await t.server.claims.claim(reviewer, b.id);
        assert.deepEqual([endpointDefault.lease_ttl_seconds, endpointDefault.lease_source], [3600, 'endpoint']);
        const serverDefault = await t.server.claims.claim(plain, c.id);
        assert.deepEqual([serverDefault.lease_ttl_seconds, serverDefault.lease_source], [300, 'server']);
        const capped = await t.server.claims.claim(plain, d.id, 100_000);
        assert.deepEqual([capped.lease_ttl_seconds, capped.lease_source], [86_400, 'per_call']);
        assert.equal(capped.lease_expires_at, t.clock.nowMs() + 86_400_000);
      });

      it('a per-call lease may be shorter than the 60-second floor of the default', async () => {
        const todo = await addTodo();
        const claim = await t.server.claims.claim(reviewer, todo.id, 10);
        assert.equal(claim.lease_ttl_seconds, 10);
      });

      it('claim_next', async () => {
        await addTodo('one');
        await addTodo('two');
        await addTodo('three');
        const perCall = await t.server.claims.claimNext(reviewer, 'reviews', 90);
        assert.equal(perCall?.title, 'one', 'oldest first');
        assert.deepEqual([perCall?.lease_ttl_seconds, perCall?.lease_source], [90, 'per_call']);
        const endpointDefault = await t.server.claims.claimNext(reviewer, 'reviews');
        assert.deepEqual([endpointDefault?.lease_ttl_seconds, endpointDefault?.lease_source], [3600, 'endpoint']);
        const serverDefault = await t.server.claims.claimNext(plain, 'reviews');
        assert.deepEqual([serverDefault?.lease_ttl_seconds, serverDefault?.lease_source], [300, 'server']);
        assert.equal(await t.server.claims.claimNext(plain, 'reviews'), null, 'empty queue');
      });

      it('heartbeat: a bare heartbeat extends by the endpoint default, not 300', async () => {
        const todo = await addTodo();
        const claim = await t.server.claims.claim(reviewer, todo.id);
        t.clock.advance(1000 * 1000);
        const bare = await t.server.claims.heartbeat(reviewer, todo.id, claim.claim_epoch);
        assert.deepEqual([bare.lease_ttl_seconds, bare.lease_source], [3600, 'endpoint']);
        assert.equal(bare.lease_expires_at, t.clock.nowMs() + 3_600_000, 'a long lease is not cut short');
        const explicit = await t.server.claims.heartbeat(reviewer, todo.id, claim.claim_epoch, 200_000);
        assert.deepEqual([explicit.lease_ttl_seconds, explicit.lease_source], [86_400, 'per_call']);
        const other = await addTodo();
        const plainClaim = await t.server.claims.claim(plain, other.id);
        const plainBeat = await t.server.claims.heartbeat(plain, other.id, plainClaim.claim_epoch);
        assert.deepEqual([plainBeat.lease_ttl_seconds, plainBeat.lease_source], [300, 'server']);
      });
    });

    it('an edit applies to the next call and leaves granted leases alone', async () => {
      const first = await addTodo();
      const second = await addTodo();
      const granted = await t.server.claims.claim(plain, first.id);
      assert.equal(granted.lease_ttl_seconds, 300);
      await t.server.claims.editEndpoint(t.server.human, 'plain', { default_lease_ttl_seconds: 900 });
      const stored = await t.server.claimStore.getTodo(first.id);
      assert.equal(stored?.lease_expires_at, granted.lease_expires_at, 'granted lease keeps its expiry');
      // The same stale EndpointRecord object is passed: the default is re-read per call.
      const next = await t.server.claims.claim(plain, second.id);
      assert.deepEqual([next.lease_ttl_seconds, next.lease_source], [900, 'endpoint']);
      await t.server.claims.editEndpoint(t.server.human, 'plain', { default_lease_ttl_seconds: null });
      const beat = await t.server.claims.heartbeat(plain, second.id, next.claim_epoch);
      assert.deepEqual([beat.lease_ttl_seconds, beat.lease_source], [300, 'server'], 'null resets to the server default');
    });

    it('claim_next and complete read the endpoint row in their own statement: a stale copy is re-resolved, a revoked row refused', async () => {
      await addTodo('one', 'stale');
      await addTodo('two', 'stale');
      await t.server.claims.editEndpoint(t.server.human, 'plain', { default_lease_ttl_seconds: 1200 });
      // `plain` still says null (server default): the stored 1200 applies, nothing is claimed twice.
      const claimed = (await t.server.claims.claimNext(plain, 'stale'))!;
      assert.deepEqual([claimed.lease_ttl_seconds, claimed.lease_source], [1200, 'endpoint']);
      const events = await t.server.claimStore.listClaimEvents(claimed.todo_id);
      assert.deepEqual(
        events.map((event) => [event.kind, event.lease_ttl_seconds]),
        [['claimed', 1200]],
      );
      const done = await t.server.claims.complete(plain, claimed.todo_id, claimed.claim_epoch);
      assert.equal(done.state, 'done');
      const second = (await t.server.claims.claimNext(plain, 'stale'))!;
      await t.server.claims.revokeEndpoint(t.server.human, 'plain');
      const refused = await rejection(t.server.claims.claimNext(plain, 'stale'));
      assert.equal(refused.code, 'conflict');
      assert.equal((await t.server.claimStore.getTodo(second.todo_id))?.state, 'queued', 'revoking requeued it; the stale copy claimed nothing');
    });

    it('a bare heartbeat through a stale endpoint copy gets the stored default and says which expiry it replaced; through a revoked one it is refused', async () => {
      const todo = await addTodo('beat', 'beats');
      const claim = await t.server.claims.claim(plain, todo.id, 7200);
      await t.server.claims.editEndpoint(t.server.human, 'plain', { default_lease_ttl_seconds: 900 });
      t.clock.advance(60_000);
      // `plain` still says null (server default, 300): the stored 900 applies to this bare heartbeat.
      const beat = await t.server.claims.heartbeat(plain, todo.id, claim.claim_epoch);
      assert.deepEqual([beat.lease_ttl_seconds, beat.lease_source], [900, 'endpoint']);
      assert.equal(beat.lease_expires_at, t.clock.nowMs() + 900_000);
      assert.equal(beat.previous_lease_expires_at, claim.lease_expires_at, 'the 2-hour expiry it shortened');
      const events = await t.server.claimStore.listClaimEvents(todo.id);
      assert.deepEqual(events.map((event) => [event.kind, event.lease_ttl_seconds, event.lease_source]), [['claimed', 7200, 'per_call'], ['heartbeat', 900, 'endpoint']]);
      const explicit = await t.server.claims.heartbeat(plain, todo.id, claim.claim_epoch, 600);
      assert.equal(explicit.previous_lease_expires_at, undefined, 'a per-call heartbeat is the agent asking: no previous expiry');
      await t.server.claims.revokeEndpoint(t.server.human, 'plain');
      const refused = await rejection(t.server.claims.heartbeat(plain, todo.id, claim.claim_epoch));
      assert.equal(refused.code, 'conflict');
    });

    it('a failure to read the endpoint row refuses the claim rather than guessing', async () => {
      const todo = await addTodo();
      const store = t.server.claimStore as unknown as { getEndpoint: (id: string) => Promise<unknown> };
      const original = store.getEndpoint;
      store.getEndpoint = async () => {
        throw new Error('disk I/O error');
      };
      try {
        const error = await rejection(t.server.claims.claim(plain, todo.id));
        assert.equal(error.code, 'unavailable');
      } finally {
        store.getEndpoint = original;
      }
      assert.equal((await t.server.claimStore.getTodo(todo.id))?.state, 'queued', 'nothing was claimed');
    });

    describe('fencing', () => {
      it('after a reap, the old epoch cannot heartbeat, release or complete', async () => {
        const todo = await addTodo();
        const claim = await t.server.claims.claim(plain, todo.id, 60);
        t.clock.advance(60_000);
        assert.equal(await t.server.reaper.runOnce(), 1);
        assert.equal((await t.server.claimStore.getTodo(todo.id))?.state, 'queued');
        for (const attempt of [
          () => t.server.claims.heartbeat(plain, todo.id, claim.claim_epoch),
          () => t.server.claims.release(plain, todo.id, claim.claim_epoch),
          () => t.server.claims.complete(plain, todo.id, claim.claim_epoch),
        ]) {
          const error = await rejection(attempt());
          assert.equal(error.code, 'lease_lapsed');
          assert.match(error.message, /lapsed and the reaper requeued the todo; nobody holds it now/);
          assert.match(error.message, /no longer hold/);
        }
      });

      it('after a re-claim by another worker, the reaped worker can never complete', async () => {
        const todo = await addTodo();
        const stale = await t.server.claims.claim(plain, todo.id, 30);
        t.clock.advance(31_000);
        await t.server.reaper.runOnce();
        const fresh = await t.server.claims.claim(reviewer, todo.id);
        assert.equal(fresh.claim_epoch, stale.claim_epoch + 1);
        const error = await rejection(t.server.claims.complete(plain, todo.id, stale.claim_epoch));
        assert.equal(error.code, 'held_by_other');
        assert.match(error.message, /claimed again by another holder/);
        const done = await t.server.claims.complete(reviewer, todo.id, fresh.claim_epoch);
        assert.equal(done.state, 'done');
      });

      it('each refusal says what happened: reaped, wrong epoch while still held, released, completed', async () => {
        const todo = await addTodo();
        const claim = await t.server.claims.claim(plain, todo.id, 600);
        // The case: complete with epoch 8 while epoch 1 is held is a wrong number, not a loss.
        const wrong = await rejection(t.server.claims.complete(plain, todo.id, claim.claim_epoch + 7));
        assert.equal(wrong.code, 'wrong_claim_epoch');
        assert.match(wrong.message, new RegExp(`still holds it under claim_epoch ${claim.claim_epoch}`));
        assert.deepEqual([(wrong.details as any).holds_todo, (wrong.details as any).current_claim_epoch], [true, claim.claim_epoch]);
        assert.equal((await t.server.claimStore.getTodo(todo.id))?.state, 'claimed', 'the refusal changed nothing');
        await t.server.claims.release(plain, todo.id, claim.claim_epoch);
        const released = await rejection(t.server.claims.heartbeat(plain, todo.id, claim.claim_epoch));
        assert.equal(released.code, 'claim_ended');
        assert.match(released.message, /you released it/);

        const again = await t.server.claims.claim(plain, todo.id, 600);
        await t.server.claims.complete(plain, todo.id, again.claim_epoch);
        const completed = await rejection(t.server.claims.complete(plain, todo.id, again.claim_epoch));
        assert.equal(completed.code, 'claim_ended');
        assert.match(completed.message, /you already completed it/);

        const other = await addTodo();
        const held = await t.server.claims.claim(reviewer, other.id, 600);
        const notMine = await rejection(t.server.claims.heartbeat(plain, other.id, held.claim_epoch));
        assert.equal(notMine.code, 'held_by_other');
        assert.doesNotMatch(JSON.stringify(notMine.details), /reviewer|ep_/, "the other holder's identity is not told");
      });

      it('a lapsed but not yet reaped lease is refused too', async () => {
        const todo = await addTodo();
        const claim = await t.server.claims.claim(plain, todo.id, 5);
        t.clock.advance(5000);
        assert.equal((await rejection(t.server.claims.heartbeat(plain, todo.id, claim.claim_epoch))).code, 'lease_lapsed');
      });

      it('a claimed todo is invisible to other workers until it is released', async () => {
        const todo = await addTodo();
        const claim = await t.server.claims.claimNext(plain, 'reviews');
        assert.equal(await t.server.claims.claimNext(reviewer, 'reviews'), null);
        assert.equal((await rejection(t.server.claims.claim(reviewer, todo.id))).code, 'conflict');
        await t.server.claims.release(plain, todo.id, claim!.claim_epoch);
        assert.equal((await t.server.claims.claimNext(reviewer, 'reviews'))?.todo_id, todo.id);
      });
    });

    it('records an event per transition with the lease applied and its source', async () => {
      const todo = await addTodo();
      const claim = await t.server.claims.claim(reviewer, todo.id, 120);
      await t.server.claims.heartbeat(reviewer, todo.id, claim.claim_epoch);
      await t.server.claims.release(reviewer, todo.id, claim.claim_epoch);
      const again = await t.server.claims.claim(plain, todo.id);
      t.clock.advance(300_000);
      await t.server.reaper.runOnce();
      const third = await t.server.claims.claim(plain, todo.id);
      await t.server.claims.complete(plain, todo.id, third.claim_epoch);
      const events = await t.server.claimStore.listClaimEvents(todo.id);
      assert.deepEqual(
        events.map((event) => [event.kind, event.claim_epoch, event.lease_ttl_seconds, event.lease_source]),
        [
          ['claimed', 1, 120, 'per_call'],
          ['heartbeat', 1, 3600, 'endpoint'],
          ['released', 1, null, null],
          ['claimed', 2, 300, 'server'],
          ['reaped', 2, null, null],
          ['claimed', 3, 300, 'server'],
          ['completed', 3, null, null],
        ],
      );
      assert.equal(again.claim_epoch, 2);
      assert.equal(events[4]?.endpoint_id, plain.id, 'the reaped event names the former holder');
      assert.equal((await t.server.claimStore.getTodo(todo.id))?.attempts, 3);
    });

    it('reaping twice (two servers sweeping at once) requeues each lapse once', async () => {
      const todos = await Promise.all([addTodo('a'), addTodo('b'), addTodo('c')]);
      for (const todo of todos) await t.server.claims.claim(plain, todo.id, 10);
      t.clock.advance(10_000);
      const counts = await Promise.all([t.server.reaper.runOnce(), t.server.reaper.runOnce()]);
      assert.equal(counts[0]! + counts[1]!, 3);
      for (const todo of todos) {
        const reaped = (await t.server.claimStore.listClaimEvents(todo.id)).filter((event) => event.kind === 'reaped');
        assert.equal(reaped.length, 1);
      }
    });

    it('a revoked endpoint can neither claim nor be edited (409 with its state)', async () => {
      await t.server.claims.revokeEndpoint(t.server.human, 'plain');
      const todo = await addTodo();
      const claimError = await rejection(t.server.claims.claim(plain, todo.id));
      assert.equal(claimError.code, 'conflict');
      const editError = await rejection(t.server.claims.editEndpoint(t.server.human, 'plain', { default_lease_ttl_seconds: 600 }));
      assert.equal(editError.code, 'conflict');
      assert.deepEqual((editError as unknown as { details: { state: string } }).details.state, 'revoked');
    });
  });
}
