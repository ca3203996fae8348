// The server's own observations of an awaited target: a pid (with its start time, so a reused
// pid is a different process) and a provider job (a command or a loopback URL whose answer says
// running or finished). What an observation means is decided in core (evidence.ts, hold.ts).
import { spawn } from 'node:child_process';
import { LeaseholdError, invalidArgument } from '../../core/errors.ts';
import type { ChildrenIndex } from '../../core/processTree.ts';
import { type PidReading, pidTreeCpuTicks } from '../../core/waitLease/evidence.ts';
import type { ProviderJobState } from '../../core/waitLease/hold.ts';
import { type ProcessInfo, listProcessTrees, listProcesses, readProcessInfo } from '../observe/processInfo.ts';

export type ProcessReader = (pid: number) => ProcessInfo | null;
/**
 * The processes of the trees under `roots` (each root and its descendants), read at one moment:
 * what a progress marker sums. A lister may return more (the whole table): only the trees count.
 */
export type ProcessLister = (roots: readonly number[]) => ProcessInfo[];

export const defaultProcessReader: ProcessReader = readProcessInfo;
/** The trees through /proc's children files, or the whole table where there are none. */
export const defaultProcessLister: ProcessLister = (roots) => listProcessTrees(roots) ?? listProcesses();

/**
 * A pid reading for core from what the server read of it: its identity (no process, or an
 * exited-but-unreaped one, a zombie, has no start time) and, given the process-table snapshot
 * taken right after `info` (its rows, or their childrenIndex for many pids), its progress
 * marker: the process tree's CPU time, summed by core's pidTreeCpuTicks. Without a table it is
 * a liveness reading, with no marker.
 */
export function pidReadingFrom(pid: number, info: ProcessInfo | null, readAtWallMs: number, table?: readonly ProcessInfo[] | ChildrenIndex<ProcessInfo>): PidReading {
  const running = info !== null && info.pid === pid && info.state !== 'Z';
  if (!running) return { pid, startTime: null, readAtWallMs };
  const cpuTicks = table === undefined ? undefined : pidTreeCpuTicks(info, table);
  return { pid, startTime: info.startTime, readAtWallMs, ...(cpuTicks === undefined ? {} : { cpuTicks }), ...(info.state === 'T' ? { stopped: true } : {}) };
}

/** A liveness reading of a pid: one /proc/<pid>/stat (or ps) read, no progress marker. */
export function pidReadingOf(pid: number, read: ProcessReader, readAtWallMs: number): PidReading {
  return pidReadingFrom(pid, read(pid), readAtWallMs);
}

/**
 * A pid reading with its progress marker: the process, then one read of its tree for its
 * descendants. That costs a read per descendant (the whole table, a few ms on a busy machine,
 * where /proc has no children files), so this is for when a marker is written (a hold's
 * baseline, a renewal), never for a liveness check. The hold loop makes the same reading from
 * its tick's read of the pid and one read of the trees of all pids due (holdLoop.ts).
 */
export function pidProgressReadingOf(pid: number, read: ProcessReader, list: ProcessLister, readAtWallMs: number): PidReading {
  const info = read(pid);
  return pidReadingFrom(pid, info, readAtWallMs, info === null ? [] : list([pid]));
}

export interface ProviderJobTarget {
  id: string;
  command?: string[];
  url?: string;
}

export interface ProviderObservation {
  state: ProviderJobState | null;
  error?: string;
}

const STATES: readonly ProviderJobState[] = ['running', 'finished', 'failed', 'unknown'];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * The server only polls loopback URLs: a provider job is observed through a local agent or
 * proxy, and the lease server must not become a way to make requests elsewhere.
 */
export function validateProviderUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidArgument('target.provider_job.url', `provider_job.url ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalidArgument('target.provider_job.url', 'provider_job.url must be http or https');
  }
  if (!LOOPBACK.has(parsed.hostname.toLowerCase())) {
    throw invalidArgument('target.provider_job.url', `provider_job.url must be a loopback address (127.0.0.1, localhost, [::1]); got ${parsed.hostname}`);
  }
}

function stateFromJson(text: string): ProviderJobState | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(trimmed) as { state?: unknown };
    if (typeof value.state === 'string' && (STATES as readonly string[]).includes(value.state)) return value.state as ProviderJobState;
    return 'unknown';
  } catch {
    return undefined;
  }
}

/**
 * Runs the provider-job command (argv, no shell). Its answer: JSON on stdout with
 * `{"state": "running"|"finished"|"failed"|"unknown"}`, or else the exit status: 0 running,
 * 1 finished. Anything else (another status, a signal, a timeout, no such program) is a
 * failed check: the hold loop degrades the lease rather than guess.
 */
export function runProviderCommand(argv: readonly string[], timeoutMs: number): Promise<ProviderObservation> {
  return new Promise((resolve) => {
    let stdout = '';
    let settled = false;
    const done = (observation: ProviderObservation) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(observation);
    };
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], env: process.env });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ state: null, error: `the command did not answer within ${timeoutMs} ms` });
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_OUTPUT_BYTES) stdout += chunk.toString('utf8');
    });
    child.on('error', (error) => done({ state: null, error: `the command could not run: ${error.message}` }));
    child.on('close', (code, signal) => {
      const fromJson = stateFromJson(stdout);
      if (fromJson !== undefined && code === 0) return done({ state: fromJson });
      if (signal) return done({ state: null, error: `the command was killed by ${signal}` });
      if (code === 0) return done({ state: 'running' });
      if (code === 1) return done({ state: 'finished' });
      done({ state: null, error: `the command exited with status ${code}` });
    });
  });
}

/** GETs the loopback URL; expects 200 with JSON `{"state": ...}`. */
export async function fetchProviderState(url: string, timeoutMs: number): Promise<ProviderObservation> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' }, redirect: 'error' });
    const text = await response.text();
    if (response.status !== 200) return { state: null, error: `GET ${url} answered ${response.status}` };
    const state = stateFromJson(text);
    if (state === undefined) return { state: null, error: `GET ${url} did not answer JSON {"state": ...}` };
    return { state };
  } catch (error) {
    return { state: null, error: `GET ${url} failed: ${(error as Error).message}` };
  }
}

export function observeProviderJob(target: ProviderJobTarget, timeoutMs: number): Promise<ProviderObservation> {
  if (target.command) return runProviderCommand(target.command, timeoutMs);
  if (target.url) return fetchProviderState(target.url, timeoutMs);
  return Promise.resolve({ state: null, error: 'provider_job has neither a command nor a url' });
}

export function notHoldable(message: string): LeaseholdError {
  return new LeaseholdError('EVIDENCE_MISSING', message, { field: 'target' });
}
