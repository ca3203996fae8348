import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  ancestry,
  descendants,
  findAncestorAmong,
  findAttachClient,
  findDescendantRunning,
  forkParentOf,
  isSameProcess,
  readProcessInfo,
} from '../../../src/claude/processTree.ts';
import type { ProcessInfo } from '../../../src/claude/processTree.ts';
import { parseProcStat, parsePsLine } from '../../../src/server/observe/processInfo.ts';
import { exited } from '../../support/processes.ts';

async function waitFor<T>(probe: () => T | null | undefined, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('process identity and tree', function () {
  this.timeout(20_000);
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
    }
  });

  // The sleep itself, once it runs (until then only the shells wrapping it match).
  function sleeperUnder(root: number, command: string): Promise<ProcessInfo> {
    return waitFor(() => descendants(root).find((info) => info.comm === 'sleep' && findDescendantRunning(root, command)?.pid === info.pid), command);
  }

  // A real three-level tree: sh -> sh -> sleep. The "; true" stops the inner shell from
  // exec'ing sleep in its place; a distinct duration per test makes each sleep findable.
  function start(seconds: number): ChildProcess {
    const child = spawn('sh', ['-c', `sh -c 'sleep ${seconds}; true' & wait`], { stdio: 'ignore', detached: true });
    children.push(child);
    return child;
  }

  describe('readProcessInfo', () => {
    it('reads this process: its parent and a start time', () => {
      const self = readProcessInfo(process.pid);
      assert.ok(self);
      assert.equal(self.pid, process.pid);
      assert.equal(self.ppid, process.ppid);
      assert.match(self.startTime, /\S/);
    });

    it('returns null for a process that has exited', async () => {
      const child = spawn('sh', ['-c', 'exit 0'], { stdio: 'ignore' });
      const pid = child.pid as number;
      await exited(child);
      await waitFor(() => (readProcessInfo(pid) === null ? true : null), 'the exited child to disappear');
    });

    it('parses a comm that contains spaces and parentheses', () => {
      const line = '4242 (my (weird) comm) S 4100 4242 4100 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 987654 3133440 412 18446744073709551615';
      assert.deepEqual(parseProcStat(line), { pid: 4242, ppid: 4100, startTime: '987654', state: 'S', comm: 'my (weird) comm', cpuTicks: 0, pgrp: 4242 });
    });

    it("reads the process group and its terminal's foreground group (none without a terminal)", () => {
      const onTerminal = '2063 (sleep) T 2062 2063 2062 34816 2062 1077936128 97 0 0 0 0 0 0 0 20 0 1 0 151250 2408448 224 18446744073709551615';
      assert.deepEqual([parseProcStat(onTerminal)?.pgrp, parseProcStat(onTerminal)?.tpgid, parseProcStat(onTerminal)?.state], [2063, 2062, 'T']);
    });

    it('parses macOS ps output with its five-token start time', () => {
      assert.deepEqual(parsePsLine('  812   1   812   901 Mon Dec  2 12:00:00 2026     Ss   /bin/zsh -l'), {
        pid: 812,
        ppid: 1,
        startTime: 'Mon Dec 2 12:00:00 2026',
        state: 'S',
        comm: '/bin/zsh -l',
        pgrp: 812,
        tpgid: 901,
      });
      assert.equal(parsePsLine('  813   1   813     0 Mon Dec  2 12:00:00 2026     Ss   launchd-child')?.tpgid, undefined, 'no terminal');
      assert.deepEqual(parsePsLine('  812   1 Mon Dec  2 12:00:00 2026     Ss   /bin/zsh -l', false), {
        pid: 812,
        ppid: 1,
        startTime: 'Mon Dec 2 12:00:00 2026',
        state: 'S',
        comm: '/bin/zsh -l',
      }, 'a ps without pgid and tpgid');
    });
  });

  describe('isSameProcess', () => {
    it('is true for a running process with its own start time', () => {
      const self = readProcessInfo(process.pid) as ProcessInfo;
      assert.equal(isSameProcess(self.pid, self.startTime), true);
    });

    it('catches pid reuse: the same pid with another start time is a different process', () => {
      const self = readProcessInfo(process.pid) as ProcessInfo;
      assert.equal(isSameProcess(self.pid, `${self.startTime}0`), false);
    });

    it('is false once the process has exited', async () => {
      const child = start(301);
      const info = await waitFor(() => readProcessInfo(child.pid as number), 'the child');
      process.kill(-(child.pid as number), 'SIGKILL');
      await exited(child);
      await waitFor(() => (isSameProcess(info.pid, info.startTime) ? null : true), 'the child to stop verifying');
    });

    it('does not count a zombie (exited, not yet reaped) as running', () => {
      const zombie: ProcessInfo = { pid: 77, ppid: 1, startTime: '5', state: 'Z', comm: 'sleep' };
      assert.equal(isSameProcess(77, '5', () => zombie), false);
    });
  });

  describe('ancestry and pane discovery', () => {
    it('walks from a nested process up through its parents to pid 1, with start times', async () => {
      const child = start(302);
      const sleeper = await sleeperUnder(child.pid as number, 'sleep 302');
      const chain = ancestry(sleeper.pid);
      const pids = chain.map((step) => step.pid);
      assert.equal(pids[0], sleeper.pid);
      assert.ok(pids.includes(child.pid as number), 'the outer sh is an ancestor');
      assert.ok(pids.includes(process.pid), 'this test process is an ancestor');
      assert.equal(pids.at(-1), 1);
      for (const step of chain) assert.match(step.startTime, /\S/);
    });

    it('finds the registered terminal shell among the ancestors', async () => {
      const child = start(303);
      const shell = await waitFor(() => readProcessInfo(child.pid as number), 'the shell');
      const sleeper = await sleeperUnder(shell.pid, 'sleep 303');
      const panes = [
        { pid: 999_999, startTime: '1', pane: 'other' },
        { pid: shell.pid, startTime: shell.startTime, pane: 'terminal-2' },
      ];
      const found = findAncestorAmong(sleeper.pid, panes);
      assert.equal(found?.candidate.pane, 'terminal-2');
      assert.ok((found?.depth ?? 0) >= 1);
    });

    it('does not bind to a registered pid whose start time differs (pid reused by another shell)', async () => {
      const child = start(304);
      const shell = await waitFor(() => readProcessInfo(child.pid as number), 'the shell');
      const sleeper = await sleeperUnder(shell.pid, 'sleep 304');
      const stale = [{ pid: shell.pid, startTime: `${shell.startTime}1`, pane: 'closed-terminal' }];
      assert.equal(findAncestorAmong(sleeper.pid, stale), null);
    });
  });

  describe('descendants', () => {
    it('lists children before grandchildren and finds the backgrounded command', async () => {
      const child = start(305);
      const sleeper = await sleeperUnder(child.pid as number, 'sleep 305');
      const tree = descendants(child.pid as number);
      const pids = tree.map((info) => info.pid);
      assert.ok(pids.includes(sleeper.pid));
      const inner = tree.find((info) => info.ppid === child.pid);
      assert.ok(inner, 'the inner sh is a direct child');
      assert.ok(pids.indexOf(inner.pid) <= pids.indexOf(sleeper.pid));
      assert.equal(sleeper.comm, 'sleep');
    });

    it('no longer lists a descendant after it exits', async () => {
      const child = start(306);
      const sleeper = await sleeperUnder(child.pid as number, 'sleep 306');
      process.kill(sleeper.pid, 'SIGKILL');
      await waitFor(() => (descendants(child.pid as number).some((info) => info.pid === sleeper.pid) ? null : true), 'the sleep to leave the tree');
    });
  });

  // Claude Code's background daemon (2.1.332): argv as /proc shows it.
  describe('background sessions', () => {
    const SESSION = '28f3a3eb-414f-4315-bcc9-31859311a095';
    const proc = (pid: number, comm: string, startTime: string) => ({ pid, ppid: 1, startTime, state: 'S', comm }) as never;
    it('finds the newest `claude attach <short id|id>` client, and nothing else', () => {
      const argv: Record<number, string[]> = {
        10: ['/x/claude.exe', 'attach', '28f3a3eb'],
        11: ['/x/claude.exe', 'attach', SESSION],
        12: ['/x/claude.exe', 'attach', 'ffffffff'],
        13: ['/x/claude.exe', '--resume', 'attach'],
        14: ['vim', 'attach', '28f3a3eb'],
      };
      const list = () => [proc(10, 'claude.exe', '100'), proc(11, 'claude.exe', '200'), proc(12, 'claude.exe', '300'), proc(13, 'claude.exe', '400'), proc(14, 'vim', '500')];
      assert.equal(findAttachClient(SESSION, list, (pid) => argv[pid] ?? null)?.pid, 11);
      assert.equal(findAttachClient('00000000-0000-0000-0000-000000000000', list, (pid) => argv[pid] ?? null), null);
    });

    it("reads the session a fork continues from the fork's own command line", () => {
      const fork = ['/x/claude.exe', '--session-id', SESSION, '--fork-session', '--resume', '/h/.claude/projects/-p/c598ab9d-193e-4933-9ad2-8ba3aebe9570.jsonl', '--permission-mode', 'default'];
      assert.equal(forkParentOf(5, () => fork), 'c598ab9d-193e-4933-9ad2-8ba3aebe9570');
      assert.equal(forkParentOf(5, () => ['/x/claude.exe', '--resume', '/h/c598ab9d-193e-4933-9ad2-8ba3aebe9570.jsonl']), undefined, 'a plain resume is no fork');
      assert.equal(forkParentOf(5, () => null), undefined);
    });
  });
});
