// Renewal evidence: a fresh observation of the awaited target itself. "My process is alive" or
// a bare "still running" proves only the renewer's liveness, so it is refused like no evidence.
import { LeaseholdError } from '../errors.ts';
import { type ChildrenIndex, type ProcessNode, descendantsIn } from '../processTree.ts';

/** How old an observation may be and still renew a lease. */
export const DEFAULT_EVIDENCE_FRESHNESS_MS = 60_000;
/** How far in the future an observed_at may lie (clock skew between processes on one machine). */
export const EVIDENCE_FUTURE_SKEW_MS = 5_000;

/** What the server itself read about a pid (the caller does the /proc or ps I/O). */
export interface PidReading {
  pid: number;
  /** The start time of the process now holding that pid; null when no such process exists. */
  startTime: string | null;
  /** Wall time of the read. */
  readAtWallMs: number;
  /** The process is stopped (Ctrl+Z, SIGSTOP): alive, but nothing of it runs until it is continued. */
  stopped?: boolean;
  /**
   * CPU time the process tree has used (clock ticks, user + system; pidTreeCpuTicks), when the
   * platform says: the progress marker. Absent in a reading taken only to check liveness.
   */
  cpuTicks?: number | null;
}

/** One process-table row as the server read it: CPU ticks of the process and of its children it waited for. */
export interface ProcessCpuRow extends ProcessNode {
  cpuTicks?: number;
}

/**
 * The progress rule for a held pid: the CPU time of the whole tree under it, from one snapshot
 * of the process table. The process's own ticks (which include its children it has waited for)
 * plus every descendant's: `leasehold run -- npm test` holds npm, which idles while its child
 * mocha works, and a Claude Code Bash wrapper shell only waits on the command it runs. A child
 * that exited but was not yet waited for (a zombie) still counts its own ticks; once reaped they
 * are in its parent's, so the sum does not dip. A process reparented away (a daemon) is not
 * counted. Undefined when the platform gives no CPU time for the process itself (macOS `ps`).
 * `table`: the snapshot's rows, or their childrenIndex when many pids are read from one snapshot.
 * Every pid marker (the baseline at hold time and each renewal's) is computed by this function.
 */
export function pidTreeCpuTicks(root: { pid: number; cpuTicks?: number | null }, table: readonly ProcessCpuRow[] | ChildrenIndex<ProcessCpuRow>): number | undefined {
  if (typeof root.cpuTicks !== 'number') return undefined;
  let ticks = root.cpuTicks;
  for (const descendant of descendantsIn(root.pid, table)) ticks += descendant.cpuTicks ?? 0;
  return ticks;
}

/** A verified observation of the target, stored on the lease as last_evidence. */
export type TargetObservation =
  | { kind: 'pid'; pid: number; startTime: string; observedAtWallMs: number; progress?: string }
  | { kind: 'provider_job'; id: string; state: 'running'; observedAtWallMs: number; progress?: string };

/** The longest progress marker kept (a caller's or a provider's `progress` value). */
export const PROGRESS_MAX_LENGTH = 200;

/** An optional progress marker: a short string or a number; anything else is ignored (it is not evidence). */
function progressMarker(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, PROGRESS_MAX_LENGTH);
  return undefined;
}

/** The progress marker of a server pid reading: the process tree's CPU time it read (pidTreeCpuTicks), when the platform says. */
function cpuMarker(reading: PidReading): string | undefined {
  return typeof reading.cpuTicks === 'number' ? `cpu:${reading.cpuTicks}` : undefined;
}

/** The progress token of a pid as the server just read it (a hold's baseline at pin time). */
export function pidProgressToken(pid: number, startTime: string, reading: PidReading): string {
  return progressTokenOf({ kind: 'pid', pid, startTime, observedAtWallMs: reading.readAtWallMs, ...(cpuMarker(reading) === undefined ? {} : { progress: cpuMarker(reading) }) });
}

/** The progress token of an observation (fuses.ts): the target's identity plus its progress marker. */
export function progressTokenOf(observation: TargetObservation): string {
  const identity = observation.kind === 'pid' ? `pid:${observation.pid}:${observation.startTime}` : `provider_job:${observation.id}`;
  return observation.progress === undefined ? identity : `${identity}|${observation.progress}`;
}

/**
 * Who made the observation. `server`: the server itself (a pid it read, a provider job it
 * polled). `lease_observer`: the observer the lease names (the Claude Code session a hook lease
 * belongs to, reporting its own task list through the server). `caller`: whoever presents the
 * token; its word about a provider job is not an observation (it could name any job, at any time).
 */
export type EvidenceSource = 'server' | 'lease_observer' | 'caller';

/** What the lease is about: the pinned process, if any, and the job a provider observation must name. */
export interface LeaseTarget {
  /** The process pinned at hold time (pid + start time); null when the lease pins none. */
  pinnedPid: { pid: number; startTime: string } | null;
  /** The job a provider observation must name: the provider observer's id, else the lease's job_ref. */
  jobId: string;
}

export interface EvidenceContext {
  nowWallMs: number;
  freshnessMs: number;
  /** The server's own reading of the pid named in pid evidence; absent means it could not read it. */
  pidReading?: PidReading | null;
  /** The lease's own target: evidence about anything else (the renewer's own shell, a made-up job) is refused. */
  target: LeaseTarget;
  source: EvidenceSource;
}

function missing(message: string): LeaseholdError {
  return new LeaseholdError('EVIDENCE_MISSING', message, { field: 'evidence' });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A process start time as an opaque, exactly compared string ("" and non-scalars are not identity). */
export function normalizeStartTime(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return null;
}

function requireFresh(observedAtWallMs: number, context: EvidenceContext, what: string): void {
  const age = context.nowWallMs - observedAtWallMs;
  if (age > context.freshnessMs) {
    throw missing(`${what} was observed ${age} ms ago; renewal needs an observation at most ${context.freshnessMs} ms old`);
  }
  if (age < -EVIDENCE_FUTURE_SKEW_MS) {
    throw missing(`${what} has observed_at ${-age} ms in the future; a timestamp from the future cannot prove freshness`);
  }
}

function judgePidEvidence(evidence: Record<string, unknown>, context: EvidenceContext): TargetObservation {
  const pid = evidence.pid;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) {
    throw missing('evidence.pid must be a positive whole number naming the awaited process');
  }
  const startTime = normalizeStartTime(evidence.start_time);
  if (startTime === null) {
    throw missing('pid evidence needs start_time: a pid alone can belong to a reused process, so it does not identify the target');
  }
  const pinned = context.target.pinnedPid;
  if (pinned === null) {
    throw missing(`pid ${pid} is not this lease's target: the lease pins no process (hold --pid pins one), so no pid can renew it`);
  }
  if (pinned.pid !== pid || pinned.startTime !== startTime) {
    throw missing(`pid ${pid} (started ${startTime}) is not this lease's target, pid ${pinned.pid} started ${pinned.startTime}; evidence about another process (the renewer's own shell, say) proves nothing`);
  }
  const reading = context.pidReading;
  if (!reading || reading.pid !== pid) {
    throw missing(`the server could not verify pid ${pid}; renewal needs the server's own reading of the target`);
  }
  if (reading.startTime === null) throw missing(`pid ${pid} is not running; the awaited target has ended`);
  if (reading.startTime !== startTime) {
    throw missing(`pid ${pid} now belongs to a process started at ${reading.startTime}, not ${startTime}: the pid was reused, the target has ended`);
  }
  requireFresh(reading.readAtWallMs, context, `pid ${pid}`);
  // The caller's own progress value wins; else the CPU time the server read moves with work done.
  const progress = progressMarker(evidence.progress) ?? cpuMarker(reading);
  return { kind: 'pid', pid, startTime, observedAtWallMs: reading.readAtWallMs, ...(progress === undefined ? {} : { progress }) };
}

function judgeProviderJobEvidence(job: unknown, context: EvidenceContext): TargetObservation {
  if (!isRecord(job)) throw missing('evidence.provider_job must be an object {id, state, observed_at}');
  if (typeof job.id !== 'string' || job.id.trim() === '') {
    throw missing('evidence.provider_job.id is required: an observation without the job identity proves nothing about the target');
  }
  if (job.id !== context.target.jobId) {
    throw missing(`provider job ${JSON.stringify(job.id)} is not this lease's job ${JSON.stringify(context.target.jobId)}; only an observation of the lease's own job renews it`);
  }
  if (context.source === 'caller') {
    throw missing(
      `provider job ${job.id} was reported by the caller: its observed_at is the caller's word, not an observation; provider evidence must be observed by the server (hold --provider-command / --provider-url) or by the observer the lease names`,
    );
  }
  if (job.state !== 'running') {
    throw missing(`provider job ${job.id} is ${JSON.stringify(job.state)}, not running; only a running target renews a lease`);
  }
  const observedAt = job.observed_at;
  if (typeof observedAt !== 'number' || !Number.isSafeInteger(observedAt)) {
    throw missing('evidence.provider_job.observed_at is required: wall-clock ms of the observation');
  }
  requireFresh(observedAt, context, `provider job ${job.id}`);
  const progress = progressMarker(job.progress);
  return { kind: 'provider_job', id: job.id, state: 'running', observedAtWallMs: observedAt, ...(progress === undefined ? {} : { progress }) };
}

/**
 * Judges renewal evidence: a verified {pid, start_time} that is the lease's pinned target, or a
 * fresh running observation of the lease's own provider job made by the server or by the
 * observer the lease names (issue 8, evidence rule 1). Anything else (absent, `{alive: true}`, `"still running"`, a pid without start
 * time) is refused with EVIDENCE_MISSING. Takes `unknown` on purpose: the wire layer passes
 * evidence through untouched so that a bare liveness claim is answered with the reason code,
 * not with a schema error.
 */
export function judgeRenewalEvidence(evidence: unknown, context: EvidenceContext): TargetObservation {
  if (evidence === undefined || evidence === null) {
    throw missing('renew requires evidence: a fresh observation of the awaited target ({pid, start_time} or {provider_job: {id, state, observed_at}})');
  }
  if (!isRecord(evidence)) {
    throw missing(`evidence ${JSON.stringify(evidence)} names no target; a bare liveness claim is not evidence`);
  }
  if ('provider_job' in evidence) return judgeProviderJobEvidence(evidence.provider_job, context);
  if ('pid' in evidence) return judgePidEvidence(evidence, context);
  throw missing('evidence names no target (expected {pid, start_time} or {provider_job: {...}}); "alive" or "still running" is not evidence');
}
