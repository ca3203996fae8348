// The server-owned renew loop of `hold`, as a pure decision per tick: the server observes the
// target (pid via /proc or ps, provider job via its command or URL) and asks what to do. It
// renews only while the target verifies, releases when the target has ended, and degrades the
// lease (and stops) when it cannot verify it, or when the target is stopped (Ctrl+Z): a stopped
// job is waited on by nobody, and its lease must stop suppressing the stall alarm. The holder
// holds anew once its job is continued (`leasehold run` does, on SIGCONT).
import { LeaseholdError, invalidArgument } from '../errors.ts';
import { type PidReading, normalizeStartTime } from './evidence.ts';
import type { ObserverDescription, WaitLeaseRecord } from './lease.ts';

export type ProviderJobState = 'running' | 'finished' | 'failed' | 'unknown';

/** One observation by the server's observer; `null` reading / `error` mean the check itself failed. */
export type HoldObservation =
  | { kind: 'pid'; reading: PidReading | null; error?: string }
  | { kind: 'provider_job'; state: ProviderJobState | null; observedAtWallMs: number; error?: string };

export type HoldStep =
  /** Call renew with exactly these evidence and pidReading arguments. */
  | { action: 'renew'; evidence: Record<string, unknown>; pidReading: PidReading | null }
  /** The target ended: release the lease with this reason. */
  | { action: 'release'; reason: string }
  /** The target cannot be verified: degrade the lease with this reason and stop. */
  | { action: 'degrade'; reason: string }
  /** The lease is no longer active: the loop ends for it. */
  | { action: 'stop' };

export function decideHoldStep(lease: WaitLeaseRecord, observation: HoldObservation): HoldStep {
  if (lease.state !== 'active') return { action: 'stop' };
  const observer = lease.observer;
  if (observer.kind === 'pid' && observation.kind === 'pid') {
    const reading = observation.reading;
    if (observation.error || reading === null) return { action: 'degrade', reason: `pid ${observer.pid} could not be checked: ${observation.error ?? 'no reading'}` };
    if (reading.startTime === null) return { action: 'release', reason: `target pid ${observer.pid} exited` };
    if (reading.startTime !== observer.startTime) {
      return { action: 'release', reason: `target pid ${observer.pid} exited (the pid now belongs to a process started at ${reading.startTime})` };
    }
    if (reading.stopped) return { action: 'degrade', reason: `target pid ${observer.pid} is stopped (Ctrl+Z or SIGSTOP): nothing of it runs until it is continued` };
    return { action: 'renew', evidence: { pid: observer.pid, start_time: observer.startTime }, pidReading: reading };
  }
  if (observer.kind === 'provider_job' && observation.kind === 'provider_job') {
    if (observation.error || observation.state === null || observation.state === 'unknown') {
      return { action: 'degrade', reason: `provider job ${observer.id} could not be checked: ${observation.error ?? 'state unknown'}` };
    }
    if (observation.state !== 'running') return { action: 'release', reason: `provider job ${observer.id} ${observation.state}` };
    return {
      action: 'renew',
      evidence: { provider_job: { id: observer.id, state: 'running', observed_at: observation.observedAtWallMs } },
      pidReading: null,
    };
  }
  return { action: 'degrade', reason: `observation of kind ${observation.kind} does not match the lease's ${observer.kind} observer` };
}

/**
 * Pins a hold's pid target at hold time: the start time the caller gave must match the
 * server's reading; when none was given, the reading's start time is pinned, so pid reuse is
 * caught from then on. A target that is not running cannot be held.
 */
export function pinPidTarget(target: { pid: unknown; start_time?: unknown }, reading: PidReading | null): ObserverDescription {
  const pid = target.pid;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) throw invalidArgument('target.pid', 'target.pid must be a positive whole number');
  const given = target.start_time === undefined || target.start_time === null ? null : normalizeStartTime(target.start_time);
  if (target.start_time !== undefined && target.start_time !== null && given === null) {
    throw invalidArgument('target.start_time', 'target.start_time must be a non-empty string or a whole number');
  }
  if (!reading || reading.pid !== pid || reading.startTime === null) {
    throw new LeaseholdError('EVIDENCE_MISSING', `pid ${pid} is not running (or cannot be read); there is no target to hold`, { field: 'target' });
  }
  if (given !== null && given !== reading.startTime) {
    throw new LeaseholdError('EVIDENCE_MISSING', `pid ${pid} belongs to a process started at ${reading.startTime}, not ${given}: not the awaited target`, {
      field: 'target',
    });
  }
  return { kind: 'pid', pid, startTime: reading.startTime };
}
