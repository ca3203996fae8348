// The process trees a progress marker sums (processInfo.ts listProcessTrees): read through each
// thread's /proc children file, they must be exactly the trees the whole table shows, children
// of any thread included, and the marker made from them the one the whole table gives.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { pidTreeCpuTicks } from '../../src/core/waitLease/evidence.ts';
import { descendantsIn } from '../../src/core/processTree.ts';
import { listProcessTrees, listProcesses, readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { until } from '../support/cli.ts';
import { exited } from '../support/processes.ts';

/** A node child running `script`, once the whole table shows `descendants` processes under it; killed with its process group. */
async function startTree(script: string, descendants: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true });
  await until(`a tree of ${descendants} under the child`, async () => (descendantsIn(child.pid!, listProcesses()).length === descendants ? true : undefined));
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  await exited(child);
}

const pidsOf = (rows: ReadonlyArray<{ pid: number }>) => rows.map((row) => row.pid).sort((a, b) => a - b);

describe('process trees for progress markers', function () {
  before(function () {
    if (listProcessTrees([process.pid]) === null) this.skip(); // no /proc children files here: the whole table is read instead
  });

  it('reads a tree as the whole table shows it: children, grandchildren, and a child of a thread other than the main one', async () => {
    // The root spawns a sleep from its main thread and, from a worker thread, a shell that
    // spawns a sleep of its own: the worker's child is in that thread's children file only.
    const root = await startTree(
      `const { spawn } = require('node:child_process');
       const { Worker } = require('node:worker_threads');
       spawn('sleep', ['60'], { stdio: 'ignore' });
       new Worker("require('node:child_process').spawn('sh', ['-c', 'sleep 60 & wait'], { stdio: 'ignore' }); setInterval(() => {}, 1000);", { eval: true });
       setInterval(() => {}, 1000);`,
      3,
    );
    try {
      const trees = listProcessTrees([root.pid!])!;
      const whole = listProcesses();
      assert.deepEqual(pidsOf(trees), pidsOf([readProcessInfo(root.pid!)!, ...descendantsIn(root.pid!, whole)]));
      assert.equal(trees.length, 4, 'the root, its sleep, the shell its worker spawned and that shell\u2019s sleep');
      // The descendants sleep, so their CPU time stands still between the two reads.
      const info = readProcessInfo(root.pid!)!;
      assert.equal(typeof pidTreeCpuTicks(info, trees), 'number');
      assert.equal(pidTreeCpuTicks(info, trees), pidTreeCpuTicks(info, whole), 'the same progress marker');
    } finally {
      await kill(root);
    }
  });

  it('several roots at once, a root that is gone, and a root inside another tree are each read once', async () => {
    const root = await startTree(`require('node:child_process').spawn('sh', ['-c', 'sleep 60 & wait'], { stdio: 'ignore' }); setInterval(() => {}, 1000);`, 2);
    try {
      const shell = descendantsIn(root.pid!, listProcesses()).find((row) => row.comm === 'sh')!;
      const gone = spawn('true');
      await exited(gone);
      const trees = listProcessTrees([root.pid!, gone.pid!, shell.pid, root.pid!])!;
      assert.deepEqual(pidsOf(trees), pidsOf([readProcessInfo(root.pid!)!, ...descendantsIn(root.pid!, listProcesses())]));
    } finally {
      await kill(root);
    }
  });
});
