// Whole-process time of `leasehold hook` as Claude Code runs it (node + dist/cli/hook.js, the
// payload on stdin, wait for exit), against a real `leasehold serve`.
//
//   node scripts/build.mjs && node bench/hook.ts [--runs 100]
//
// Cases, each run sequentially --runs times (default 100):
//   node -e 0                  the floor: starting Node itself
//   ignored PreToolUse         an event Leasehold does not handle
//   ignored PostToolUse(Bash)  a foreground Bash, the most frequent hook call; triage only
//   server event, no server    UserPromptSubmit with no server.json: full module load,
//                              planner, spool write, no HTTP
//   server event               UserPromptSubmit delivered over HTTP (set_display applied)
// Then each hooked event's own process time, and whether Claude Code waits for it (events
// installed "async": true are not waited for).
// The differences say what dominates: startup (floor), module load (no-server minus ignored),
// HTTP + server apply (server event minus no-server).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ASYNC_EVENTS } from '../src/claude/settingsInstaller.ts';
import { percentile } from './stats.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const HOOK = join(root, 'dist/cli/hook.js');
const CLI = join(root, 'bin/leasehold.cjs');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 100;

function fixture(name: string, overrides: Record<string, unknown> = {}): string {
  const payload = JSON.parse(readFileSync(join(root, 'test/fixtures/claude-hooks', `${name}.json`), 'utf8'));
  return JSON.stringify({ ...payload, ...overrides });
}

function timeProcess(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve(ms);
    });
    child.stdin.end(input);
  });
}

function stats(samples: number[]): { median: number; p99: number; mean: number; min: number } {
  return { median: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length, min: Math.min(...samples) };
}

function startServer(env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk;
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) {
        child.stdout.off('data', onData);
        resolve({ url, stop: () => new Promise((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
  });
}

/** Run by bench/run.ts (`npm run bench`) or directly (`node bench/hook.ts`). */
export async function benchHook(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'leasehold-bench-hook-'));
  const runtimeDir = join(scratch, 'run');
  const noServerDir = join(scratch, 'run-none');
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, LEASEHOLD_PANE: 'bench-pane' };
  delete baseEnv.NODE_OPTIONS;
  const serverEnv = { ...baseEnv, LEASEHOLD_RUNTIME_DIR: runtimeDir, LEASEHOLD_DATA_DIR: join(scratch, 'data') };
  const server = await startServer(serverEnv);
  try {
    const session = 'bench-session';
    await timeProcess([HOOK, 'hook', 'SessionStart'], fixture('session-start', { session_id: session }), serverEnv);
    const cases: Array<[string, string[], string, NodeJS.ProcessEnv]> = [
      ['node -e 0 (floor)', ['-e', '0'], '', serverEnv],
      ['ignored PreToolUse', [HOOK, 'hook', 'PreToolUse'], fixture('pre-tool-use', { session_id: session }), serverEnv],
      ['ignored PostToolUse (foreground Bash)', [HOOK, 'hook', 'PostToolUse'], fixture('post-tool-use-bash-foreground', { session_id: session }), serverEnv],
      ['server event, no server (spooled)', [HOOK, 'hook', 'UserPromptSubmit'], fixture('user-prompt-submit', { session_id: session }), { ...baseEnv, LEASEHOLD_RUNTIME_DIR: noServerDir }],
      ['server event (UserPromptSubmit over HTTP)', [HOOK, 'hook', 'UserPromptSubmit'], fixture('user-prompt-submit', { session_id: session }), serverEnv],
    ];
    // Warm-up: fills the OS file cache and the hook's V8 compile cache, as a second hook call would.
    for (const [, args, input, env] of cases) for (let i = 0; i < 3; i++) await timeProcess(args, input, env);
    const results: Record<string, ReturnType<typeof stats>> = {};
    for (const [name, args, input, env] of cases) {
      const samples: number[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await timeProcess(args, input, env));
      results[name] = stats(samples);
    }
    // Per hooked event: the whole process time is what Claude Code waits for a synchronous hook;
    // an async one ("async": true, ASYNC_EVENTS) is not waited for.
    const perEvent: Array<[string, string, string]> = [
      ['SessionStart', 'SessionStart', fixture('session-start', { session_id: session })],
      ['UserPromptSubmit', 'UserPromptSubmit', fixture('user-prompt-submit', { session_id: session })],
      ['PostToolUse (plain tool call)', 'PostToolUse', fixture('post-tool-use-bash-foreground', { session_id: session })],
      ['PostToolUse (background Bash launch)', 'PostToolUse', fixture('post-tool-use-bash-background', { session_id: session })],
      ['Notification (permission_prompt)', 'Notification', fixture('notification-permission-prompt', { session_id: session })],
      ['Stop (task running)', 'Stop', fixture('stop-task-running', { session_id: session })],
      ['SubagentStop', 'SubagentStop', fixture('subagent-stop', { session_id: session })],
    ];
    const eventRows: string[] = [];
    for (const [label, event, input] of perEvent) {
      const samples: number[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await timeProcess([HOOK, 'hook', event], input, serverEnv));
      const waited = (ASYNC_EVENTS as readonly string[]).includes(event) ? 'async: not waited for' : `added to the turn ${percentile(samples, 50).toFixed(1)} ms`;
      eventRows.push(`${label.padEnd(40)} process median ${percentile(samples, 50).toFixed(1).padStart(6)} ms (before: all of it added to the turn)   now: ${waited}`);
    }
    const rows = Object.entries(results).map(([name, s]) => `${name.padEnd(44)} median ${s.median.toFixed(1).padStart(7)} ms   p99 ${s.p99.toFixed(1).padStart(7)} ms   mean ${s.mean.toFixed(1).padStart(7)} ms   min ${s.min.toFixed(1).padStart(6)} ms`);
    const floor = results['node -e 0 (floor)']!.median;
    const ignored = results['ignored PostToolUse (foreground Bash)']!.median;
    const spooled = results['server event, no server (spooled)']!.median;
    const served = results['server event (UserPromptSubmit over HTTP)']!.median;
    process.stdout.write(
      `leasehold hook, whole process, ${RUNS} sequential runs per case (Node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(1)).join(' ')})\n` +
        `${rows.join('\n')}\n\n` +
        `medians: Node startup ${floor.toFixed(1)} ms; triage + stdin ${(ignored - floor).toFixed(1)} ms; ` +
        `module load + plan + spool write ${(spooled - ignored).toFixed(1)} ms; HTTP + server apply vs spooling ${(served - spooled).toFixed(1)} ms\n` +
        `targets: ignored < 60 ms median (${ignored < 60 ? 'met' : 'NOT met'}), server event < 100 ms median (${served < 100 ? 'met' : 'NOT met'})\n\n` +
        `per hooked event (${RUNS} runs each, against the server):\n${eventRows.join('\n')}\n`,
    );
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(results)}\n`);
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchHook();
