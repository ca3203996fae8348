// Keeps one lease server reachable for this window: adopts the one the runtime dir's
// server.json names when it answers /health (several windows share it), otherwise spawns
// `leasehold serve` detached (it outlives the window and serves the others), restarts it with
// backoff when it dies, and gives up after repeated crashes. No vscode import: the context
// wires the state to the status bar and the log to the output channel.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import { LeaseholdClient } from '../../client/client.ts';
import { isProcessAlive, readDiscovery } from '../../runtime/discovery.ts';
import { runtimeFiles } from '../../runtime/paths.ts';
import { serverSpawnSettings } from '../../runtime/serverMemory.ts';
import type { ServerState } from '../model/serverStatus.ts';
import { RestartPolicy } from './restartPolicy.ts';
import type { RuntimeChoice, ServerRuntime } from './runtime.ts';

export interface SupervisorLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ServerLaunch {
  /** Arguments after `serve`. */
  args: string[];
  /** Extra env for the server (database URL, hard max TTL). */
  env: Record<string, string>;
}

export interface SupervisorOptions {
  runtimeDir: string;
  /** Absolute path of the bundled CLI (dist/cli/leasehold.js). */
  cliScript: string;
  launch: () => ServerLaunch;
  chooseRuntime: () => Promise<RuntimeChoice>;
  log: SupervisorLog;
  onState: (state: ServerState, client: LeaseholdClient | undefined) => void;
  policy?: RestartPolicy;
  now?: () => number;
  startTimeoutMs?: number;
  /** Rotate server.log beyond this size when spawning. */
  maxLogBytes?: number;
}

const POLL_MS = 150;

export class ServerSupervisor {
  private readonly options: SupervisorOptions;
  private readonly policy: RestartPolicy;
  private readonly now: () => number;
  private current: ServerState = { kind: 'stopped' };
  private currentClient: LeaseholdClient | undefined;
  private pending: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  private lastRuntime: ServerRuntime | undefined;

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.policy = options.policy ?? new RestartPolicy();
    this.now = options.now ?? Date.now;
  }

  get state(): ServerState {
    return this.current;
  }
  get client(): LeaseholdClient | undefined {
    return this.currentClient;
  }
  /** The runtime the last spawn used (the CLI runs on the same one). */
  get runtime(): ServerRuntime | undefined {
    return this.lastRuntime;
  }

  /** Finds or starts the server. Concurrent calls share one attempt. */
  ensureRunning(): Promise<void> {
    this.pending ??= this.connectOrSpawn().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Something (the event stream, a failed request) suggests the server is gone: check, and restart if so. */
  async suspectDown(reason: string): Promise<void> {
    if (this.disposed || this.current.kind !== 'running' || this.pending) return;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.tryAdopt(false)) return;
      await delay(300);
    }
    this.options.log.warn(`lease server not answering (${reason})`);
    this.crashed(reason);
  }

  /** The user asked: stop the server (whoever started it) and start afresh. */
  async restart(): Promise<void> {
    this.policy.reset();
    this.clearRestartTimer();
    const discovery = readDiscovery(this.options.runtimeDir);
    if (discovery && isProcessAlive(discovery.pid)) {
      this.options.log.info(`stopping lease server pid ${discovery.pid}`);
      try {
        process.kill(discovery.pid, 'SIGTERM');
      } catch (error) {
        this.options.log.warn(`could not stop pid ${discovery.pid}: ${(error as Error).message}`);
      }
      const deadline = this.now() + 5_000;
      while (isProcessAlive(discovery.pid) && this.now() < deadline) await delay(100);
    }
    this.setState({ kind: 'stopped' }, undefined);
    await this.ensureRunning();
  }

  dispose(): void {
    // The server is detached and shared: it keeps running for other windows and the CLI.
    this.disposed = true;
    this.clearRestartTimer();
  }

  private setState(state: ServerState, client: LeaseholdClient | undefined): void {
    this.current = state;
    this.currentClient = client;
    if (!this.disposed) this.options.onState(state, client);
  }

  private clearRestartTimer(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  /** True when server.json names a server that answers /health; then the state is running. */
  private async tryAdopt(adoptedHint: boolean, spawnedPid?: number): Promise<boolean> {
    const client = LeaseholdClient.fromRuntimeDir(this.options.runtimeDir, { timeoutMs: 2_000 });
    if (!client) return false;
    try {
      const health = await client.health();
      if (!health.ok) return false;
      const adopted = spawnedPid === undefined ? adoptedHint : health.pid !== spawnedPid;
      if (this.current.kind !== 'running' || this.current.pid !== health.pid || this.currentClient?.baseUrl !== client.baseUrl) {
        this.options.log.info(`connected to lease server ${health.version} at ${client.baseUrl} (pid ${health.pid}, ${health.storage}${adopted ? ', already running' : ', started by this window'})`);
      }
      this.setState({ kind: 'running', url: client.baseUrl, pid: health.pid, version: health.version, storage: health.storage, adopted }, client);
      return true;
    } catch {
      return false;
    }
  }

  private async connectOrSpawn(): Promise<void> {
    if (this.disposed) return;
    this.clearRestartTimer();
    this.setState({ kind: 'starting', detail: 'looking for a running lease server' }, undefined);
    if (await this.tryAdopt(true)) return;

    const choice = await this.options.chooseRuntime();
    if (!choice.ok) {
      this.options.log.error(choice.message);
      this.setState({ kind: 'failed', message: choice.message, action: choice.action }, undefined);
      return;
    }
    const runtime = choice.runtime;
    this.lastRuntime = runtime;
    const launch = this.options.launch();
    const { runtimeDir, cliScript } = this.options;
    const logPath = runtimeFiles.serverLog(runtimeDir);
    this.setState({ kind: 'starting', detail: `starting the lease server (Node ${runtime.nodeVersion} from ${runtime.source})` }, undefined);

    let exit: string | undefined;
    let childPid: number | undefined;
    try {
      mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
      rotateLog(logPath, this.options.maxLogBytes ?? 5 * 1024 * 1024);
      const fd = openSync(logPath, 'a', 0o600);
      const env = { ...process.env, ...runtime.env, ...launch.env, LEASEHOLD_RUNTIME_DIR: runtimeDir };
      // The server's memory settings at spawn (src/runtime/serverMemory.ts), so that serve need not re-execute itself.
      const memory = serverSpawnSettings(env);
      const args = [...memory.flags, cliScript, '--runtime-dir', runtimeDir, 'serve', ...launch.args];
      this.options.log.info(`spawning ${runtime.command} ${args.join(' ')}`);
      const child = spawn(runtime.command, args, {
        detached: true,
        stdio: ['ignore', fd, fd],
        env: { ...env, ...memory.env },
        windowsHide: true,
      });
      closeSync(fd);
      childPid = child.pid;
      child.on('error', (error) => {
        exit = `could not start ${runtime.command}: ${error.message}`;
      });
      child.on('exit', (code, signal) => {
        const text = `exited with ${signal ? `signal ${signal}` : `code ${code}`}`;
        if (exit === undefined) exit = text;
        if (this.current.kind === 'running' && this.current.pid === childPid) void this.suspectDown(`the server this window started ${text}`);
      });
      child.unref();
    } catch (error) {
      exit = `could not start ${runtime.command}: ${(error as Error).message}`;
    }

    const deadline = this.now() + (this.options.startTimeoutMs ?? 15_000);
    let exitSeenAt: number | undefined;
    while (!this.disposed && this.now() < deadline) {
      // Another window may win the race for the data dir: its server is as good as ours.
      if (await this.tryAdopt(false, childPid)) return;
      if (exit !== undefined) {
        exitSeenAt ??= this.now();
        if (this.now() - exitSeenAt > 2_000) break;
      }
      await delay(POLL_MS);
    }
    if (this.disposed) return;
    this.crashed(exit ? `lease server ${exit} (see the log)` : 'the lease server did not come up within the start timeout');
  }

  private crashed(reason: string): void {
    const decision = this.policy.recordCrash(this.now());
    if (decision.action === 'give_up') {
      const message = `The lease server stopped ${decision.crashes} times within ${Math.round(decision.windowMs / 60_000)} minutes; Leasehold stopped restarting it. Last problem: ${reason}. Open the log, fix the cause, then run "Leasehold: Restart Server".`;
      this.options.log.error(message);
      this.setState({ kind: 'failed', message, action: 'openLog' }, undefined);
      return;
    }
    this.options.log.warn(`${reason}; restarting in ${decision.delayMs} ms (attempt ${decision.attempt})`);
    this.setState({ kind: 'restarting', attempt: decision.attempt, delayMs: decision.delayMs, lastError: reason }, undefined);
    this.clearRestartTimer();
    this.restartTimer = setTimeout(() => void this.ensureRunning(), decision.delayMs);
  }
}

function rotateLog(path: string, maxBytes: number): void {
  try {
    if (statSync(path).size > maxBytes) renameSync(path, `${path}.1`);
  } catch {
    // absent: nothing to rotate
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
