// What a todo list shows once there are more todos than it returns (500 by default): held todos
// first, then queued ones, then the most recent done ones. Read oldest first, a list past 500
// todos showed none added since, so the Todos view and `leasehold todo list` hid a live claim.
import assert from 'node:assert/strict';
import { storageTargets } from '../support/storage.ts';
import { startTestServer, vendWorker, type TestServer } from '../support/server.ts';

for (const target of storageTargets) {
  describe(`todo lists on ${target.name}`, () => {
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer(target);
    });
    afterEach(async () => t.stop());

    /** `count` done todos in `queue`, added straight to the table (setup, not under test). */
    async function doneTodos(queue: string, count: number): Promise<void> {
      const sqlite = t.server.db.dialect === 'sqlite';
      for (let index = 0; index < count; index++) {
        await t.server.db.run(
          `INSERT INTO todos (id, queue, title, payload, state, created_by, created_at, updated_at, completed_at${sqlite ? ', seq' : ''})
           VALUES (?, ?, ?, 'null', 'done', ?, 0, 0, 0${sqlite ? ', (SELECT COALESCE(MAX(seq), 0) + 1 FROM todos)' : ''})`,
          [`td_old_${String(index).padStart(4, '0')}`, queue, `old ${index}`, t.server.human.id],
        );
      }
    }

    it('past 500 todos, a live claim and a new queued todo are still listed, before the done ones', async () => {
      await doneTodos('reviews', 501);
      const endpoint = await vendWorker(t.server, { slug: 'worker' });
      const held = await t.client.createTodo({ queue: 'reviews', title: 'held now' });
      const waiting = await t.client.createTodo({ queue: 'reviews', title: 'waiting' });
      const claim = await t.server.claims.claimNext(endpoint, 'reviews');
      assert.equal(claim?.todo_id, held.id);

      const listed = await t.client.listTodos();
      assert.equal(listed.length, 500);
      assert.deepEqual(
        listed.slice(0, 2).map((todo) => [todo.title, todo.state]),
        [['held now', 'claimed'], ['waiting', 'queued']],
      );
      assert.equal(listed[1]!.id, waiting.id);
      // Then the done ones, newest first: the oldest done todos are the ones left out.
      assert.deepEqual(listed.slice(2, 4).map((todo) => todo.title), ['old 500', 'old 499']);
      assert.ok(!listed.some((todo) => todo.title === 'old 0' || todo.title === 'old 1'));
      assert.deepEqual((await t.client.listTodos({ state: 'done' })).slice(0, 1).map((todo) => todo.title), ['old 500']);
      assert.deepEqual((await t.client.listTodos({ queue: 'reviews', state: 'claimed' })).map((todo) => todo.title), ['held now']);
    });

    it('lists each state in its order within the limit: held and queued oldest first, done newest first', async () => {
      const endpoint = await vendWorker(t.server, { slug: 'worker' });
      for (const title of ['a', 'b', 'c', 'd', 'e', 'f']) await t.client.createTodo({ queue: 'q', title });
      await t.client.createTodo({ queue: 'other', title: 'elsewhere' });
      for (let index = 0; index < 4; index++) {
        const claim = (await t.server.claims.claimNext(endpoint, 'q'))!;
        if (index < 2) await t.server.claims.complete(endpoint, claim.todo_id, claim.claim_epoch);
      }
      // a, b done; c, d held; e, f queued.
      const titles = async (filter: Parameters<typeof t.server.claimStore.listTodos>[0]) => (await t.server.claimStore.listTodos(filter)).map((todo) => todo.title);
      assert.deepEqual(await titles({ queue: 'q' }), ['c', 'd', 'e', 'f', 'b', 'a']);
      assert.deepEqual(await titles({ queue: 'q', limit: 3 }), ['c', 'd', 'e']);
      assert.deepEqual(await titles({ limit: 5 }), ['c', 'd', 'e', 'f', 'elsewhere']);
      assert.deepEqual(await titles({ state: 'done' }), ['b', 'a']);
      assert.deepEqual(await titles({ holderIds: [endpoint.id] }), ['c', 'd', 'b', 'a']);
      assert.deepEqual(await titles({ holderIds: [] }), []);
    });
  });
}
