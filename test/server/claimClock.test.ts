// Issue 10, item 8: on embedded storage a claim's expiry is judged on the boot clock, so a
// wall-clock step (NTP, a manual change) cannot extend a live claim, while the server runs or
// across a restart in the same boot. The server here has no claim clock handed in: it builds its
// own on the (hand-moved) lease clock, as in production.
import assert from 'node:assert/strict';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import { ManualLeaseClock } from '../../src/server/clock/leaseClock.ts';
import { sqliteTarget } from '../support/storage.ts';
import { rejection, startOwnClaimClockTestServer, vendWorker } from '../support/server.ts';
import { tempDir } from '../support/storage.ts';
import { rmSync } from 'node:fs';

const HOUR = 3_600_000;

describe('claim expiry on SQLite is judged on a clock a wall step cannot move', () => {
  it('a wall clock stepped back an hour extends no live claim', async () => {
    const t = await startOwnClaimClockTestServer(sqliteTarget);
    try {
      await t.server.reaper.stop();
      const { claims, claimStore, human } = t.server;
      const worker = await vendWorker(t.server, { slug: 'worker' });
      const todo = await claims.createTodo(human, { queue: 'q', title: 'short lease' });
      const claim = await claims.claim(worker, todo.id, 60);
      assert.equal(claim.lease_remaining_ms, 60_000);

      t.leaseClock.advance(10_000);
      t.leaseClock.rollbackWall(HOUR);
      const listed = (await claims.listTodos(human, { state: 'claimed' }))[0]!;
      assert.equal(listed.lease_remaining_ms, 50_000, 'still 50 s left, not an hour and 50 s');

      t.leaseClock.advance(50_000);
      const lapsed = await rejection(claims.heartbeat(worker, todo.id, claim.claim_epoch));
      assert.equal(lapsed.code, 'lease_lapsed', 'lapsed at its TTL on the boot clock');
      assert.equal(await t.server.reaper.runOnce(), 1, 'the reaper requeues it at its TTL');
      assert.equal((await claimStore.getTodo(todo.id))?.state, 'queued');
    } finally {
      await t.stop();
    }
  });

  it('a wall clock stepped forward an hour cuts no live claim short', async () => {
    const t = await startOwnClaimClockTestServer(sqliteTarget);
    try {
      await t.server.reaper.stop();
      const { claims, human } = t.server;
      const worker = await vendWorker(t.server, { slug: 'worker' });
      const todo = await claims.createTodo(human, { queue: 'q', title: 'long job' });
      const claim = await claims.claim(worker, todo.id, 600);
      t.leaseClock.rollbackWall(-HOUR);
      t.leaseClock.advance(60_000);
      assert.equal(await t.server.reaper.runOnce(), 0);
      const beat = await claims.heartbeat(worker, todo.id, claim.claim_epoch, 600);
      assert.equal(beat.lease_remaining_ms, 600_000);
    } finally {
      await t.stop();
    }
  });

  it('a wall step back while the server was down extends nothing after a restart in the same boot', async () => {
    const dataDir = tempDir('claim-clock-data');
    const runtimeDir = tempDir('claim-clock-runtime');
    const leaseClock = new ManualLeaseClock();
    const start = () => startLeaseServer({ storage: { kind: 'sqlite', dataDir }, runtimeDir, leaseClock, logger: silentLogger, reaperBackstopMs: 3_600_000 });
    try {
      let server = await start();
      await server.reaper.stop();
      const worker = await vendWorker(server, { slug: 'worker' });
      const todo = await server.claims.createTodo(server.human, { queue: 'q', title: 'held across a restart' });
      const claim = await server.claims.claim(worker, todo.id, 120);
      await server.close();

      leaseClock.advance(121_000);
      leaseClock.rollbackWall(HOUR);
      server = await start();
      try {
        await server.reaper.stop();
        await server.reaper.runOnce();
        assert.equal((await server.claimStore.getTodo(todo.id))?.state, 'queued', 'lapsed and reaped: 121 s passed on the boot clock');
        const error = await rejection(server.claims.complete(worker, todo.id, claim.claim_epoch));
        assert.equal(error.code, 'lease_lapsed');
      } finally {
        await server.close();
      }

      // A reboot with the wall clock behind: claim time starts no earlier than it last was.
      leaseClock.reboot('boot-b', { downMs: 0 });
      leaseClock.rollbackWall(2 * HOUR);
      server = await start();
      try {
        assert.ok(server.claims !== undefined);
        const again = await server.claims.claim(worker, todo.id, 60);
        assert.ok(again.lease_expires_at >= claim.lease_expires_at + 1_000 + 60_000, 'claim time did not go back with the wall');
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });
});
