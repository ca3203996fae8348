// The pane's running job from its terminal's process groups (core/waitLease/terminalJob.ts
// paneForegroundJob), on hand-made process tables; test/server/inference.test.ts drives the
// same rules with real shells on real terminals.
import assert from 'node:assert/strict';
import { paneForegroundJob, type SeenProcess, type TerminalView } from '../../../src/core/waitLease/terminalJob.ts';

/** A process table: pid → [ppid, pgrp, comm]. */
type Table = Record<number, [number, number, string]>;

function view(table: Table, shellPid: number, foregroundGroup: number | null): Pick<TerminalView, 'children' | 'foregroundGroup' | 'foregroundMembers' | 'subtreeOf'> {
  const seen = (pid: number): SeenProcess => ({ pid, startTime: String(pid), argv: null, comm: table[pid]![2], pgrp: table[pid]![1] });
  const childrenOf = (pid: number) => Object.keys(table).map(Number).filter((child) => table[child]![0] === pid);
  const subtreeOf = (root: number): ReadonlySet<number> => {
    const all = new Set([root]);
    for (const pid of all) for (const child of childrenOf(pid)) all.add(child);
    return all;
  };
  const groupOf = (pid: number) => table[pid]?.[1];
  return {
    children: childrenOf(shellPid).map(seen),
    foregroundGroup,
    foregroundMembers: foregroundGroup === null ? [] : [...subtreeOf(shellPid)].filter((pid) => groupOf(pid) === foregroundGroup),
    subtreeOf,
  };
}
const pids = (job: readonly SeenProcess[]) => job.map((process) => process.pid);

describe('paneForegroundJob', () => {
  // bash 100 (group 100); make 200 (its own group 200) with cc 201; a stopped vim 300 (group 300).
  const table: Table = { 100: [1, 100, 'bash'], 200: [100, 200, 'make'], 201: [200, 200, 'cc'], 300: [100, 300, 'vim'] };

  it('the job in the foreground group is the pane job; a stopped or background one is not', () => {
    assert.deepEqual(pids(paneForegroundJob(view(table, 100, 200))), [200]);
    assert.deepEqual(pids(paneForegroundJob(view(table, 100, 300))), [300]);
  });

  it('the shell holding the terminal is at its prompt: no job, whatever runs in the background', () => {
    assert.deepEqual(pids(paneForegroundJob(view(table, 100, 100))), []);
  });

  it('a child whose descendant took the terminal for a group of its own is the job', () => {
    const nested: Table = { 100: [1, 100, 'bash'], 200: [100, 200, 'sudo'], 201: [200, 201, 'bash'], 202: [201, 202, 'sleep'] };
    assert.deepEqual(pids(paneForegroundJob(view(nested, 100, 202))), [200]);
  });

  it('a shell without job control: its commands share its group, which has the terminal', () => {
    const task: Table = { 100: [1, 100, 'bash'], 200: [100, 100, 'npm'] };
    assert.deepEqual(pids(paneForegroundJob(view(task, 100, 100))), [200]);
  });

  it('no terminal, or a foreground group none of the pane is in: every child, as the tree shows it', () => {
    assert.deepEqual(pids(paneForegroundJob(view(table, 100, null))), [200, 300]);
    assert.deepEqual(pids(paneForegroundJob(view(table, 100, 999))), [200, 300], 'its job left the group without taking the terminal');
  });
});
