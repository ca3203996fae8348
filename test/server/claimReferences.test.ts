// Every claim event names a todo and an endpoint that exist, and every held todo's holder
// exists, after every kind of transition (claim by id and next, alone and coalesced; heartbeat;
// release; complete; reap; requeue; revoke). On PostgreSQL no foreign key enforces this since
// migration 12 (its KEY SHARE lock on the parent row was a write per transition): the
// statements do, by taking each reference from the row they check in the same statement. If
// one ever wrote a reference it had not checked, this fails. SQLite keeps its foreign keys;
// the same check runs there.
import assert from 'node:assert/strict';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import { storageTargets } from '../support/storage.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

for (const target of storageTargets) {
  describe(`claim references on ${target.name}`, () => {
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer(target);
      await t.server.reaper.stop();
    });
    afterEach(async () => t.stop());

    const endpoint = async (slug: string): Promise<EndpointRecord> => {
      const vended = await t.server.claims.vendEndpoint(t.server.human, { slug });
      return (await t.server.claimStore.getEndpoint(vended.endpoint.id))!;
    };

    it('no event or holder points at a missing todo or endpoint after every kind of transition', async () => {
      const { claims, human, claimStore } = t.server;
      const workers = await Promise.all(['a', 'b', 'c', 'd'].map(endpoint));
      const todos = [];
      for (let index = 0; index < 12; index++) todos.push(await claims.createTodo(human, { queue: 'q', title: `t${index}` }));
      // Coalesced claim_next (PostgreSQL batches these), then one claim by id.
      const claimed = await Promise.all(workers.map((worker) => claims.claimNext(worker, 'q', 60)));
      const byId = await claims.claim(workers[0]!, todos[10]!.id, 30);
      await claims.heartbeat(workers[1]!, claimed[1]!.todo_id, claimed[1]!.claim_epoch, 120);
      await Promise.all([
        claims.complete(workers[0]!, claimed[0]!.todo_id, claimed[0]!.claim_epoch),
        claims.release(workers[1]!, claimed[1]!.todo_id, claimed[1]!.claim_epoch),
      ]);
      await claims.requeueTodo(human, claimed[2]!.todo_id);
      await claims.revokeEndpoint(human, workers[3]!.id);
      // The claim by id lapses and is reaped.
      t.clock.advance(31_000);
      assert.ok((await t.server.reaper.runOnce()) >= 1, 'the lapsed claim was reaped');
      const events = await claimStore.db.all<{ kinds: string }>(
        `SELECT kind AS kinds FROM claim_events GROUP BY kind ORDER BY kind`,
      );
      assert.deepEqual(events.map((row) => row.kinds), ['claimed', 'completed', 'heartbeat', 'reaped', 'released', 'requeued', 'revoked']);
      assert.equal(byId.todo_id, todos[10]!.id);

      const orphans = await claimStore.db.all<{ what: string; n: number }>(
        `SELECT 'event without its todo' AS what, COUNT(*) AS n FROM claim_events e WHERE NOT EXISTS (SELECT 1 FROM todos t WHERE t.id = e.todo_id)
         UNION ALL SELECT 'event without its endpoint', COUNT(*) FROM claim_events e WHERE e.endpoint_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM endpoints p WHERE p.id = e.endpoint_id)
         UNION ALL SELECT 'holder without its endpoint', COUNT(*) FROM todos t WHERE t.holder_endpoint_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM endpoints p WHERE p.id = t.holder_endpoint_id)`,
      );
      for (const row of orphans) assert.equal(Number(row.n), 0, row.what);
      const referenced = await claimStore.db.all<{ n: number }>(`SELECT COUNT(*) AS n FROM claim_events WHERE endpoint_id IS NOT NULL`);
      assert.ok(Number(referenced[0]!.n) >= 8, 'the events name their endpoints');
    });
  });
}
