// `leasehold run -- CMD`: a real `leasehold serve`, the real CLI, real commands. Exit codes,
// stdin/stdout and signals pass through; the lease is declared, held on the command's pid,
// live while it runs and released with its exit code or signal; without a server the command
// runs all the same.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tempDir } from '../support/storage.ts';
import { CLI_PATH, runCli, serveForSuite, until } from '../support/cli.ts';
import { readProcessInfo } from '../../src/server/observe/processInfo.ts';

interface LeaseRow {
  lease_id: string;
  job_ref: string;
  kind: string;
  state: string;
  state_reason: string | null;
  job_type: string;
  description: string | null;
  observer: { kind: string; pid?: number };
}

describe('leasehold run (real processes)', function () {
  this.timeout(60_000);
  const server = serveForSuite();
  const env = (extra: Record<string, string> = {}) => ({ LEASEHOLD_RUNTIME_DIR: server.runtimeDir(), LEASEHOLD_PANE: '', ...extra });
  const cli = (args: string[], extra: Record<string, string> = {}, input?: string) => runCli(args, { env: env(extra), input });

  async function ledgerRow(jobRef: string): Promise<{ end_reason: string | null; release_note: string | null; censoring: string; kind: string }> {
    const ledger = await cli(['ledger', '--json']);
    const rows = JSON.parse(ledger.stdout) as Array<{ job_ref: string; end_reason: string | null; release_note: string | null; censoring: string; kind: string }>;
    const row = rows.find((candidate) => candidate.job_ref === jobRef);
    assert.ok(row, `a ledger row for ${jobRef}: ${ledger.stdout}`);
    return row;
  }

  /**
   * The note of a lease that ended with its command: the exit leasehold run reports, or, when the
   * server's hold loop (every 2 s) read the pid gone in the few ms before that report arrived,
   * the hold loop's own (seen once in a CI run). Both are true; the first carries the code.
   */
  const endedWith = (note: string | null, exit: string) => assert.match(note ?? '', new RegExp(`^(${exit}|target pid \\d+ exited)$`));

  async function leasesOf(pane: string): Promise<LeaseRow[]> {
    const listed = await cli(['pane', 'wait-lease', 'list', '--pane', pane, '--json']);
    return listed.code === 0 ? (JSON.parse(listed.stdout) as LeaseRow[]) : [];
  }

  /** Starts `leasehold run` as a real child and resolves once its command printed `ready`. */
  function startRun(args: string[]): Promise<{ child: ChildProcess; output: () => string; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI_PATH, 'run', ...args], { env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
      const timer = setTimeout(() => reject(new Error(`run did not get ready: ${out}`)), 15_000);
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('ready')) {
          clearTimeout(timer);
          resolve({ child, output: () => out, exit });
        }
      });
      child.stderr!.on('data', (chunk) => (out += chunk));
    });
  }

  // A command that says ready, then waits; on SIGINT/SIGTERM it prints what it got and exits 40+n.
  const waiter = [
    process.execPath,
    '-e',
    "for (const [s, n] of [['SIGINT', 2], ['SIGTERM', 15]]) process.on(s, () => { console.log('got ' + s); process.exit(40 + n); }); console.log('ready'); setInterval(() => {}, 1000);",
  ];

  it('passes the exit code through and releases the lease with it (or the hold loop, first to see the exit)', async () => {
    const ok = await cli(['run', '--pane', 'run-1', '--id', 'exit-0', '--', 'sh', '-c', 'exit 0']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stderr, '', 'nothing of leasehold on stderr when all goes well (a command gone before the server answered needs no lease)');
    const failed = await cli(['run', '--pane', 'run-1', '--id', 'exit-7', '--job-type', 'test', '--', 'sh', '-c', 'sleep 1; echo out; echo err >&2; exit 7']);
    assert.equal(failed.code, 7);
    assert.equal(failed.stdout, 'out\n');
    assert.equal(failed.stderr, 'err\n');
    const row = await ledgerRow('exit-7');
    assert.deepEqual([row.end_reason, row.censoring, row.kind], ['released', 'exact', 'declared']);
    endedWith(row.release_note, 'exit 7');
  });

  it('passes stdin through', async () => {
    const echoed = await cli(['run', '--pane', 'run-1', '--id', 'cat', '--', 'cat'], {}, 'line one\nline two\n');
    assert.equal(echoed.code, 0, echoed.stderr);
    assert.equal(echoed.stdout, 'line one\nline two\n');
  });

  it('holds a declared lease on the command pid while it runs, and ends it with the command (SIGTERM forwarded)', async () => {
    const run = await startRun(['--pane', 'run-2', '--id', 'long-job', '--ttl', '5m', '--job-type', 'build', '--', ...waiter]);
    const lease = await until('the lease', async () => (await leasesOf('run-2')).find((candidate) => candidate.job_ref === 'long-job' && candidate.state === 'active'));
    assert.equal(lease.kind, 'declared');
    assert.equal(lease.job_type, 'build');
    assert.equal(lease.observer.kind, 'pid');
    const target = readProcessInfo(lease.observer.pid!);
    assert.ok(target && target.ppid === run.child.pid, 'the held pid is the command, a child of leasehold run');
    run.child.kill('SIGTERM');
    const exit = await run.exit;
    assert.equal(exit.code, 55, run.output());
    assert.match(run.output(), /got SIGTERM/);
    const row = await ledgerRow('long-job');
    assert.equal(row.end_reason, 'released');
    endedWith(row.release_note, 'exit 55');
  });

  it('stopped with Ctrl+Z, the lease stops vouching (degraded, the pane no longer reads waiting); continued, it is held anew', async () => {
    // An interactive bash on a real terminal (util-linux script gives it a pty), where Ctrl+Z
    // stops leasehold run and its command together and fg continues them.
    const term = spawn('script', ['-q', '-c', 'exec bash --norc --noprofile -i', '/dev/null'], { env: { ...process.env, ...env() }, stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      const type = (text: string) => term.stdin!.write(text);
      type(`'${process.execPath}' '${CLI_PATH}' run --pane run-stop --id stopped-job -- sleep 60\n`);
      const first = await until('the lease', async () => (await leasesOf('run-stop')).find((candidate) => candidate.job_ref === 'stopped-job' && candidate.state === 'active'));
      const verdict = async () => JSON.parse((await cli(['verdict', 'run-stop', '--json'])).stdout) as { reading: string };
      assert.equal((await verdict()).reading, 'waiting');

      type('\x1a');
      await until('the command stopped', async () => (readProcessInfo(first.observer.pid!)?.state === 'T' ? true : undefined));
      const degraded = await until('the lease degraded by the hold loop', async () => (await leasesOf('run-stop')).find((candidate) => candidate.lease_id === first.lease_id && candidate.state === 'degraded'), 15_000);
      assert.match(degraded.state_reason ?? '', /is stopped/);
      assert.notEqual((await verdict()).reading, 'waiting', 'a stopped job is waited on by nobody');

      type('fg\n');
      const again = await until('a new lease once continued', async () => (await leasesOf('run-stop')).find((candidate) => candidate.job_ref === 'stopped-job' && candidate.state === 'active' && candidate.lease_id !== first.lease_id), 15_000);
      assert.equal(again.observer.pid, first.observer.pid, 'held on the same command');
      assert.equal((await verdict()).reading, 'waiting');
      const ledger = JSON.parse((await cli(['ledger', '--json'])).stdout) as Array<{ lease_id: string; end_reason: string | null; release_note: string | null }>;
      const stale = ledger.find((row) => row.lease_id === first.lease_id)!;
      assert.deepEqual([stale.end_reason, stale.release_note], ['released', 'stopped, then continued: held anew'], 'the stale lease released, not left to expire');

      type('\x03');
      await until('the lease released with the command', async () => ((await leasesOf('run-stop')).every((candidate) => candidate.state === 'ended') ? true : undefined));
    } finally {
      term.kill('SIGKILL');
    }
  });

  it('forwards SIGINT; a command killed by a signal ends leasehold run by the same signal', async () => {
    const handled = await startRun(['--pane', 'run-3', '--id', 'int-job', '--', ...waiter]);
    await until('the lease', async () => (await leasesOf('run-3')).find((candidate) => candidate.job_ref === 'int-job' && candidate.state === 'active'));
    handled.child.kill('SIGINT');
    assert.equal((await handled.exit).code, 42, handled.output());
    assert.match(handled.output(), /got SIGINT/);

    const killed = await startRun(['--pane', 'run-3', '--id', 'killed-job', '--', process.execPath, '-e', "console.log('ready'); setInterval(() => {}, 1000)"]);
    await until('the lease', async () => (await leasesOf('run-3')).find((candidate) => candidate.job_ref === 'killed-job' && candidate.state === 'active'));
    killed.child.kill('SIGTERM');
    assert.deepEqual(await killed.exit, { code: null, signal: 'SIGTERM' });
    const row = await ledgerRow('killed-job');
    assert.equal(row.end_reason, 'released');
    endedWith(row.release_note, 'signal SIGTERM');
  });

  it('finds the registered pane whose shell is an ancestor, else registers this shell once', async () => {
    // This test process is the "shell" of leasehold run (its parent).
    const self = readProcessInfo(process.pid)!;
    const registered = await cli(['pane', 'register', 'vscode-like', '--source', 'vscode', '--shell-pid', String(self.pid), '--shell-start-time', self.startTime]);
    assert.equal(registered.code, 0, registered.stderr);
    const found = await cli(['run', '--id', 'in-vscode', '--', 'sleep', '1']);
    assert.equal(found.code, 0, found.stderr);
    assert.equal((await ledgerRow('in-vscode')).end_reason, 'released');
    const panes = JSON.parse((await cli(['pane', 'list', '--json'])).stdout) as Array<{ name: string; generation: number }>;
    assert.ok(!panes.some((pane) => pane.name.startsWith('shell-')), 'no new pane registered');
    const rows = JSON.parse((await cli(['ledger', '--json'])).stdout) as Array<{ job_ref: string; pane: string }>;
    assert.equal(rows.find((row) => row.job_ref === 'in-vscode')?.pane, 'vscode-like');

    assert.equal((await cli(['pane', 'close', 'vscode-like'])).code, 0);
    for (const id of ['outside-1', 'outside-2']) assert.equal((await cli(['run', '--id', id, '--', 'true'])).code, 0);
    const after = JSON.parse((await cli(['pane', 'list', '--json'])).stdout) as Array<{ name: string; generation: number; source: string }>;
    const own = after.find((pane) => pane.name === `shell-${process.pid}`);
    assert.ok(own, `a pane for this shell: ${JSON.stringify(after)}`);
    assert.equal(own.generation, 1, 'registered once, then reused');
    assert.equal(own.source, 'cli');
  });

  it('without a server the command still runs, and says so on stderr', async () => {
    const empty = tempDir('no-server');
    try {
      const result = await runCli(['run', '--id', 'offline', '--', 'sh', '-c', 'echo still ran; exit 3'], { env: { LEASEHOLD_RUNTIME_DIR: empty, LEASEHOLD_PANE: '' } });
      assert.equal(result.code, 3);
      assert.equal(result.stdout, 'still ran\n');
      assert.match(result.stderr, /leasehold run: no wait-lease for this command \(no lease server found.*\); running it without one/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('refuses bad flags before running anything; a missing program exits 127', async () => {
    const badType = await cli(['run', '--job-type', 'Free Text', '--', 'sh', '-c', 'echo ran']);
    assert.equal(badType.code, 2);
    assert.equal(badType.stdout, '');
    assert.match(badType.stderr, /--job-type: job_type must be one of/);
    const badTtl = await cli(['run', '--ttl', 'soon', '--', 'true']);
    assert.equal(badTtl.code, 2);
    assert.match(badTtl.stderr, /--ttl:/);
    const missing = await cli(['run', '--pane', 'run-1', '--', 'no-such-program-leasehold']);
    assert.equal(missing.code, 127);
    assert.match(missing.stderr, /no-such-program-leasehold: command not found/);
  });
});
