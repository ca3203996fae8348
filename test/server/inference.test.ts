// The inferred tier with real processes: a pane whose shell is a real `sh` (no hooks anywhere)
// gets an inferred lease on its running child within one observation tick, keeps it while the
// child runs, loses it within one tick of the child's exit (exit code recorded when shell
// integration reported it), then reads UNKNOWN, not idle. A declared lease for the same job
// supersedes it. Claude Code's session file, written as Claude Code writes it, names the job.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listProcessTrees, listProcesses, readArgv, readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { storageTargets, tempDir } from '../support/storage.ts';
import { rejection, startTestServer, type TestServer } from '../support/server.ts';
import type { LeaseholdApiError } from '../../src/client/client.ts';

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// The shell's `sleep` child once it runs sleep: between fork and exec it is a copy of sh, and a
// tick then (a loaded machine) would rightly name the job sh.
const childOf = (pid: number) => () => listProcesses().find((info) => info.ppid === pid && info.state !== 'Z' && info.comm === 'sleep');

for (const target of storageTargets) {
  describe(`inferred leases on ${target.name} (real processes)`, function () {
    this.timeout(30_000);
    let t: TestServer;
    let sessions: string;
    let shell: ChildProcess;
    let pane: string;
    const cleanups: Array<() => void> = [];

    beforeEach(async () => {
      sessions = tempDir('claude-sessions');
      t = await startTestServer(target, { inference: { intervalMs: 3_600_000, claudeSessionsDir: sessions } });
      // Ticks run by hand below: each runOnce is one observation tick.
      await t.server.inference!.stop();
      await t.server.holdLoop.stop();
      await t.server.expirySweeper.stop();
      shell = spawn('sh', [], { stdio: ['pipe', 'ignore', 'ignore'] });
      const info = readProcessInfo(shell.pid!)!;
      pane = `shell-${shell.pid}`;
      await t.client.registerPane({ name: pane, source: 'vscode', shell_pid: shell.pid!, shell_start_time: info.startTime });
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) cleanup();
      shell.kill('SIGKILL');
      await t.stop();
      rmSync(sessions, { recursive: true, force: true });
    });

    const tick = () => t.server.inference!.runOnce();
    const run = (command: string) => shell.stdin!.write(`${command}\n`);
    const leases = async () => (await t.client.listWaitLeases({ pane })).filter((lease) => lease.state !== 'ended');

    it('a real long child gets an inferred lease within one tick, keeps it while it runs, loses it within one tick of its exit; then UNKNOWN', async () => {
      assert.deepEqual((await tick()).acquired, 0, 'a shell at its prompt: nothing to infer');
      run('sleep 30');
      const sleep = await until('the sleep child', childOf(shell.pid!));
      const first = await tick();
      assert.equal(first.acquired, 1, 'within one observation tick');
      // The tick read the pane's tree (the shell and its sleep), not the machine's table.
      if (listProcessTrees([shell.pid!]) !== null) assert.equal(first.processes, 2);
      const [lease] = await leases();
      assert.ok(lease);
      assert.equal(lease.kind, 'inferred');
      assert.equal(lease.job_ref, `sleep@${sleep.pid}`);
      assert.equal(lease.description, 'sleep 30');
      assert.deepEqual(lease.observer, { kind: 'pid', pid: sleep.pid, start_time: sleep.startTime });
      assert.ok(lease.remaining_ms <= 30_000, 'a short TTL');
      let verdict = await t.client.paneVerdict(pane);
      assert.equal(verdict.reading, 'UNKNOWN', 'an inferred lease never reads as waiting');
      assert.equal(verdict.waiting_basis, 'inferred');
      assert.equal(verdict.attention.stall_alarm, 'extend_grace');
      assert.match((await t.client.getPane(pane)).annotation ?? '', /awaiting sleep@\d+ \(sleep 30, inferred\)/);

      t.leaseClock.advance(20_000);
      assert.equal((await t.server.holdLoop.runOnce()).renewed, 1, 'renewed only because its target re-verified');
      assert.equal((await tick()).acquired, 0, 'kept, not re-acquired');
      assert.equal((await leases()).length, 1);

      t.server.inference!.executions.start(t.server.human.id, pane, 1, 'sleep 30');
      process.kill(sleep.pid, 'SIGTERM');
      // One read per probe: between two, the process can be reaped (a null the second time).
      await until('the sleep exit', () => {
        const info = readProcessInfo(sleep.pid);
        return info === null || info.state === 'Z' ? true : undefined;
      });
      t.server.inference!.executions.end(t.server.human.id, pane, 1, 143);
      const after = await tick();
      assert.equal(after.ended, 1, 'within one tick of the exit');
      const ended = await t.client.getWaitLease(lease.lease_id);
      assert.deepEqual([ended.state, ended.end_reason], ['ended', 'released']);
      const [row] = await t.client.ledger({ kind: 'inferred' });
      assert.match(row!.release_note ?? '', /exit 143/, 'the exit code shell integration reported');
      verdict = await t.client.paneVerdict(pane);
      assert.deepEqual([verdict.reading, verdict.waiting, verdict.waiting_basis], ['UNKNOWN', false, null], 'UNKNOWN, not idle');
      assert.equal((await tick()).acquired, 0);
    });

    it('a declared lease for the same job supersedes the inferred one, and none is inferred while it holds', async () => {
      run('sleep 30');
      const sleep = await until('the sleep child', childOf(shell.pid!));
      await tick();
      const [inferred] = await leases();
      const declared = await t.client.holdWaitLease({ pane, job_ref: 'nightly-build', ttl_ms: 600_000, target: { pid: sleep.pid } });
      const next = await tick();
      assert.deepEqual([next.ended, next.acquired], [1, 0]);
      const superseded = await t.client.getWaitLease(inferred!.lease_id);
      assert.equal(superseded.end_reason, 'orphaned', 'its end was not observed: superseded');
      assert.equal((await t.client.ledger({ kind: 'inferred' }))[0]!.release_note, `superseded by declared wait-lease ${declared.lease_id} (nightly-build)`);
      assert.equal((await tick()).acquired, 0);
      const verdict = await t.client.paneVerdict(pane);
      assert.deepEqual([verdict.reading, verdict.waiting_basis], ['waiting', 'declared']);

      // The same job_ref, declared, supersedes at once.
      await t.client.releaseWaitLease(declared.lease_id, declared.token, 'done');
      await tick();
      const again = (await leases()).find((lease) => lease.kind === 'inferred')!;
      const same = await t.client.acquireWaitLease({ pane, job_ref: again.job_ref, ttl_ms: 60_000 });
      assert.equal((await t.client.getWaitLease(again.lease_id)).end_reason, 'orphaned');
      assert.equal((await t.client.getWaitLease(same.lease_id)).kind, 'declared');
    });

    it("Claude Code's session file names the job while busy; at its prompt (idle) there is no lease; a reused pid's file is ignored", async () => {
      run('sleep 30');
      const sleep = await until('the sleep child', childOf(shell.pid!));
      mkdirSync(sessions, { recursive: true });
      const write = (status: string, procStart = sleep.startTime) =>
        writeFileSync(
          join(sessions, `${sleep.pid}.json`),
          JSON.stringify({ pid: sleep.pid, sessionId: 'c0ffee00-1111-4222-8333-444455556666', cwd: '/work', startedAt: Date.now(), procStart, kind: 'interactive', entrypoint: 'cli', status }),
        );
      write('busy');
      await tick();
      let [lease] = await leases();
      assert.equal(lease!.job_ref, 'claude:c0ffee00-1111-4222-8333-444455556666');
      assert.equal(lease!.description, 'Claude Code busy');
      assert.equal(lease!.job_type, 'other:agent');

      write('idle');
      assert.equal((await tick()).ended, 1);
      assert.deepEqual(await leases(), [], 'an agent at its prompt waits on the human, not on a job');

      write('busy', '1');
      await tick();
      [lease] = await leases();
      assert.equal(lease!.job_ref, `sleep@${sleep.pid}`, 'a session file whose procStart is not this process is no signal');
      writeFileSync(join(sessions, `${sleep.pid}.json`), '{ not json');
      assert.equal((await tick()).acquired, 0, 'a damaged file is no signal either');
    });

    /**
     * Runs `command` at the shell (it starts `claude.exe`: a real process named as Claude Code's
     * npm binary is, comm and argv[0], whose program is sleep or sh linked under that name); returns
     * that process, once it runs, and a writer of its session file as Claude Code writes one.
     */
    async function startClaudeLookalike(command: (claudeExe: string) => string, program: 'sleep' | 'sh' = 'sleep') {
      const bin = tempDir('claude-bin');
      symlinkSync([`/usr/bin/${program}`, `/bin/${program}`].find((path) => existsSync(path))!, join(bin, 'claude.exe'));
      cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
      run(command(join(bin, 'claude.exe')));
      const claude = await until('claude.exe in the pane', () => {
        const table = listProcesses().filter((info) => info.state !== 'Z');
        const inPane = new Set([shell.pid!, ...table.filter((info) => info.ppid === shell.pid).map((info) => info.pid)]);
        return table.find((info) => info.comm === 'claude.exe' && inPane.has(info.ppid));
      });
      mkdirSync(sessions, { recursive: true });
      const write = (fields: Record<string, unknown> | string) =>
        writeFileSync(
          join(sessions, `${claude.pid}.json`),
          typeof fields === 'string'
            ? fields
            : JSON.stringify({ pid: claude.pid, sessionId: 'c0ffee00-1111-4222-8333-444455556666', procStart: claude.startTime, kind: 'interactive', ...fields }),
        );
      return { claude, write };
    }

    it('Claude Code is a job only while its session file says it works: none while it starts, an unsure moment keeps the lease, its prompt ends it', async () => {
      const { write } = await startClaudeLookalike((claudeExe) => `${claudeExe} 30`);
      // Claude Code 2.1.332 writes its session file about 0.3 s after it starts and its first
      // status (idle, at its prompt) about 0.2 s later: a tick before then saw a plain process.
      assert.equal((await tick()).acquired, 0, 'starting, no session file yet: not a job');
      write({ entrypoint: 'cli' });
      assert.equal((await tick()).acquired, 0, 'a session file with no status yet: not a job');
      write({ entrypoint: 'cli', status: 'idle' });
      assert.equal((await tick()).acquired, 0, 'at its prompt');
      assert.deepEqual(await leases(), []);

      write({ entrypoint: 'cli', status: 'busy' });
      assert.equal((await tick()).acquired, 1);
      const [lease] = await leases();
      assert.equal(lease!.job_ref, 'claude:c0ffee00-1111-4222-8333-444455556666');

      write({ entrypoint: 'cli', status: 'compacting' });
      const unknown = await tick();
      assert.deepEqual([unknown.acquired, unknown.ended], [0, 0], 'a status this reading does not know changes nothing');
      write('{"pid": ');
      assert.equal((await tick()).ended, 0, 'nor does a file caught mid-write');
      assert.deepEqual((await leases()).map((held) => held.lease_id), [lease!.lease_id]);

      write({ entrypoint: 'cli', status: 'idle' });
      assert.equal((await tick()).ended, 1);
      const [row] = await t.client.ledger({ kind: 'inferred' });
      assert.match(row!.release_note ?? '', /Claude Code is at its prompt, waiting on the human/);

      // At its prompt with a command it backgrounded still running: the pane waits on that.
      write({ entrypoint: 'cli', status: 'shell' });
      assert.equal((await tick()).acquired, 1);
      assert.equal((await leases())[0]!.description, 'Claude Code: a background shell runs');
    });

    it("interactive Claude Code under a wrapper (npx, a script) is the pane's program; a scripted run inside a job is part of the job", async () => {
      // The wrapper stays (a second command after claude keeps sh from exec'ing it).
      const { claude, write } = await startClaudeLookalike((claudeExe) => `sh -c '${claudeExe} 30; true'`);
      const wrapper = readProcessInfo(claude.ppid)!;
      assert.equal((await tick()).acquired, 0, 'Claude Code starting under its wrapper, no session file yet: not a job');
      write({ entrypoint: 'cli', status: 'idle' });
      assert.equal((await tick()).acquired, 0, 'Claude Code at its prompt, under npx or a script: not a job');
      write({ entrypoint: 'cli', status: 'busy' });
      assert.equal((await tick()).acquired, 1);
      const [lease] = await leases();
      assert.equal(lease!.job_ref, 'claude:c0ffee00-1111-4222-8333-444455556666');
      assert.deepEqual(lease!.observer, { kind: 'pid', pid: wrapper.pid, start_time: wrapper.startTime }, "held on the wrapper, the pane's job");
      write({ entrypoint: 'cli', status: 'idle' });
      assert.equal((await tick()).ended, 1, 'back at its prompt');

      write({ entrypoint: 'sdk-cli', status: 'idle' });
      assert.equal((await tick()).acquired, 1, 'claude -p inside a job: the job runs on');
      assert.equal((await leases())[0]!.job_ref, `sh@${wrapper.pid}`);
    });

    it('a scripted run (claude -p) is a job from its start until it exits, whatever its status says', async () => {
      // sh under Claude Code's name, with -p among its arguments as `claude -p` has.
      const { claude, write } = await startClaudeLookalike((claudeExe) => `${claudeExe} -c 'sleep 30; true' -p`, 'sh');
      assert.equal((await tick()).acquired, 1, 'a job from its start, before its session file says anything');
      const [lease] = await leases();
      assert.equal(lease!.job_ref, `claude.exe@${claude.pid}`);
      write({ entrypoint: 'sdk-cli', status: 'busy' });
      assert.deepEqual([(await tick()).ended, (await leases()).length], [0, 1], 'kept when its file appears');
      write({ entrypoint: 'sdk-cli', status: 'idle' });
      assert.equal((await tick()).ended, 0, 'its idle just before it exits does not end it: its exit does');
    });

    it("Claude Code as the pane's own program (a terminal that runs claude, no shell): its status decides, its children are part of it", async () => {
      // sh run as claude.exe is the pane's process, its child a long-lived sleep (as an MCP server is).
      const bin = tempDir('claude-bin');
      symlinkSync([`/usr/bin/sh`, `/bin/sh`].find((path) => existsSync(path))!, join(bin, 'claude.exe'));
      cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
      const claude = spawn(join(bin, 'claude.exe'), ['-c', 'sleep 30; true'], { stdio: 'ignore' });
      cleanups.push(() => claude.kill('SIGKILL'));
      const info = readProcessInfo(claude.pid!)!;
      const server = await until("the claude.exe's child", childOf(claude.pid!));
      const name = `claude-${claude.pid}`;
      await t.client.registerPane({ name, source: 'vscode', shell_pid: claude.pid!, shell_start_time: info.startTime });
      const paneLeases = async () => (await t.client.listWaitLeases({ pane: name })).filter((lease) => lease.state !== 'ended');
      mkdirSync(sessions, { recursive: true });
      const write = (status: string) =>
        writeFileSync(join(sessions, `${claude.pid}.json`), JSON.stringify({ pid: claude.pid, sessionId: 'c0ffee00-1111-4222-8333-444455556666', procStart: info.startTime, kind: 'interactive', entrypoint: 'cli', status }));

      assert.equal((await tick()).acquired, 0, 'before it says anything: not a job, nor is its child');
      write('idle');
      assert.equal((await tick()).acquired, 0, `at its prompt, its child ${server.comm}@${server.pid} running: not a job`);
      assert.deepEqual(await paneLeases(), []);
      write('busy');
      assert.equal((await tick()).acquired, 1);
      const [lease] = await paneLeases();
      assert.equal(lease!.job_ref, 'claude:c0ffee00-1111-4222-8333-444455556666');
      assert.deepEqual(lease!.observer, { kind: 'pid', pid: claude.pid, start_time: info.startTime }, 'held on Claude Code itself');
      write('idle');
      assert.equal((await tick()).ended, 1);
      assert.match((await t.client.ledger({ kind: 'inferred' }))[0]!.release_note ?? '', /Claude Code is at its prompt, waiting on the human/);
    });

    it('-p inside an argument (an interactive first prompt) is not a scripted run; -p after -- is not either', async () => {
      // Interactive Claude Code with a first prompt that mentions -p, its session file where this
      // server does not look (so nothing but its arguments speaks for it): no lease, ever.
      const { claude } = await startClaudeLookalike((claudeExe) => `${claudeExe} -c 'sleep 30; true' 'what does -p do'`, 'sh');
      assert.deepEqual(readArgv(claude.pid)?.at(-1), 'what does -p do');
      assert.equal((await tick()).acquired, 0, 'interactive Claude Code that has said nothing: not a job');
      assert.equal((await tick()).acquired, 0);
      process.kill(claude.pid, 'SIGKILL');
      await until('the first lookalike gone', () => (readProcessInfo(claude.pid)?.state ?? 'Z') === 'Z' || undefined);

      const { claude: afterDashes } = await startClaudeLookalike((claudeExe) => `${claudeExe} -c 'sleep 30; true' -- -p`, 'sh');
      assert.deepEqual(readArgv(afterDashes.pid)?.slice(-2), ['--', '-p']);
      assert.equal((await tick()).acquired, 0, 'after --, -p is a prompt, not the flag');
      assert.deepEqual(await leases(), []);
    });

    it('a scripted run inside a job is part of the job, before and after its session file says anything', async () => {
      const { claude, write } = await startClaudeLookalike((claudeExe) => `sh -c '${claudeExe} -c "sleep 30; true" -p; true'`, 'sh');
      const job = readProcessInfo(claude.ppid)!;
      assert.equal((await tick()).acquired, 1, 'the job is leased at once');
      assert.equal((await leases())[0]!.job_ref, `sh@${job.pid}`);
      write({ entrypoint: 'sdk-cli', status: 'idle' });
      assert.deepEqual([(await tick()).ended, (await leases()).length], [0, 1]);
    });

    /** A shell on a real terminal (util-linux `script` gives it a pty), registered as a pane. */
    async function terminalPane(shellCommand: string, comm: string) {
      // script runs the command with `$SHELL -c`, else `/bin/sh -c` (CI has no SHELL; dash forks
      // where bash would exec): `exec` makes the command the terminal's own process either way,
      // as a VS Code terminal's shell is.
      const term = spawn('script', ['-q', '-c', `exec ${shellCommand}`, '/dev/null'], { stdio: ['pipe', 'ignore', 'ignore'] });
      cleanups.push(() => term.kill('SIGKILL'));
      const shell = await until('the shell on its terminal', () => listProcesses().find((info) => info.ppid === term.pid && info.comm === comm && info.tpgid !== undefined));
      const name = `tty-${shell.pid}`;
      await t.client.registerPane({ name, source: 'vscode', shell_pid: shell.pid, shell_start_time: shell.startTime });
      return {
        shell,
        type: (text: string) => term.stdin!.write(text),
        leases: async () => (await t.client.listWaitLeases({ pane: name })).filter((lease) => lease.state !== 'ended'),
        /** The terminal's foreground group, as the shell reads it. */
        foreground: () => readProcessInfo(shell.pid)?.tpgid,
      };
    }

    /** An interactive bash on a terminal running `sleep 30` in its foreground, once it does. */
    async function sleepInTheForeground() {
      const pane = await terminalPane('bash --norc --noprofile -i', 'bash');
      pane.type('sleep 30\n');
      const sleep = await until('sleep in the foreground', () => {
        const child = childOf(pane.shell.pid)();
        return child && pane.foreground() === child.pgrp ? child : undefined;
      });
      return { pane, sleep };
    }

    it("only the terminal's foreground job is the pane's: a job stopped with Ctrl+Z or run with & is not leased", async () => {
      const { pane, sleep } = await sleepInTheForeground();
      assert.equal((await tick()).acquired, 1, 'the foreground job');
      const [lease] = await pane.leases();
      assert.equal(lease!.job_ref, `sleep@${sleep.pid}`);

      pane.type('\x1a'); // Ctrl+Z: the job stops, the shell takes the terminal back
      await until('sleep stopped, the shell in the foreground', () => (readProcessInfo(sleep.pid)?.state === 'T' && pane.foreground() === pane.shell.pgrp ? true : undefined));
      const stopped = await tick();
      assert.deepEqual([stopped.ended, stopped.acquired], [1, 0], 'a stopped job runs nothing: its lease ends, none starts');
      assert.deepEqual(await pane.leases(), []);
      const row = (await t.client.ledger({ kind: 'inferred' })).find((entry) => entry.lease_id === lease!.lease_id)!;
      assert.match(row.release_note ?? '', /left the terminal's foreground/);

      pane.type('bg\n'); // running again, in the background: the shell stays at its prompt
      await until('sleep running in the background', () => (readProcessInfo(sleep.pid)?.state === 'S' ? true : undefined));
      assert.equal((await tick()).acquired, 0, 'a background job is not what the pane waits on');
      assert.deepEqual(await pane.leases(), []);

      pane.type('fg\n');
      await until('sleep back in the foreground', () => (pane.foreground() === sleep.pgrp ? true : undefined));
      assert.equal((await tick()).acquired, 1, 'back in the foreground: the pane waits on it again');

      pane.type('\x03'); // Ctrl+C
      await until('sleep gone', () => ((readProcessInfo(sleep.pid)?.state ?? 'Z') === 'Z' ? true : undefined));
      assert.equal((await tick()).ended, 1);
      pane.type('sleep 30 &\n');
      await until('a background sleep', childOf(pane.shell.pid));
      assert.equal((await tick()).acquired, 0, 'started with &: the shell is at its prompt');
      assert.deepEqual(await pane.leases(), []);
    });

    it('an inferred lease the hold loop degraded while its job was stopped is ended, and the job leased anew once back in the foreground', async () => {
      const { pane, sleep } = await sleepInTheForeground();
      assert.equal((await tick()).acquired, 1);
      const [lease] = await pane.leases();
      pane.type('\x1a');
      await until('sleep stopped', () => (readProcessInfo(sleep.pid)?.state === 'T' ? true : undefined));
      assert.equal((await t.server.holdLoop.runOnce()).degraded, 1, 'the hold loop got there first');
      assert.equal((await t.client.getWaitLease(lease!.lease_id)).state, 'degraded');

      pane.type('fg\n');
      await until('sleep running in the foreground again', () => (pane.foreground() === sleep.pgrp && readProcessInfo(sleep.pid)?.state !== 'T' ? true : undefined));
      const back = await tick();
      assert.deepEqual([back.ended, back.acquired], [1, 1], 'the degraded lease ended, a fresh one for the running job');
      const ended = await t.client.getWaitLease(lease!.lease_id);
      assert.equal(ended.end_reason, 'orphaned', 'not a measured end of the job');
      const [fresh] = await pane.leases();
      assert.deepEqual([fresh!.state, fresh!.job_ref], ['active', `sleep@${sleep.pid}`]);
    });

    it('a shell run at the prompt (bash typed there, nix-shell) is nothing running while it sits at its own prompt; its jobs are the pane\'s', async () => {
      const pane = await terminalPane('bash --norc --noprofile -i', 'bash');
      pane.type('bash --norc --noprofile\n');
      const inner = await until('the inner shell, with the terminal', () => {
        const child = listProcesses().find((info) => info.ppid === pane.shell.pid && info.comm === 'bash' && info.state !== 'Z');
        return child && pane.foreground() === child.pgrp ? child : undefined;
      });
      assert.equal((await tick()).acquired, 0, 'a shell at its prompt: nothing runs');
      assert.deepEqual(await pane.leases(), []);

      pane.type('sleep 30\n');
      const sleep = await until('sleep in the inner shell, in the foreground', () => {
        const child = childOf(inner.pid)();
        return child && pane.foreground() === child.pgrp ? child : undefined;
      });
      assert.equal((await tick()).acquired, 1, 'a job in the inner shell: the pane waits on it');
      const [lease] = await pane.leases();
      assert.deepEqual(lease!.observer, { kind: 'pid', pid: inner.pid, start_time: inner.startTime }, 'held on the pane shell\'s own job');

      pane.type('\x03');
      await until('sleep gone, the inner shell at its prompt', () => ((readProcessInfo(sleep.pid)?.state ?? 'Z') === 'Z' && pane.foreground() === inner.pgrp ? true : undefined));
      assert.equal((await tick()).ended, 1);
      const row = (await t.client.ledger({ kind: 'inferred' })).find((entry) => entry.lease_id === lease!.lease_id)!;
      assert.match(row.release_note ?? '', /bash@\d+ is a shell at its prompt: nothing runs in the pane/);

      // A shell reading a script from a file is a job, though a shell with no arguments: here it
      // waits in a builtin (read), no child of its own in the foreground.
      const dir = tempDir('shell-script');
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'wait.sh'), `mkfifo ${dir}/f\nread -t 30 line <> ${dir}/f\n`);
      pane.type(`bash < ${dir}/wait.sh\n`);
      const reader = await until('bash reading its script, in the foreground', () => {
        const child = listProcesses().find((info) => info.ppid === inner.pid && info.comm === 'bash' && info.state !== 'Z');
        return child && pane.foreground() === child.pgrp && existsSync(join(dir, 'f')) && !listProcesses().some((info) => info.ppid === child.pid) ? child : undefined;
      });
      assert.equal((await tick()).acquired, 1, 'its input is a file: a job');
      assert.deepEqual((await pane.leases())[0]!.observer, { kind: 'pid', pid: inner.pid, start_time: inner.startTime }, "held on the pane shell's own job, the inner shell");
      process.kill(reader.pid, 'SIGKILL');
      await until('the script gone', () => (pane.foreground() === inner.pgrp ? true : undefined));
      assert.equal((await tick()).ended, 1);

      // A shell running a command is a job, though a shell.
      pane.type("exit\nbash -c 'sleep 30; true'\n");
      await until('bash -c in the foreground', () => {
        const child = listProcesses().find((info) => info.ppid === pane.shell.pid && info.comm === 'bash' && info.state !== 'Z' && info.pid !== inner.pid);
        return child && pane.foreground() === child.pgrp && childOf(child.pid)() ? child : undefined;
      });
      assert.equal((await tick()).acquired, 1);
    });

    it("Claude Code as the terminal's own program, on a terminal: at its prompt the ledger says so (it is no shell at its prompt)", async () => {
      const bin = tempDir('claude-bin');
      symlinkSync([`/usr/bin/sleep`, `/bin/sleep`].find((path) => existsSync(path))!, join(bin, 'claude.exe'));
      cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
      const pane = await terminalPane(`${join(bin, 'claude.exe')} 30`, 'claude.exe');
      assert.equal(pane.foreground(), pane.shell.pgrp, 'Claude Code has its terminal');
      mkdirSync(sessions, { recursive: true });
      const write = (status: string) =>
        writeFileSync(join(sessions, `${pane.shell.pid}.json`), JSON.stringify({ pid: pane.shell.pid, sessionId: 'c0ffee00-1111-4222-8333-444455556666', procStart: pane.shell.startTime, kind: 'interactive', entrypoint: 'cli', status }));
      write('busy');
      assert.equal((await tick()).acquired, 1);
      const [lease] = await pane.leases();
      write('idle');
      assert.equal((await tick()).ended, 1);
      const row = (await t.client.ledger({ kind: 'inferred' })).find((entry) => entry.lease_id === lease!.lease_id)!;
      assert.match(row.release_note ?? '', /Claude Code is at its prompt, waiting on the human/);
    });

    it('a shell without job control on a terminal (a task terminal): its commands share its group and are its job', async () => {
      const pane = await terminalPane("bash --norc --noprofile -c 'sleep 30; true'", 'bash');
      const sleep = await until('the sleep', childOf(pane.shell.pid));
      assert.equal(sleep.pgrp, pane.shell.pgrp, "no job control: the shell's own group");
      assert.equal(pane.foreground(), pane.shell.pgrp);
      assert.equal((await tick()).acquired, 1);
      assert.equal((await pane.leases())[0]!.job_ref, `sleep@${sleep.pid}`);
    });

    it('shell-integration reports over REST: the command line names the job, output is progress, the end report ends it with the exit code', async () => {
      await t.client.reportShellExecution(pane, { event: 'start', command_line: 'sleep 30 && echo done' });
      run('sleep 30 && echo done');
      await until('the sleep child', childOf(shell.pid!));
      await tick();
      const [lease] = await leases();
      assert.equal(lease!.description, 'sleep 30 && echo done');
      assert.equal(lease!.last_progress_at, null);
      t.leaseClock.advance(1_000);
      await t.client.reportShellExecution(pane, { event: 'output' });
      await tick();
      assert.equal((await t.client.getWaitLease(lease!.lease_id)).last_progress_at, t.leaseClock.read().wallMs, 'new output is a sign of progress');
      const ended = await t.client.reportShellExecution(pane, { event: 'end', exit_code: 0 });
      assert.deepEqual(ended.ended, [lease!.lease_id]);
      const row = (await t.client.ledger({ kind: 'inferred' }))[0]!;
      assert.deepEqual([row.end_reason, row.release_note, row.censoring], ['released', 'exit 0', 'exact']);

      const missing = (await rejection(t.client.reportShellExecution(pane, { event: 'start' }))) as unknown as LeaseholdApiError;
      assert.deepEqual([missing.status, missing.code, missing.field], [400, 'invalid_argument', 'command_line']);
      const bogus = (await rejection(t.client.reportShellExecution(pane, { event: 'bogus' } as never))) as unknown as LeaseholdApiError;
      assert.deepEqual([bogus.status, bogus.field], [400, 'event']);
      const unknownPane = (await rejection(t.client.reportShellExecution('no-such-pane', { event: 'output' }))) as unknown as LeaseholdApiError;
      assert.deepEqual([unknownPane.status, unknownPane.field], [404, 'pane']);
      const badSuggest = (await rejection(t.client.ledgerSuggestions({ percentile: 101 }))) as unknown as LeaseholdApiError;
      assert.deepEqual([badSuggest.status, badSuggest.field], [400, 'percentile']);
    });
  });
}
