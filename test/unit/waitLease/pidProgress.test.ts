// The progress marker of a held pid (core evidence.ts pidTreeCpuTicks): the CPU time of the
// process tree under it, from one process-table snapshot. A parent that only waits (npm under
// `leasehold run`, a Claude Code Bash wrapper shell) moves its marker when its children work.
import assert from 'node:assert/strict';
import { descendantsIn } from '../../../src/core/processTree.ts';
import { type ProcessCpuRow, pidProgressToken, pidTreeCpuTicks } from '../../../src/core/waitLease/evidence.ts';
import { renew } from '../../../src/core/waitLease/lease.ts';
import { HARD_MAX, MIN, acquireLease, at, expectOk } from './fixtures.ts';

const row = (pid: number, ppid: number, cpuTicks: number | undefined, state = 'S'): ProcessCpuRow => ({ pid, ppid, state, ...(cpuTicks === undefined ? {} : { cpuTicks }) });

/** npm (100, idle) -> sh (101) -> node mocha (102, working), plus a stranger (200) and init (1). */
const table = (mochaTicks: number): ProcessCpuRow[] => [row(1, 0, 9000), row(100, 1, 40), row(101, 100, 3), row(102, 101, mochaTicks), row(200, 1, 777), row(201, 200, 55)];

describe('a held pid progress marker: the CPU time of its process tree', () => {
  it('is the process its own ticks plus every live descendant, and nothing else on the machine', () => {
    assert.equal(pidTreeCpuTicks({ pid: 100, cpuTicks: 40 }, table(500)), 40 + 3 + 500);
    assert.equal(pidTreeCpuTicks({ pid: 102, cpuTicks: 500 }, table(500)), 500, 'a leaf is its own ticks');
    assert.equal(pidTreeCpuTicks({ pid: 4242, cpuTicks: 8 }, table(500)), 8, 'a pid missing from the snapshot: its own ticks');
  });

  it('moves when only a grandchild works, while the held process itself stays idle', () => {
    const before = pidTreeCpuTicks({ pid: 100, cpuTicks: 40 }, table(500));
    const after = pidTreeCpuTicks({ pid: 100, cpuTicks: 40 }, table(650));
    assert.notEqual(before, after);
    assert.equal(pidTreeCpuTicks({ pid: 100, cpuTicks: 40 }, table(650)), after, 'and stays still while nothing in the tree works');
  });

  it('counts a child that exited but is not yet waited for (its ticks move to the parent once reaped: no dip)', () => {
    const working = pidTreeCpuTicks({ pid: 100, cpuTicks: 40 }, [row(100, 1, 40), row(101, 100, 60)]);
    const zombie = pidTreeCpuTicks({ pid: 100, cpuTicks: 40 }, [row(100, 1, 40), row(101, 100, 60, 'Z')]);
    const reaped = pidTreeCpuTicks({ pid: 100, cpuTicks: 40 + 60 }, [row(100, 1, 100)]);
    assert.deepEqual([working, zombie, reaped], [100, 100, 100]);
  });

  it('has no marker where the platform gives no CPU time for the process (macOS ps); a row without ticks adds none', () => {
    assert.equal(pidTreeCpuTicks({ pid: 100 }, table(500)), undefined);
    assert.equal(pidTreeCpuTicks({ pid: 100, cpuTicks: null }, table(500)), undefined);
    assert.equal(pidTreeCpuTicks({ pid: 100, cpuTicks: 1 }, [row(101, 100, undefined), row(102, 101, 2)]), 3);
  });

  it('survives a table that changed under its reader: a cycle is walked once, a self-parent is no child', () => {
    assert.equal(pidTreeCpuTicks({ pid: 100, cpuTicks: 1 }, [row(101, 100, 10), row(102, 101, 100), row(101, 102, 1000), row(100, 100, 5)]), 111);
    assert.deepEqual(
      descendantsIn(100, [row(103, 101, 0), row(101, 100, 0), row(102, 100, 0)]).map((info) => info.pid),
      [101, 102, 103],
      'breadth first: children before grandchildren',
    );
  });

  it("core compares a renewal's tree marker with the baseline token: a still tree renews identically, a working child is progress (the server's two readings: fuses.test.ts)", () => {
    const observer = { kind: 'pid' as const, pid: 100, startTime: '98765' };
    const reading = (offsetMs: number, mochaTicks: number) => ({ pid: 100, startTime: '98765', readAtWallMs: at(offsetMs).wallMs, cpuTicks: pidTreeCpuTicks({ pid: 100, cpuTicks: 40 }, table(mochaTicks)) });
    const baseline = pidProgressToken(100, '98765', reading(0, 500));
    let lease = acquireLease({ jobRef: 'npm-test', observer, initialProgressToken: baseline });
    const renewAt = (offsetMs: number, mochaTicks: number) =>
      expectOk(renew(lease, { tokenHash: 'hash-good', ttlMs: 10 * MIN, source: 'server', evidence: { pid: 100, start_time: '98765' }, pidReading: reading(offsetMs, mochaTicks), now: at(offsetMs), hardMaxTtlMs: HARD_MAX, identicalRenewalLimit: 3 })).record;
    lease = renewAt(5 * MIN, 500);
    assert.deepEqual([lease.progress.identicalRenewals, lease.progress.lastProgressAt], [1, null], 'same tree, same ticks: identical to the baseline');
    lease = renewAt(10 * MIN, 900);
    assert.deepEqual([lease.progress.identicalRenewals, lease.progress.lastProgressAt?.wallMs], [0, at(10 * MIN).wallMs], 'the grandchild worked: progress');
  });
});
