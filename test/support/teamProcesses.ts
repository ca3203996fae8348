// Starts lease servers as separate processes, each in its own pid namespace (`unshare --pid
// --fork --mount-proc --kill-child`, needs root) with its own boot id (a test seam, see
// teamServerProcess.ts), all on one PostgreSQL schema: several "machines" on this host.
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { postgresTarget, tempDir } from './storage.ts';

const RUNNER = fileURLToPath(new URL('./teamServerProcess.ts', import.meta.url));

/** Why these tests cannot run here, or null when they can (root, unshare, a PostgreSQL URL). */
export function teamProcessesUnavailable(url: string | undefined): string | null {
  if (!url) return 'LEASEHOLD_TEST_DATABASE_URL is not set';
  if (process.getuid?.() !== 0) return 'needs root for unshare --pid';
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'true'], { stdio: 'ignore' });
  } catch {
    return 'unshare --pid --fork --mount-proc is not available';
  }
  return null;
}

export interface TeamProcess {
  url: string;
  token: string;
  machine: string;
  human: { id: string; name: string };
  /** This machine's device id, and the team-mode identity notice the server printed at start. */
  device: string;
  notice: string | null;
  /** The unshare process (kill -9 it: the namespace and everything in it dies). */
  child: ChildProcessWithoutNullStreams;
  runtimeDir: string;
  stderr: () => string;
  /** Sends a command to the runner and waits for its one-line JSON answer. */
  command(line: string): Promise<Record<string, unknown>>;
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  kill9(): Promise<void>;
}

export interface TeamProcessOptions {
  dbUrl: string;
  schema: string;
  /** TEST SEAM: the boot id this "machine" reports. */
  bootId: string;
  human?: string;
  identity?: string;
  runtimeDir?: string;
  env?: Record<string, string>;
}

export async function startTeamProcess(options: TeamProcessOptions): Promise<TeamProcess> {
  const runtimeDir = options.runtimeDir ?? tempDir('team-machine');
  const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', process.execPath, RUNNER], {
    env: {
      ...process.env,
      LH_TEAM_DB_URL: options.dbUrl,
      LH_TEAM_SCHEMA: options.schema,
      LH_TEAM_RUNTIME_DIR: runtimeDir,
      LH_TEAM_BOOT_ID: options.bootId,
      ...(options.human ? { LH_TEAM_HUMAN: options.human } : {}),
      ...(options.identity ? { LH_TEAM_IDENTITY: options.identity } : {}),
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const queued = lines.shift();
      if (queued !== undefined) return resolve(queued);
      const timer = setTimeout(() => reject(new Error(`team server did not answer; stderr:\n${stderr}`)), 20_000);
      waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      void exited.then(() => reject(new Error(`team server exited; stderr:\n${stderr}`)));
    });
  const hello = JSON.parse(await nextLine()) as { url: string; token: string; machine: string; human: { id: string; name: string }; device: string; notice: string | null };
  return {
    ...hello,
    child,
    runtimeDir,
    stderr: () => stderr,
    async command(line) {
      child.stdin.write(`${line}\n`);
      return JSON.parse(await nextLine()) as Record<string, unknown>;
    },
    async api<T>(method: string, path: string, body?: unknown) {
      const response = await fetch(`${hello.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${hello.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export async function stopTeamProcesses(processes: readonly TeamProcess[]): Promise<void> {
  for (const machine of processes) {
    await machine.kill9();
    rmSync(machine.runtimeDir, { recursive: true, force: true });
  }
}

/** Polls `read` until `done` holds or `timeoutMs` passes; returns the last value and when it held. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, stepMs = 50): Promise<{ value: T; afterMs: number }> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return { value, afterMs: Date.now() - started };
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

export interface TeamDatabase {
  readonly url: string;
  /** This test's own schema (made before each test, dropped after). */
  readonly schema: string;
  /** Started processes: killed (and their runtime dirs removed) after each test. */
  machines: TeamProcess[];
}

/**
 * Registers a describe block's hooks for team-process tests: skip (saying why) where they cannot
 * run, a fresh PostgreSQL schema per test, every started process killed afterwards.
 */
export function useTeamDatabase(): TeamDatabase {
  const url = process.env.LEASEHOLD_TEST_DATABASE_URL;
  const unavailable = teamProcessesUnavailable(url);
  let cleanup: (() => Promise<void>) | undefined;
  const state = { url: url ?? '', schema: '', machines: [] as TeamProcess[] };
  before(function () {
    if (unavailable) {
      console.log(`      skipped: ${unavailable}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    const created = await postgresTarget(url!).create();
    cleanup = created.cleanup;
    state.schema = (created.config as { schema: string }).schema;
    state.machines = [];
  });
  afterEach(async () => {
    await stopTeamProcesses(state.machines);
    await cleanup?.();
  });
  return state;
}
