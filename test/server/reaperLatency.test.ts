// The reaper requeues a lapsed claim within about a second of its expiry, on real time: a
// timer armed at the next expiry, not a minutes-long sweep. (The one test here that waits on
// the wall clock: its subject is the wall-clock latency itself; the lease is 1 s.)
import assert from 'node:assert/strict';
import { storageTargets } from '../support/storage.ts';
import { startRealClockTestServer, vendWorker } from '../support/server.ts';

for (const target of storageTargets) {
  describe(`reaper latency on ${target.name}`, () => {
    it('requeues within a second of expiry, with the backstop sweep far away', async () => {
      const t = await startRealClockTestServer(target, { reaperBackstopMs: 60_000 });
      try {
        const endpoint = await vendWorker(t.server, { slug: 'worker' });
        const todo = await t.client.createTodo({ queue: 'q', title: 'short' });
        const claim = await t.server.claims.claim(endpoint, todo.id, 1);
        const requeuedAt = await new Promise<number>((resolve) => {
          const unsubscribe = t.server.bus.subscribe((event) => {
            if (event.type === 'todo.changed' && event.change === 'reaped' && event.todo_id === todo.id) {
              unsubscribe();
              resolve(Date.now());
            }
          });
        });
        const lag = requeuedAt - claim.lease_expires_at;
        assert.ok(lag >= 0 && lag < 1000, `reaper lag ${lag} ms`);
        assert.equal((await t.client.listTodos({ state: 'queued' })).length, 1);
      } finally {
        await t.stop();
      }
    });
  });
}
