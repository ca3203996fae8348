// The seed's deferred fuses, enforced by the server over real HTTP on real storage: per-job-type
// hard max TTLs. Time moves only by hand (ManualLeaseClock).
import assert from 'node:assert/strict';
import { readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { storageTargets } from '../support/storage.ts';
import { rejection, startTestServer, type TestServer } from '../support/server.ts';

const MIN = 60_000;
const self = { pid: process.pid, start_time: readProcessInfo(process.pid)!.startTime };

for (const target of storageTargets) {
  describe(`wait-lease fuses on ${target.name}`, () => {
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer(target, { hardMaxTtlMs: 60 * MIN, hardMaxTtlMsByJobType: { test: 10 * MIN } });
      await t.server.expirySweeper.stop();
      await t.server.clockWatcher.stop();
      await t.server.holdLoop.stop();
    });
    afterEach(async () => t.stop());

    it('a per-job-type cap clamps acquire and renew of that type only', async () => {
      const capped = await t.client.holdWaitLease({ pane: 'P', job_ref: 'unit', ttl_ms: 30 * MIN, job_type: 'test', target: { pid: self.pid } });
      assert.equal(capped.expires_in_ms, 10 * MIN);
      assert.deepEqual(capped.clamped_by, ['hard_max']);
      const free = await t.client.acquireWaitLease({ pane: 'P', job_ref: 'compile', ttl_ms: 30 * MIN, job_type: 'build' });
      assert.equal(free.expires_in_ms, 30 * MIN);
      assert.deepEqual(free.clamped_by, []);
      t.leaseClock.advance(MIN);
      const renewed = await t.client.renewWaitLease(capped.lease_id, { token: capped.token, ttl_ms: 45 * MIN, evidence: self });
      assert.equal(renewed.expires_in_ms, 10 * MIN);
      assert.deepEqual(renewed.clamped_by, ['hard_max']);
    });

    it('a server refuses to start with a per-type cap looser than the global one', async () => {
      const error = await rejection(startTestServer(target, { hardMaxTtlMs: 60 * MIN, hardMaxTtlMsByJobType: { build: 61 * MIN } }));
      assert.equal(error.code, 'invalid_argument');
      assert.equal(error.field, 'hard_max_ttl_by_job_type.build');
    });
  });
}
