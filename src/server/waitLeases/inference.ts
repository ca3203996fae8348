// The inferred tier's observer: on the machine that owns the panes, each tick reads what that
// machine already holds (one read of the process trees under the panes' shells, each process's
// group and its terminal's foreground group among them; Claude Code's session files; VS Code's
// shell-integration reports)
// and applies core's decideInference per pane: acquire an inferred lease held on the pane's
// running job (its terminal's foreground job), end one whose job is gone, stopped or sent to the
// background, or that a declared lease supersedes. Renewal is the hold loop's (an inferred lease is held on its target's pid + start
// time), so an inferred lease lives exactly as long as its target verifies. A small unit with
// an injected clock, process lister and session reader, and runOnce for tests and benches.
import { IntervalLoop } from '../maintenance/intervalLoop.ts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  type ClaudeSessionSignal,
  DEFAULT_INFERRED_TTL_MS,
  type PaneObservation,
  type ShellExecutionSignal,
  decideExecutionEnd,
  decideInference,
} from '../../core/waitLease/inferred.ts';
import { type SeenProcess, paneForegroundJob } from '../../core/waitLease/terminalJob.ts';
import { type ChildrenIndex, childrenIndex, descendantsIn } from '../../core/processTree.ts';
import { LeaseholdError } from '../../core/errors.ts';
import type { LeaseClock } from '../clock/leaseClock.ts';
import { type ProcessInfo, readArgv as readProcessArgv, readStdinIsTerminal } from '../observe/processInfo.ts';
import { type ProcessLister, defaultProcessLister } from './observers.ts';
import type { WaitLeaseService } from './waitLeaseService.ts';

export const DEFAULT_INFERENCE_INTERVAL_MS = 2000;
/** A session file larger than this is not Claude Code's small status record: skipped. */
const SESSION_FILE_MAX_BYTES = 64 * 1024;

export interface InferenceOptions {
  service: WaitLeaseService;
  clock: LeaseClock;
  intervalMs?: number;
  /** TTL of each inferred grant (renewed by the hold loop while the target verifies). */
  ttlMs?: number;
  /** The process trees under the panes' shells, read at one moment (a lister may return the whole table). */
  listProcesses?: ProcessLister;
  readArgv?: (pid: number) => readonly string[] | null;
  stdinIsTerminal?: (pid: number) => boolean | null;
  /** Claude Code's per-process session files (default $CLAUDE_CONFIG_DIR/sessions, else ~/.claude/sessions); null: not read. */
  claudeSessionsDir?: string | null;
  /** Shell-integration reports per pane (the extension's; see ShellExecutions). */
  executions?: ShellExecutions;
  onError?: (error: unknown) => void;
}

export interface InferenceTickResult {
  panes: number;
  /** Processes read this tick: those of the panes' trees (the whole table where /proc has no children files). */
  processes: number;
  acquired: number;
  ended: number;
}

/**
 * What VS Code's shell integration reported per pane, kept in memory (a report is about now;
 * after a restart the process tree alone speaks until the next report). Bound to the pane's
 * generation so a reused pane never inherits a command.
 */
export class ShellExecutions {
  private readonly byPane = new Map<string, ShellExecutionSignal & { generation: number; lastOutputWallMs: number | null }>();

  /** Panes are named within their human's namespace. */
  private key(humanId: string, pane: string): string {
    return `${humanId}\u0000${pane}`;
  }

  start(humanId: string, pane: string, generation: number, commandLine: string): void {
    this.byPane.set(this.key(humanId, pane), { generation, commandLine, exitCode: null, ended: false, lastOutputWallMs: null });
  }

  output(humanId: string, pane: string, generation: number, atWallMs: number): void {
    const current = this.byPane.get(this.key(humanId, pane));
    if (current && current.generation === generation && !current.ended) current.lastOutputWallMs = atWallMs;
  }

  end(humanId: string, pane: string, generation: number, exitCode: number | null): void {
    const key = this.key(humanId, pane);
    const current = this.byPane.get(key);
    if (current && current.generation === generation) this.byPane.set(key, { ...current, ended: true, exitCode });
  }

  of(humanId: string, pane: string, generation: number): (ShellExecutionSignal & { lastOutputWallMs: number | null }) | null {
    const current = this.byPane.get(this.key(humanId, pane));
    return current && current.generation === generation ? current : null;
  }
}

export function defaultClaudeSessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude'), 'sessions');
}

/**
 * Claude Code's session file for `pid`, read defensively (undocumented, so it may change):
 * a small JSON object whose procStart, when present, must equal the process's start time as
 * this machine reads it (Claude Code 2.1.x writes /proc/<pid>/stat field 22 on Linux, the same
 * identity processInfo.ts reads), so a reused pid never borrows an old session. Anything else
 * (missing, unreadable, oversized, not JSON, wrong shape) is no signal.
 */
export function readClaudeSession(dir: string, process: { pid: number; startTime: string }): ClaudeSessionSignal | null {
  const path = join(dir, `${process.pid}.json`);
  try {
    if (statSync(path).size > SESSION_FILE_MAX_BYTES) return null;
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const record = value as Record<string, unknown>;
    if (typeof record.procStart === 'string' && record.procStart.trim().replace(/\s+/g, ' ') !== process.startTime) return null;
    return {
      sessionId: typeof record.sessionId === 'string' && record.sessionId !== '' ? record.sessionId : null,
      status: typeof record.status === 'string' ? record.status : null,
      entrypoint: typeof record.entrypoint === 'string' ? record.entrypoint : null,
    };
  } catch {
    return null;
  }
}

/** Pids that have a session file, from one directory listing (so a tick reads only the files of live processes). */
function sessionPids(dir: string | null): Set<number> {
  if (dir === null) return new Set();
  try {
    return new Set(
      readdirSync(dir)
        .map((name) => /^(\d+)\.json$/.exec(name)?.[1])
        .filter((pid): pid is string => pid !== undefined)
        .map(Number),
    );
  } catch {
    return new Set();
  }
}

/** A tick's one read of the machine (InferenceObserver.readMachine). */
interface MachineView {
  processes: number;
  byPid: ReadonlyMap<number, ProcessInfo>;
  childrenOf: ChildrenIndex<ProcessInfo>;
  subtreeOf: (root: number) => ReadonlySet<number>;
  sessionsDir: string | null;
  withSession: ReadonlySet<number>;
}

function byStart(a: ProcessInfo, b: ProcessInfo): number {
  const x = Number(a.startTime);
  const y = Number(b.startTime);
  if (Number.isFinite(x) && Number.isFinite(y) && x !== y) return x - y;
  return a.pid - b.pid;
}

export class InferenceObserver {
  private readonly loop = new IntervalLoop(() => this.runOnce(), () => this.intervalMs, (error) => this.options.onError?.(error));
  private readonly options: InferenceOptions;
  readonly executions: ShellExecutions;

  constructor(options: InferenceOptions) {
    this.options = options;
    this.executions = options.executions ?? new ShellExecutions();
  }

  get intervalMs(): number {
    return this.options.intervalMs ?? DEFAULT_INFERENCE_INTERVAL_MS;
  }

  /**
   * One read of the machine for a tick: the process trees under the panes' shells, indexed, and
   * who has a session file. Everything a pane is judged on is in its shell's tree (its children,
   * its foreground job and that job's subtree), so the rest of the machine is not read: a read
   * of the whole table took 14 ms with 589 processes, as on a developer's machine.
   */
  private readMachine(shells: readonly number[]): MachineView {
    const table = (this.options.listProcesses ?? defaultProcessLister)(shells);
    // Exited, not yet reaped: nothing to wait on.
    const live = table.filter((info) => info.state !== 'Z');
    const byPid = new Map(live.map((info) => [info.pid, info]));
    const childrenOf = childrenIndex(live);
    // A pane's subtree is asked for several times a tick (the foreground group, session files,
    // Claude Code under a wrapper, supersession): walked once.
    const subtrees = new Map<number, Set<number>>();
    const subtreeOf = (root: number): Set<number> => {
      let known = subtrees.get(root);
      if (!known) subtrees.set(root, (known = new Set([root, ...descendantsIn(root, childrenOf).map((info) => info.pid)])));
      return known;
    };
    const sessionsDir = this.options.claudeSessionsDir === undefined ? defaultClaudeSessionsDir() : this.options.claudeSessionsDir;
    return { processes: table.length, byPid, childrenOf, subtreeOf, sessionsDir, withSession: sessionPids(sessionsDir) };
  }

  /**
   * What core needs to judge one pane (inferred.ts PaneObservation). Only the pane's own process,
   * its foreground head and the head's subtree are read beyond the table: their arguments and
   * Claude Code's session files (Claude Code itself, under a wrapper such as npx, or as the
   * terminal's own program).
   */
  private observePane(machine: MachineView, pane: { name: string; generation: number; shellPid: number | null; shellStartTime: string | null }, humanId: string): PaneObservation {
    const { byPid, childrenOf, subtreeOf, sessionsDir, withSession } = machine;
    const readArgs = this.options.readArgv ?? readProcessArgv;
    const seenOf = (info: ProcessInfo, argv: readonly string[] | null = null): SeenProcess => ({ pid: info.pid, startTime: info.startTime, comm: info.comm, argv, pgrp: info.pgrp ?? null });
    const sessionOf = (info: ProcessInfo | undefined) => (info && sessionsDir !== null && withSession.has(info.pid) ? readClaudeSession(sessionsDir, info) : null);

    const found = byPid.get(pane.shellPid!);
    const shell = found !== undefined && found.startTime === pane.shellStartTime ? found : undefined;
    const children = shell ? [...(childrenOf.get(shell.pid) ?? [])].sort(byStart).map((child) => seenOf(child)) : [];
    const foregroundGroup = shell?.tpgid ?? null;
    const foregroundMembers = shell && foregroundGroup !== null ? [...subtreeOf(shell.pid)].filter((pid) => byPid.get(pid)?.pgrp === foregroundGroup) : [];
    const head = paneForegroundJob({ children, foregroundGroup, foregroundMembers, subtreeOf })[0];
    const paneProcess = shell ? seenOf(shell, readArgs(shell.pid)) : null;
    if (head) head.argv = readArgs(head.pid);

    const claude = new Map<number, ClaudeSessionSignal>();
    const mayHaveSessions = sessionsDir !== null && withSession.size > 0;
    for (const pid of mayHaveSessions ? [...(shell ? [shell.pid] : []), ...(head ? subtreeOf(head.pid) : [])] : []) {
      const session = sessionOf(byPid.get(pid));
      if (session) claude.set(pid, session);
    }
    return {
      pane: pane.name,
      generation: pane.generation,
      shellAlive: shell !== undefined,
      shell: paneProcess,
      children,
      foregroundGroup,
      foregroundMembers,
      subtreeOf,
      commOf: (pid) => byPid.get(pid)?.comm,
      argvOf: (pid) => (pid === head?.pid ? head.argv : pid === paneProcess?.pid ? paneProcess.argv : readArgs(pid)),
      stdinIsTerminalOf: this.options.stdinIsTerminal ?? readStdinIsTerminal,
      claude,
      execution: this.executions.of(humanId, pane.name, pane.generation),
    };
  }

  async runOnce(): Promise<InferenceTickResult> {
    const { service } = this.options;
    // The panes this machine owns and can observe, each acted on as its owner.
    const panes = await service.store.observablePanes(service.machineId);
    const result: InferenceTickResult = { panes: panes.length, processes: 0, acquired: 0, ended: 0 };
    if (panes.length === 0) return result; // nothing to observe: no process scan

    const machine = this.readMachine(panes.map(({ pane }) => pane.shellPid!));
    result.processes = machine.processes;

    for (const { pane, humanId } of panes) {
      const owned = service.forHuman(humanId);
      try {
        const observation = this.observePane(machine, pane, humanId);
        const leases = (await owned.store.listLeases({ pane: pane.name, generation: pane.generation, live: true })).map((stored) => stored.record);
        const actions = decideInference(observation, leases, service.readingFor(service.machineId));
        for (const action of actions) {
          if (action.action === 'end') {
            await this.end(owned, action.leaseId, action.reason, action.observed);
            result.ended += 1;
          } else if (action.action === 'progress') {
            await owned.noteProgress(action.leaseId, action.atWallMs);
          } else {
            await owned.acquire(
              { pane: pane.name, job_ref: action.jobRef, ttl_ms: this.options.ttlMs ?? DEFAULT_INFERRED_TTL_MS, kind: 'inferred', job_type: action.source === 'claude_session' ? 'other:agent' : 'shell', description: action.description },
              { observer: { kind: 'pid', pid: action.target.pid, startTime: action.target.startTime }, initialProgressToken: null },
            );
            result.acquired += 1;
          }
        }
      } catch (error) {
        // A lost race (the lease or pane changed meanwhile) is settled by the next tick.
        if (!(error instanceof LeaseholdError)) this.options.onError?.(error);
      }
    }
    return result;
  }

  /**
   * A shell-integration report from the extension: a command started (its command line names
   * the inferred lease the next tick acquires) or ended (the pane's inferred leases end now, with
   * its exit code). Bound to the pane's current generation.
   */
  async reportShellExecution(
    service: WaitLeaseService,
    humanId: string,
    paneName: string,
    report: { event: 'start' | 'end' | 'output'; command_line?: string; exit_code?: number | null },
  ): Promise<{ pane: string; generation: number; ended: string[] }> {
    const pane = await service.store.getPane(paneName);
    if (!pane || pane.closedAt !== null) throw new LeaseholdError('not_found', `no open pane "${paneName}"`, { field: 'pane' });
    const now = service.readingFor(service.machineId);
    const ended: string[] = [];
    if (report.event === 'start') {
      this.executions.start(humanId, pane.name, pane.generation, report.command_line ?? '');
    } else if (report.event === 'output') {
      this.executions.output(humanId, pane.name, pane.generation, now.wallMs);
    } else {
      this.executions.end(humanId, pane.name, pane.generation, report.exit_code ?? null);
      const leases = (await service.store.listLeases({ pane: pane.name, generation: pane.generation, live: true })).map((stored) => stored.record);
      for (const action of decideExecutionEnd(leases, pane.generation, report.exit_code ?? null, now)) {
        if (action.action !== 'end') continue;
        await this.end(service, action.leaseId, action.reason, action.observed);
        ended.push(action.leaseId);
      }
    }
    return { pane: pane.name, generation: pane.generation, ended };
  }

  private async end(service: WaitLeaseService, leaseId: string, reason: string, observed: boolean): Promise<void> {
    try {
      if (observed) await service.releaseHeld(leaseId, reason);
      else await service.endUnobservedByOwner(leaseId, reason);
    } catch (error) {
      if (!(error instanceof LeaseholdError && error.code === 'LEASE_ENDED')) throw error;
    }
  }

  start(): void {
    this.loop.start();
  }

  /** Run a tick now (unless one is running). */
  kick(): void {
    this.loop.kick();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
