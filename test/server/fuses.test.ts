// The seed's deferred fuses, enforced by the server over real HTTP on real storage: per-job-type
// hard max TTLs, the chain cap, and progress-token escalation through the real hold loop on
// real child processes and process trees (a pid's progress is its whole tree's CPU time). Time
// moves only by hand (ManualLeaseClock).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { LeaseholdApiError } from '../../src/client/client.ts';
import { descendantsIn } from '../../src/core/processTree.ts';
import { listProcesses, readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { storageTargets } from '../support/storage.ts';
import { rejection, startTestServer, type TestServer } from '../support/server.ts';

const MIN = 60_000;
const self = { pid: process.pid, start_time: readProcessInfo(process.pid)!.startTime };

for (const target of storageTargets) {
  describe(`wait-lease fuses on ${target.name}`, () => {
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer(target, { hardMaxTtlMs: 60 * MIN, hardMaxTtlMsByJobType: { test: 10 * MIN }, chainCapMs: 45 * MIN, identicalRenewalLimit: 2 });
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

    it('the chain cap clamps the renewal that reaches it, ends the lease there, and refuses renewing or re-acquiring the chain', async () => {
      const grant = await t.client.holdWaitLease({ pane: 'C', job_ref: 'long', ttl_ms: 30 * MIN, target: { pid: self.pid } });
      t.leaseClock.advance(20 * MIN);
      const renewed = await t.client.renewWaitLease(grant.lease_id, { token: grant.token, ttl_ms: 30 * MIN, evidence: self });
      assert.equal(renewed.expires_in_ms, 25 * MIN);
      assert.deepEqual(renewed.clamped_by, ['chain_cap']);
      t.leaseClock.advance(25 * MIN - 1);
      assert.equal((await t.client.getWaitLease(grant.lease_id)).state, 'active', 'not a millisecond early');
      t.leaseClock.advance(1);
      const lease = await t.client.getWaitLease(grant.lease_id);
      assert.deepEqual([lease.state, lease.end_reason, lease.expired_by], ['ended', 'expired', 'chain_cap']);
      const verdict = await t.client.paneVerdict('C');
      assert.deepEqual(verdict.reasons.map((reason) => reason.code), ['CHAIN_CAP_REACHED']);
      assert.equal(verdict.disposition, 'page_immediately');
      const renewRefused = (await rejection(t.client.renewWaitLease(grant.lease_id, { token: grant.token, ttl_ms: MIN, evidence: self }))) as unknown as LeaseholdApiError;
      assert.equal(renewRefused.code, 'CHAIN_CAP_REACHED');
      assert.equal(renewRefused.status, 409);
      const again = (await rejection(t.client.acquireWaitLease({ pane: 'C', job_ref: 'long', ttl_ms: MIN }))) as unknown as LeaseholdApiError;
      assert.equal(again.code, 'CHAIN_CAP_REACHED');
      assert.equal(again.field, 'job_ref');
      const other = await t.client.acquireWaitLease({ pane: 'C', job_ref: 'another', ttl_ms: MIN });
      assert.equal(other.expires_in_ms, MIN, 'another job has its own chain');
    });

    describe('progress tokens through the hold loop (real processes)', () => {
      const children: ChildProcess[] = [];
      afterEach(() => {
        for (const child of children.splice(0)) {
          try {
            process.kill(-child.pid!, 'SIGKILL'); // a tree started in its own process group
          } catch {
            child.kill('SIGKILL');
          }
        }
      });
      const start = (args: string[]) => {
        const child = spawn(process.execPath, args, { stdio: 'ignore' });
        children.push(child);
        return child.pid!;
      };
      /** Advances past half the grant and runs one hold-loop tick: one renewal. */
      async function renewalTick(): Promise<void> {
        t.leaseClock.advance(6 * MIN);
        const result = await t.server.holdLoop.runOnce();
        assert.equal(result.renewed, 1);
      }

      it('a held process that uses no CPU escalates after K identical renewals, not before', async () => {
        const pid = start(['-e', 'setTimeout(() => {}, 120_000)']);
        await new Promise((resolve) => setTimeout(resolve, 300)); // past its start-up CPU
        await t.client.holdWaitLease({ pane: 'K', job_ref: 'still', ttl_ms: 10 * MIN, target: { pid } });
        await renewalTick();
        assert.deepEqual((await t.client.paneVerdict('K')).reasons, [], 'one identical renewal: no page yet');
        await renewalTick();
        const verdict = await t.client.paneVerdict('K');
        assert.deepEqual(verdict.reasons.map((reason) => reason.code), ['NO_PROGRESS']);
        assert.equal(verdict.disposition, 'page_immediately');
        assert.equal(verdict.leases[0]!.identical_renewals, 2);
        assert.equal(verdict.leases[0]!.last_progress_at, null);
      });

      /** A shell that only waits on `child` (never exec'ing it), in its own process group; resolves once the child runs. */
      async function startTree(child: string): Promise<{ shell: number; child: number }> {
        const tree = spawn('sh', ['-c', `${child} & wait`], { stdio: 'ignore', detached: true });
        children.push(tree);
        for (let wait = 0; wait < 200; wait++) {
          const [first] = descendantsIn(tree.pid!, listProcesses());
          if (first !== undefined && first.comm !== 'sh') return { shell: tree.pid!, child: first.pid };
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error(`${child} did not start under its shell`);
      }
      /** Until `pid` has used more CPU than `ticks` (a loaded machine may not schedule it at once). */
      async function usedMoreThan(pid: number, ticks: number): Promise<void> {
        for (let wait = 0; wait < 200 && (readProcessInfo(pid)?.cpuTicks ?? ticks) <= ticks; wait++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }

      it('a held shell that only waits while its child burns CPU shows progress (npm under leasehold run, a Claude Code Bash wrapper)', async () => {
        const { shell, child } = await startTree(`${process.execPath} -e 'for (;;) {}'`);
        const shellTicks = readProcessInfo(shell)!.cpuTicks;
        const grant = await t.client.holdWaitLease({ pane: 'T', job_ref: 'npm-test', ttl_ms: 10 * MIN, target: { pid: shell } });
        // Read after each renewal's own read, so waiting for more than it means the tree moved since.
        let cpu = readProcessInfo(child)?.cpuTicks ?? 0;
        for (let n = 0; n < 3; n++) {
          await usedMoreThan(child, cpu);
          await renewalTick();
          cpu = readProcessInfo(child)?.cpuTicks ?? cpu;
        }
        let verdict = await t.client.paneVerdict('T');
        assert.deepEqual(verdict.reasons, [], `K = 2, three renewals: no NO_PROGRESS while the child works`);
        assert.equal(verdict.leases[0]!.identical_renewals, 0);
        assert.equal(verdict.leases[0]!.last_progress_at, t.leaseClock.read().wallMs);
        // A renewal the caller asks for (pid evidence, `leasehold pane wait-lease renew`) reads the tree the same way.
        await usedMoreThan(child, cpu);
        t.leaseClock.advance(MIN);
        await t.client.renewWaitLease(grant.lease_id, { token: grant.token, ttl_ms: 10 * MIN, evidence: { pid: shell, start_time: readProcessInfo(shell)!.startTime } });
        verdict = await t.client.paneVerdict('T');
        assert.deepEqual([verdict.reasons, verdict.leases[0]!.identical_renewals, verdict.leases[0]!.last_progress_at], [[], 0, t.leaseClock.read().wallMs]);
        assert.equal(readProcessInfo(shell)!.cpuTicks, shellTicks, 'the held shell itself used no CPU all along: the progress was its child');
      });

      it('a held process tree that does nothing (a shell waiting on sleep) still escalates at exactly K', async () => {
        const { shell } = await startTree('sleep 120');
        await new Promise((resolve) => setTimeout(resolve, 300)); // past their start-up CPU
        await t.client.holdWaitLease({ pane: 'S', job_ref: 'sleeping', ttl_ms: 10 * MIN, target: { pid: shell } });
        await renewalTick();
        assert.deepEqual((await t.client.paneVerdict('S')).reasons, [], 'one identical renewal: no page yet');
        await renewalTick();
        const verdict = await t.client.paneVerdict('S');
        assert.deepEqual(verdict.reasons.map((reason) => reason.code), ['NO_PROGRESS']);
        assert.deepEqual([verdict.leases[0]!.identical_renewals, verdict.leases[0]!.last_progress_at], [2, null]);
      });

      it('a held process burning CPU shows progress: no escalation, and the last sign of progress is in the verdict', async () => {
        const pid = start(['-e', 'for (;;) {}']);
        await t.client.holdWaitLease({ pane: 'B', job_ref: 'busy', ttl_ms: 10 * MIN, target: { pid } });
        let cpu = readProcessInfo(pid)?.cpuTicks ?? 0;
        for (let n = 0; n < 3; n++) {
          // Until it has really used more CPU (a loaded machine may not schedule it at once).
          const before = cpu;
          for (let wait = 0; wait < 200 && cpu <= before; wait++) {
            await new Promise((resolve) => setTimeout(resolve, 25));
            cpu = readProcessInfo(pid)?.cpuTicks ?? cpu;
          }
          await renewalTick();
        }
        const verdict = await t.client.paneVerdict('B');
        assert.deepEqual(verdict.reasons, []);
        assert.equal(verdict.leases[0]!.identical_renewals, 0);
        assert.equal(verdict.leases[0]!.last_progress_at, t.leaseClock.read().wallMs);
        assert.equal(verdict.last_progress_at, t.leaseClock.read().wallMs, 'alive and moving, in the verdict itself');
      });
    });

    it('a server refuses to start with a per-type cap looser than the global one', async () => {
      const error = await rejection(startTestServer(target, { hardMaxTtlMs: 60 * MIN, hardMaxTtlMsByJobType: { build: 61 * MIN } }));
      assert.equal(error.code, 'invalid_argument');
      assert.equal(error.field, 'hard_max_ttl_by_job_type.build');
    });
  });
}
