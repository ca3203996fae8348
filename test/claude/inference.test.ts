// The inferred tier beside the REAL Claude Code CLI (the pinned devDependency), interactive in
// tmux with no hooks installed: Claude Code's own process is a job only while its session file
// (~/.claude/sessions/<pid>.json) says it works. It writes that file about 0.3 s after it starts
// and its first status (idle) about 0.2 s later; an observation tick in between saw a plain
// long-running process and leased it, so the pane read "awaiting claude.exe@pid" while Claude
// Code sat at its prompt. A permission prompt (status "waiting") is waiting on the human too.
// Parked at its prompt on background work (a backgrounded command: "shell"; a background agent:
// "busy") the pane does wait on a job, and the lease holds through the whole wait.
// The lease server runs in this process with its inference, hold and sweep loops stopped:
// observation ticks run by hand, every 20 ms, from before Claude Code starts. The ONLY fake is
// the scripted stand-in for the Anthropic Messages API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { listProcesses, readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { until } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { sqliteTarget } from '../support/storage.ts';
import { claudeCommand, makeClaudeHome, startClaudeInteractive, type ClaudeHome, type ClaudeTui } from './support/claudeCode.ts';
import { startModelStandIn, text, toolUse, turn, type ModelStandIn } from './support/modelStandIn.ts';

const PANE = 'claude-pane';

describe('real Claude Code: the inferred tier (model API is a scripted stand-in)', function () {
  this.timeout(120_000);
  let home: ClaudeHome;
  let model: ModelStandIn;
  let tui: ClaudeTui;
  let t: TestServer;

  beforeEach(async () => {
    home = makeClaudeHome();
    model = await startModelStandIn();
    t = await startTestServer(sqliteTarget, { inference: { intervalMs: 3_600_000, claudeSessionsDir: path.join(home.configDir, 'sessions') } });
    // Ticks run by hand below; nothing else changes a lease meanwhile.
    await t.server.inference!.stop();
    await t.server.holdLoop.stop();
    await t.server.expirySweeper.stop();
    // The pane's shell at its prompt; each test types the claude command it runs.
    tui = await startClaudeInteractive({ home, model, launch: false });
  });
  afterEach(async () => {
    await tui.stop();
    await t.stop();
    await model.close();
    home.cleanup();
  });

  /** Claude Code's own status for `pid` (undefined: no file, or none yet). */
  const statusOf = (pid: number): string | undefined => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(home.configDir, 'sessions', `${pid}.json`), 'utf8')) as { status?: string }).status;
    } catch {
      return undefined;
    }
  };
  const leases = async () => (await t.client.listWaitLeases({ pane: PANE })).filter((lease) => lease.state !== 'ended');
  const tick = () => t.server.inference!.runOnce();

  /** Claude Code's pid in the pane: the shell's child, or its grandchild under a wrapper. */
  const claudeOf = (): number | undefined => {
    const shellPid = tui.panePid();
    const table = listProcesses().filter((info) => info.state !== 'Z');
    const under = new Set([shellPid, ...table.filter((info) => info.ppid === shellPid).map((info) => info.pid)]);
    return table.find((info) => info.comm === 'claude.exe' && under.has(info.ppid))?.pid;
  };

  /** Whether `pid` descends from `ancestor`. */
  const isUnder = (pid: number, ancestor: number): boolean => {
    for (let at: number | undefined = pid, hops = 0; at !== undefined && at > 1 && hops < 64; hops++) {
      if (at === ancestor) return true;
      at = readProcessInfo(at)?.ppid;
    }
    return false;
  };

  /** Registers the pane's shell and types `commandLine` (which starts Claude Code) there. */
  async function launch(commandLine: string): Promise<void> {
    const shellPid = tui.panePid();
    await t.client.registerPane({ name: PANE, source: 'vscode', shell_pid: shellPid, shell_start_time: readProcessInfo(shellPid)!.startTime });
    await tui.type(commandLine);
    await tui.keys('Enter');
  }

  /** One tick, and whether Claude Code (`pid`) had said nothing yet all through it. */
  async function tickWhile(pid: number | undefined): Promise<{ acquired: number; ended: number; unsaid: boolean }> {
    const before = pid === undefined ? undefined : statusOf(pid);
    const { acquired, ended } = await tick();
    return { acquired, ended, unsaid: pid !== undefined && before === undefined && statusOf(pid) === undefined };
  }

  /**
   * Launches `commandLine` and ticks every 20 ms until Claude Code says it is at its prompt.
   * Returns its pid, how many leases the ticks acquired, and how many ticks ran while it had said
   * nothing yet (the moment a plain process would have been leased).
   */
  async function startWatched(commandLine: string): Promise<{ pid: number; acquired: number; unsaid: number }> {
    await launch(commandLine);
    let unsaid = 0;
    let acquired = 0;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const pid = claudeOf();
      const result = await tickWhile(pid);
      acquired += result.acquired;
      if (result.unsaid) unsaid += 1;
      if (pid !== undefined && statusOf(pid) === 'idle') return { pid, acquired, unsaid };
      assert.ok(Date.now() < deadline, `Claude Code never said it is idle; screen:\n${tui.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('no lease while Claude Code starts, sits at its prompt or asks permission; "Claude Code busy" while it works', async () => {
    const { acquired, unsaid } = await startWatched(claudeCommand(['--allowedTools', 'Bash']));
    assert.ok(unsaid > 0, 'ticks ran while Claude Code ran and had not said what it does');
    assert.equal(acquired, 0, 'no lease while it started or sat at its prompt');
    assert.deepEqual(await leases(), []);

    // A Bash command it may run (allowed), then a Write it must ask for: the permission prompt
    // is Claude Code waiting on the human (its status says "waiting").
    const note = path.join(home.workDir, 'note.txt');
    model.script(
      turn([toolUse('Bash', { command: 'sleep 4', description: 'wait four seconds' })]),
      turn([toolUse('Write', { file_path: note, content: 'hello\n' })]),
      text('Done.'),
    );
    await tui.submit('wait for four seconds, then write a note');
    const lease = await until('an inferred lease while Claude Code works', async () => {
      await tick();
      return (await leases())[0];
    }, 30_000);
    assert.equal(lease.kind, 'inferred');
    assert.match(lease.job_ref, /^claude:[0-9a-f-]{36}$/);
    assert.match(lease.description ?? '', /^Claude Code (busy|: a background shell runs)$/);

    await until('the lease to end at the permission prompt', async () => ((await tick()).ended > 0 ? true : undefined), 30_000);
    assert.match(tui.screen(), /Do you want/, 'ended because Claude Code asks the human');
    assert.deepEqual(await leases(), []);
    const [row] = await t.client.ledger({ kind: 'inferred' });
    assert.match(row!.release_note ?? '', /Claude Code is at its prompt, waiting on the human/);
    assert.equal((await tick()).acquired, 0, 'none while the prompt waits');

    await tui.keys('Enter');
    await tui.waitForText('Done.');
    assert.equal(fs.readFileSync(note, 'utf8'), 'hello\n');
    await until('Claude Code back at its prompt', async () => (statusOf(claudeOf()!) === 'idle' ? true : undefined), 30_000);
    await tick();
    assert.deepEqual(await leases(), [], 'none at its prompt');
  });

  /** Scripts one foreground Bash `command`, asks for it, and ticks until the lease its work gets. */
  async function leaseWhileItRuns(command: string) {
    model.script(turn([toolUse('Bash', { command, description: 'a command' })]), text('Done.'));
    await tui.submit(`run ${command}`);
    return until('a lease while it works', async () => {
      await tick();
      return (await leases())[0];
    }, 30_000);
  }

  /** The `sleep` a background task of Claude Code (`pid`) runs, while it runs. */
  const backgroundSleepOf = (pid: number) => listProcesses().find((info) => info.comm === 'sleep' && info.state !== 'Z' && isUnder(info.pid, pid));

  /**
   * Ticks every 20 ms while Claude Code (`pid`) sits at its prompt parked on background work,
   * until `finished`. A tick counts as parked when `parked` holds for the status read before and
   * after it, the background sleep runs and `screenSays` is on screen (its turn is over); each
   * parked tick must find the lease held. Returns the first lease seen and the tallies.
   */
  async function tickThroughBackgroundWork(pid: number, options: { parkedStatus: string; screenSays: RegExp; finished: (status: string | undefined) => boolean }) {
    let lease: Awaited<ReturnType<typeof leases>>[number] | undefined;
    let parkedTicks = 0;
    let endedWhileParked = 0;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const before = statusOf(pid);
      const result = await tick();
      const after = statusOf(pid);
      lease ??= (await leases())[0];
      if (before === options.parkedStatus && after === options.parkedStatus && backgroundSleepOf(pid) && options.screenSays.test(tui.screen())) {
        parkedTicks += 1;
        endedWhileParked += result.ended;
        assert.equal((await leases()).length, 1, `parked on background work: the pane waits on a job; screen:\n${tui.screen()}`);
      }
      if (options.finished(after) && !backgroundSleepOf(pid)) break;
      assert.ok(Date.now() < deadline, `the background work never ended; status ${after}; screen:\n${tui.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(parkedTicks > 10, `ticks ran while Claude Code sat at its prompt with the work running (${parkedTicks})`);
    assert.equal(endedWhileParked, 0, 'no tick ended the lease while the work ran');
    assert.ok(lease);
    assert.equal(lease.kind, 'inferred');
    assert.match(lease.job_ref, /^claude:[0-9a-f-]{36}$/);
    await tick();
    assert.deepEqual(await leases(), [], 'the work done and Claude Code back at its prompt: no lease');
    assert.match((await t.client.ledger({ kind: 'inferred' }))[0]?.release_note ?? '', /Claude Code is at its prompt, waiting on the human/);
    return lease;
  }

  // The mission's case: the turn ends, the screen goes quiet at the prompt, background work runs.
  it('parked on a background shell at its prompt: the lease holds until the task ends and Claude Code is back at its prompt', async () => {
    // Measured with 2.1.332: busy, then shell from the turn's end until the task ends, idle,
    // busy for the turn its task-notification starts, idle.
    const { pid } = await startWatched(claudeCommand(['--allowedTools', 'Bash']));
    model.script(
      turn([toolUse('Bash', { command: 'sleep 4', description: 'wait in the background', run_in_background: true })]),
      text('Started it in the background.'),
      text('The background task finished.'),
    );
    await tui.submit('run sleep 4 in the background');
    await tickThroughBackgroundWork(pid, {
      parkedStatus: 'shell',
      screenSays: /Started it in the background/,
      // The task-notification's turn answered (on screen) and idle after it: the last word.
      finished: (status) => status === 'idle' && /The background task finished/.test(tui.screen()),
    });
  });

  it('parked on a background agent at its prompt: the lease holds until the agent ends and Claude Code is back at its prompt', async () => {
    // Measured with 2.1.332: busy from the launch until the agent ends, though the main turn is
    // over ("Waiting for 1 background agent to finish" above the prompt); idle, busy for the
    // notification's turn, idle.
    const { pid } = await startWatched(claudeCommand(['--allowedTools', 'Bash,Agent']));
    const brief = 'brief-for-the-helper';
    let agentRequests = 0;
    let mainRequests = 0;
    model.setFallback((request) => {
      if (JSON.stringify(request.messages?.[0] ?? '').includes(brief)) {
        agentRequests += 1;
        return agentRequests === 1 ? turn([toolUse('Bash', { command: 'sleep 5', description: 'helper works' })]) : text('Helper done.');
      }
      mainRequests += 1;
      return text(mainRequests === 1 ? 'Noted.' : 'All done.');
    });
    model.script(turn([toolUse('Agent', { description: 'helper', prompt: brief, subagent_type: 'general-purpose', run_in_background: true })]));
    await tui.submit('launch a helper');
    await tickThroughBackgroundWork(pid, {
      parkedStatus: 'busy',
      screenSays: /Waiting for 1 background agent to finish/,
      // The notification's turn answered (on screen) and idle after it: the last word.
      finished: (status) => status === 'idle' && /All done\./.test(tui.screen()),
    });
  });

  it('suspended with Ctrl+Z mid-turn: no lease while it is stopped, though its file still says busy; fg brings the lease back', async () => {
    // Measured with 2.1.332: Ctrl+Z stops Claude Code (state T) and the shell takes the terminal
    // back ("Claude Code is suspended. Run `fg` to bring it back."); its file keeps saying busy
    // and the Bash command it ran keeps running in a group of its own.
    const { pid } = await startWatched(claudeCommand(['--allowedTools', 'Bash']));
    const lease = await leaseWhileItRuns('sleep 20');
    await tui.keys('C-z');
    await until('Claude Code stopped, the shell at its prompt', async () => (readProcessInfo(pid)?.state === 'T' && /suspended/.test(tui.screen()) ? true : undefined), 30_000);
    assert.equal(statusOf(pid), 'busy', 'its file still says busy');
    const stopped = await tick();
    assert.deepEqual([stopped.ended, stopped.acquired], [1, 0], 'suspended, it waits on the human: its lease ends, none starts');
    const row = (await t.client.ledger({ kind: 'inferred' })).find((entry) => entry.lease_id === lease.lease_id)!;
    assert.match(row.release_note ?? '', /left the terminal's foreground/);
    assert.equal((await tick()).acquired, 0);
    assert.deepEqual(await leases(), []);

    await tui.type('fg');
    await tui.keys('Enter');
    await until('Claude Code running again', async () => (readProcessInfo(pid)?.state !== 'T' && readProcessInfo(tui.panePid())?.tpgid === readProcessInfo(pid)?.pgrp ? true : undefined), 30_000);
    assert.equal((await tick()).acquired, 1, 'back in the foreground and busy: a job again');
  });

  it('a scripted run (claude -p) in the pane is a job from its start until it exits', async () => {
    model.script(turn([toolUse('Bash', { command: 'sleep 3', description: 'wait three seconds' })]), text('Done.'));
    await launch(claudeCommand(['-p', 'wait for three seconds', '--allowedTools', 'Bash']));
    // Tick every 20 ms while it runs: leased from a tick before its session file said anything,
    // and never ended while it ran (its last status, idle, comes just before it exits).
    let pid: number | undefined;
    let leasedBeforeItSaid = false;
    let endedWhileRunning = 0;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const now = claudeOf();
      if (now === undefined && pid !== undefined) break;
      pid ??= now;
      const result = await tickWhile(now);
      if (result.unsaid && result.acquired > 0) leasedBeforeItSaid = true;
      // Running before and after the tick: an end then is not its exit.
      if (now !== undefined && claudeOf() === now) endedWhileRunning += result.ended;
      assert.ok(Date.now() < deadline, `claude -p never ended; screen:\n${tui.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(leasedBeforeItSaid, 'a job from its start');
    assert.equal(endedWhileRunning, 0, 'kept while it ran, whatever its status said');
    await tick();
    assert.deepEqual(await leases(), [], 'ended within one tick of its exit');
    const [row] = await t.client.ledger({ kind: 'inferred' });
    assert.match(row!.release_note ?? '', /no longer the pane's running job/);
  });

  it("as the terminal's own program (no shell): its MCP server child is no job at its prompt; busy, the lease is on Claude Code", async () => {
    await tui.stop();
    // A stdio MCP server that never answers stays Claude Code's child, as a real one does.
    const mcp = JSON.stringify({ mcpServers: { idle: { command: 'sleep', args: ['600'] } } });
    tui = await startClaudeInteractive({ home, model, inShell: false, args: ['--allowedTools', 'Bash', '--mcp-config', mcp] });
    const pid = tui.panePid();
    assert.equal(readProcessInfo(pid)?.comm, 'claude.exe', "Claude Code is the pane's own process");
    await t.client.registerPane({ name: PANE, source: 'vscode', shell_pid: pid, shell_start_time: readProcessInfo(pid)!.startTime });
    const mcpChild = () => listProcesses().find((info) => info.ppid === pid && info.comm === 'sleep' && info.state !== 'Z');
    let acquired = 0;
    await until('Claude Code at its prompt with its MCP server running', async () => {
      acquired += (await tick()).acquired;
      return statusOf(pid) === 'idle' && mcpChild() ? true : undefined;
    }, 30_000);
    for (let index = 0; index < 10; index++) acquired += (await tick()).acquired;
    assert.equal(acquired, 0, 'at its prompt (or starting): no lease, on it or on its MCP server');

    const lease = await leaseWhileItRuns('sleep 3');
    assert.match(lease.job_ref, /^claude:[0-9a-f-]{36}$/);
    assert.deepEqual(lease.observer, { kind: 'pid', pid, start_time: readProcessInfo(pid)!.startTime }, 'held on Claude Code');
    await until('the lease to end back at its prompt', async () => ((await tick()).ended > 0 ? true : undefined), 30_000);
    assert.equal(statusOf(pid), 'idle');
    assert.deepEqual(await leases(), []);
  });

  it('started by a wrapper (as npx starts it): no lease while it starts or sits at its prompt', async () => {
    // bash stays as the pane's job (a second command keeps it from exec'ing claude).
    const { pid, acquired, unsaid } = await startWatched(`bash -c ${JSON.stringify(`${claudeCommand()}; true`)}`);
    assert.notEqual(readProcessInfo(pid)!.ppid, tui.panePid(), 'Claude Code runs under its wrapper, not as the shell\'s own child');
    assert.ok(unsaid > 0, 'ticks ran while Claude Code ran under its wrapper and had not said what it does');
    assert.equal(acquired, 0, 'no lease on the wrapper while Claude Code started or sat at its prompt');
    assert.deepEqual(await leases(), []);
  });
});
