// `leasehold run [--id REF] [--ttl DUR] [--job-type T] -- CMD…`: the two-line glue the seed asks
// for. Runs CMD in this terminal with stdin/stdout/stderr inherited, holds a declared wait-lease
// on the current pane with CMD's pid as its target (the server renews it only while that pid,
// pinned to its start time, lives), and ends the lease with CMD's exit code or signal as the
// release reason. The lease is a side effect: the command starts before the server is asked
// anything, and runs all the same when the server is down (said once on stderr). Exit status
// is CMD's: its code, or the same signal re-raised on this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { isatty } from 'node:tty';
import { constants as osConstants } from 'node:os';
import type { Command } from 'commander';
import type { LeaseholdClient } from '../../client/client.ts';
import { ancestry, readProcessInfo } from '../../claude/processTree.ts';
import { parseJobType } from '../../core/waitLease/jobType.ts';
import { DESCRIPTION_MAX_LENGTH, JOB_REF_MAX_LENGTH } from '../../core/waitLease/lease.ts';
import { connect, type ConnectionOptions } from '../connect.ts';
import { describeError, ExitWith, UsageError } from '../output.ts';
import { parseDurationMs } from './waitLeaseArgs.ts';

/** Each grant's TTL when --ttl is not given; the hold loop renews it while the command lives. */
export const RUN_DEFAULT_TTL_MS = 10 * 60_000;
/** Lease traffic never holds the command hostage: each request gives up after this. */
const RUN_SERVER_TIMEOUT_MS = 3_000;

/**
 * Forwarded to the command. SIGINT and SIGQUIT are not forwarded when this process sits in the
 * terminal's foreground process group: the terminal already sent them to the whole group,
 * command included, and a second Ctrl-C is not harmless (Claude Code exits on a double Ctrl-C).
 */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH'] as const;
const TERMINAL_GENERATED = new Set<string>(['SIGINT', 'SIGQUIT']);

/** True when this process is in its controlling terminal's foreground process group (Linux: pgrp == tpgid). */
function inTerminalForeground(): boolean {
  if (process.platform !== 'linux') return false;
  const self = readProcessInfo(process.pid);
  return self?.tpgid !== undefined && self.pgrp === self.tpgid;
}

/** The terminal on stdin ("/dev/pts/3"), or null. */
function ttyName(): string | null {
  if (!isatty(0)) return null;
  try {
    return readlinkSync('/proc/self/fd/0');
  } catch {
    return null;
  }
}

/**
 * The pane this terminal is: --pane / LEASEHOLD_PANE when given; else an open pane whose shell
 * (pid and start time, so a reused pid never matches) is an ancestor of this process, which is
 * how a VS Code terminal is found; else this shell registered as a `cli` pane named after its
 * terminal (or its pid), re-registered when that name now belongs to another shell.
 */
export async function resolveRunPane(client: LeaseholdClient, explicit: string | undefined): Promise<string> {
  if (explicit) return explicit;
  const chain = ancestry(process.ppid);
  const panes = await client.listPanes();
  for (const step of chain) {
    const pane = panes.find((candidate) => candidate.shell_pid === step.pid && candidate.shell_start_time === step.startTime);
    if (pane) return pane.name;
  }
  const shell = chain[0];
  const tty = ttyName();
  const name = tty ? `tty-${tty.replace(/^\/dev\//, '').replace(/\//g, '')}` : `shell-${shell?.pid ?? process.ppid}`;
  const existing = panes.find((candidate) => candidate.name === name);
  if (existing && shell && existing.shell_pid === shell.pid && existing.shell_start_time === shell.startTime) return name;
  await client.registerPane({
    name,
    source: 'cli',
    ...(shell ? { shell_pid: shell.pid, shell_start_time: shell.startTime } : {}),
    ...(tty ? { title: tty } : {}),
  });
  return name;
}

/** The job-ref when --id is not given: the program's name and its pid (unique on this machine while it runs). */
export function defaultJobRef(command: readonly string[], pid: number): string {
  const program = basename(command[0] ?? 'command').replace(/[^A-Za-z0-9_.-]/g, '_') || 'command';
  return `${program}-${pid}`.slice(0, JOB_REF_MAX_LENGTH);
}

export function describeCommand(command: readonly string[]): string {
  const text = command.join(' ');
  return text.length <= DESCRIPTION_MAX_LENGTH ? text : `${text.slice(0, DESCRIPTION_MAX_LENGTH - 1)}…`;
}

/** The release reason the ledger keeps: how the command ended. */
export function endReasonOf(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit ${code ?? 0}`;
}

interface RunOptions {
  id?: string;
  ttl?: string;
  jobType?: string;
  pane?: string;
}

interface HeldLease {
  leaseId: string;
  token: string;
}

function warn(text: string): void {
  process.stderr.write(`leasehold run: ${text}\n`);
}

/** A lease this run holds, and the client it was asked through. */
interface Holding {
  client: LeaseholdClient;
  lease: HeldLease;
}

async function holdLease(opts: ConnectionOptions, options: RunOptions, command: string[], ttlMs: number, child: ChildProcess): Promise<Holding | null> {
  let client: LeaseholdClient;
  try {
    client = connect(opts, RUN_SERVER_TIMEOUT_MS);
    const pane = await resolveRunPane(client, options.pane ?? process.env.LEASEHOLD_PANE);
    if (child.exitCode !== null || child.signalCode !== null) return null; // nothing left to wait on
    const grant = await client.holdWaitLease({
      pane,
      job_ref: options.id ?? defaultJobRef(command, child.pid!),
      ttl_ms: ttlMs,
      job_type: options.jobType,
      description: describeCommand(command),
      target: { pid: child.pid! },
    });
    return { client, lease: { leaseId: grant.lease_id, token: grant.token } };
  } catch (error) {
    // A command that ended before the server answered needs no lease, and its pid can no longer be held.
    if (child.exitCode !== null || child.signalCode !== null) return null;
    warn(`no wait-lease for this command (${describeError(error)}); running it without one`);
    return null;
  }
}

/** After a continue, the lease is looked at again this much later (past the server's 2 s hold tick). */
const REHOLD_RECHECK_MS = 5_000;

/**
 * The lease to keep after the command was continued: the current one while it is active; else
 * (degraded while the command was stopped, or ended) a new hold, the stale one released so the
 * ledger keeps what happened rather than an expiry. A lease that cannot be looked at is kept.
 */
async function holdAgainIfStale(current: Holding | null, holdNew: () => Promise<Holding | null>, child: ChildProcess): Promise<Holding | null> {
  if (!current || child.exitCode !== null || child.signalCode !== null) return current;
  try {
    const view = await current.client.getWaitLease(current.lease.leaseId);
    if (view.state === 'active') return current;
  } catch {
    return current;
  }
  await current.client.releaseWaitLease(current.lease.leaseId, current.lease.token, 'stopped, then continued: held anew').catch(() => undefined);
  return (await holdNew()) ?? current;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run a command in this terminal under a declared wait-lease held on its pid; stdin, stdout, signals and exit code pass through')
    .usage('[--id REF] [--ttl DUR] [--job-type T] [--pane NAME] -- CMD [ARGS…]')
    .option('--id <job-ref>', 'the job-ref (default: <program>-<pid>)')
    .option('--ttl <duration>', `TTL of each grant, renewed while the command runs (default ${RUN_DEFAULT_TTL_MS / 60_000}m)`)
    .option('--job-type <type>', 'shell, subagent, monitor, provider_call, build, test, other or other:<name> (default other)')
    .option('--pane <name>', 'the pane (default: LEASEHOLD_PANE, else the registered terminal this runs in, else this terminal registered)')
    .argument('<command...>', 'the command, after --')
    .action(async (command: string[], options: RunOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals() as ConnectionOptions;
      // Bad flags are refused before anything runs: a typo must not start the job leaseless.
      const ttlMs = options.ttl === undefined ? RUN_DEFAULT_TTL_MS : parseDurationMs(options.ttl, '--ttl');
      if (ttlMs <= 0) throw new UsageError('--ttl: must be positive');
      if (options.jobType !== undefined) {
        try {
          parseJobType(options.jobType);
        } catch (error) {
          throw new UsageError(`--job-type: ${(error as Error).message}`);
        }
      }
      if (options.id !== undefined && (options.id.trim() === '' || options.id.length > JOB_REF_MAX_LENGTH)) {
        throw new UsageError(`--id: must be 1 to ${JOB_REF_MAX_LENGTH} characters`);
      }
      if (command.length === 0) throw new UsageError('run needs a command: leasehold run [options] -- CMD [ARGS…]');

      const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit' });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
      });
      const forward = (signal: NodeJS.Signals) => {
        if (TERMINAL_GENERATED.has(signal) && inTerminalForeground()) return;
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      };
      for (const signal of FORWARDED) process.on(signal, forward);

      let held = child.pid === undefined ? Promise.resolve(null) : holdLease(opts, options, command, ttlMs, child);
      // Ctrl+Z stops this process and the command together; the server degrades a lease whose
      // target is stopped (it no longer vouches for a wait). Continued (fg, bg), the command
      // runs again: hold anew. Checked at once and again after the server's next hold tick, which
      // may have read the command still stopped just before it was continued.
      const rehold = () => {
        held = held.then((current) => holdAgainIfStale(current, () => holdLease(opts, options, command, ttlMs, child), child));
      };
      const recheck: NodeJS.Timeout[] = [];
      const onContinue = () => {
        rehold();
        recheck.push(setTimeout(rehold, REHOLD_RECHECK_MS).unref());
      };
      if (process.platform !== 'win32') process.on('SIGCONT', onContinue);
      const outcome = await exited;
      for (const signal of FORWARDED) process.off(signal, forward);
      process.off('SIGCONT', onContinue);
      for (const timer of recheck) clearTimeout(timer);

      if (outcome.error) {
        const missing = outcome.error.code === 'ENOENT';
        warn(`${command[0]}: ${missing ? 'command not found' : outcome.error.message}`);
        await held;
        throw new ExitWith(missing ? 127 : 126);
      }
      const holding = await held;
      if (holding) {
        try {
          await holding.client.releaseWaitLease(holding.lease.leaseId, holding.lease.token, endReasonOf(outcome.code, outcome.signal));
        } catch (error) {
          // LEASE_ENDED: the hold loop saw the pid go first; the lease ended with the command all the same.
          if ((error as { code?: string }).code !== 'LEASE_ENDED') warn(`could not release wait-lease ${holding.lease.leaseId}: ${describeError(error)}`);
        }
      }
      if (outcome.signal) {
        // Die the way the command died, so the calling shell sees the signal (e.g. 130 for SIGINT).
        process.kill(process.pid, outcome.signal);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        throw new ExitWith(128 + (osConstants.signals[outcome.signal] ?? 0));
      }
      throw new ExitWith(outcome.code ?? 1);
    });
}
