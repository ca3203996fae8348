// The wait-lease state machine as pure transitions. A lease is a time-boxed, token-guarded
// claim that a pane (at one generation) is waiting on one job. Transitions take the record
// and a clock reading and return the next record; nothing here stores, reads a clock or
// hashes. The one-way rule is structural: no transition leaves `ended`.
import { LeaseholdError, invalidArgument } from '../errors.ts';
import { type ClockDomain, type ClockReading, type Instant, instantOf } from './clockReading.ts';
import { DEFAULT_EVIDENCE_FRESHNESS_MS, type EvidenceSource, type LeaseTarget, type PidReading, type TargetObservation, judgeRenewalEvidence, progressTokenOf } from './evidence.ts';
import {
  type ChainState,
  DEFAULT_IDENTICAL_RENEWAL_LIMIT,
  EMPTY_PROGRESS,
  type ProgressState,
  advanceProgress,
  chainCapReached,
  chainFor,
  chainPredecessor,
  chainRemainingMs,
} from './fuses.ts';
import {
  type AuthorityCeiling,
  type ClampReason,
  type Grant,
  ceilingReached,
  ceilingRemainingMs,
  clampGrant,
  type HardMaxTtlByJobType,
  hardMaxTtlMsFor,
  projectCeiling,
  validateAuthorizedUntil,
  validateTtlMs,
} from './grant.ts';
import { type JobType, type LeaseKind, kindForConsumers, parseJobType, parseLeaseKind } from './jobType.ts';
import { hashesEqual } from './token.ts';

export type WaitLeaseState = 'active' | 'degraded' | 'unknown' | 'ended';
export type EndReason = 'released' | 'expired' | 'orphaned';
/** Which bound an expired lease ran into: its TTL/hard max, the operator's ceiling, or its job-ref chain's cap (fuses.ts). */
export type ExpiredBy = 'ttl' | 'authorized_until' | 'chain_cap';

/** Who verifies the awaited target between renewals. */
export type ObserverDescription =
  | { kind: 'none' }
  | { kind: 'pid'; pid: number; startTime: string }
  | { kind: 'provider_job'; id: string; command?: string[]; url?: string };

export const JOB_REF_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 120;
export const RELEASE_NOTE_MAX_LENGTH = 200;

export interface WaitLeaseRecord {
  id: string;
  pane: string;
  /** The pane generation this lease is bound to; a newer generation orphans it. */
  generation: number;
  jobRef: string;
  jobType: JobType;
  kind: LeaseKind;
  /** Human label of what is awaited ("npm test"); display only. */
  description: string | null;
  /** Hash of the bearer token; the token itself is never stored. */
  tokenHash: string;
  /** TTL asked for at acquire (ledger: not trustworthy as a duration estimate). */
  declaredTtlMs: number;
  grantedAt: Instant;
  /** The clock domain the boot-time fields below belong to. */
  clockDomain: ClockDomain;
  renewedAt: Instant | null;
  renewCount: number;
  expiresAtBootMs: number;
  /** Expiry on the wall timeline as of the last grant: display, and the only judge once the domain is lost. */
  expiresAtWallMs: number;
  /** The operator's ceiling (absolute wall ms) and its projection onto the boot timeline. */
  authorizedUntilWallMs: number | null;
  authorizedUntilBootMs: number | null;
  /** Clamps that bound the last grant. */
  clampedBy: ClampReason[];
  state: WaitLeaseState;
  /** Why the lease is degraded or unknown. */
  stateReason: string | null;
  endReason: EndReason | null;
  expiredBy: ExpiredBy | null;
  endedAt: Instant | null;
  /** The releaser's reason: release is not completion, so it is kept. */
  releaseNote: string | null;
  observer: ObserverDescription;
  lastEvidence: TargetObservation | null;
  /** The last renew refused for missing evidence (cleared by a successful renew); feeds EVIDENCE_MISSING. */
  lastRefusal: { code: 'EVIDENCE_MISSING'; message: string; at: Instant } | null;
  /** The one-shot "lease expired N ago" notice has been shown. */
  expiredNoticeConsumed: boolean;
  /** The job-ref chain this lease belongs to and its cap (fuses.ts). */
  chain: ChainState;
  /** Progress tokens of its renewals: identical ones in a row, the last sign of progress (fuses.ts). */
  progress: ProgressState;
}

/** The result of a transition that can be refused. On refusal `record` may still differ from the input (e.g. swept to expired): persist it when `changed`. */
export type LeaseOutcome<Extra = object> =
  | ({ ok: true; record: WaitLeaseRecord; changed: boolean } & Extra)
  | { ok: false; error: LeaseholdError; record: WaitLeaseRecord; changed: boolean };

function refused(error: LeaseholdError, original: WaitLeaseRecord, record: WaitLeaseRecord = original) {
  return { ok: false as const, error, record, changed: record !== original };
}

export function ceilingOf(record: WaitLeaseRecord): AuthorityCeiling | null {
  if (record.authorizedUntilWallMs === null) return null;
  return { wallMs: record.authorizedUntilWallMs, bootMs: record.authorizedUntilBootMs ?? Number.NEGATIVE_INFINITY };
}

function sameDomain(a: ClockDomain, b: ClockDomain): boolean {
  return a.bootId === b.bootId && a.countsSuspend === b.countsSuspend;
}

function tokenMismatch(record: WaitLeaseRecord): LeaseholdError {
  return new LeaseholdError('TOKEN_MISMATCH', `the token does not match wait-lease ${record.id}; every write must present the token issued at acquire`, { field: 'token' });
}

function endedError(record: WaitLeaseRecord): LeaseholdError {
  if (record.expiredBy === 'chain_cap') return chainCapReached(record.jobRef, `wait-lease ${record.id} ended at the chain's deadline`);
  if (record.expiredBy === 'authorized_until') {
    return new LeaseholdError('OWNER_WINDOW_ENDED', `wait-lease ${record.id} reached its authorized_until; machine renewal past the ceiling is refused`, {
      field: 'authorized_until',
    });
  }
  return new LeaseholdError('LEASE_ENDED', `wait-lease ${record.id} has ended (${record.endReason}); an ended lease never comes back, acquire a new one`, {
    field: 'lease_id',
    details: { end_reason: record.endReason },
  });
}

function validateJobRef(input: unknown): string {
  if (typeof input !== 'string' || input.trim() === '') throw invalidArgument('job_ref', 'job_ref is required: the id of the awaited job');
  if (input.length > JOB_REF_MAX_LENGTH) throw invalidArgument('job_ref', `job_ref must be at most ${JOB_REF_MAX_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(input)) throw invalidArgument('job_ref', 'job_ref must not contain control characters');
  return input;
}

function validateOptionalText(input: unknown, field: string, maxLength: number): string | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'string') throw invalidArgument(field, `${field} must be a string`);
  // eslint-disable-next-line no-control-regex
  const text = input.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (text.length > maxLength) throw invalidArgument(field, `${field} must be at most ${maxLength} characters`);
  return text === '' ? null : text;
}

// ---------------------------------------------------------------------------------------------
// Reading a lease at a point in time

/**
 * Ends the lease as expired when its time is up: the boot clock has passed its expiry, or the
 * ceiling is reached by either clock. When the reading is from another clock domain (the lease
 * is normally UNKNOWN by then) only the wall clock can judge. Returns the same object when
 * nothing is due.
 */
export function expireIfDue(record: WaitLeaseRecord, now: ClockReading): WaitLeaseRecord {
  if (record.state === 'ended') return record;
  const inDomain = sameDomain(record.clockDomain, now.domain);
  const ceiling = ceilingOf(record);
  const ttlDue = inDomain ? now.bootMs >= record.expiresAtBootMs : now.wallMs >= record.expiresAtWallMs;
  const ceilingDueByWall = ceiling !== null && now.wallMs >= ceiling.wallMs;
  const ceilingDueByBoot = ceiling !== null && inDomain && now.bootMs >= ceiling.bootMs;
  if (!ttlDue && !ceilingDueByWall && !ceilingDueByBoot) return record;

  const byCeiling =
    ceiling !== null &&
    (ceilingDueByWall || ceilingDueByBoot) &&
    (!ttlDue || ceiling.bootMs <= record.expiresAtBootMs || ceiling.wallMs <= record.expiresAtWallMs);

  // ended_at is the instant authority ran out, not the (possibly late) sweep, so the ledger
  // and the "expired N ago" notice do not depend on when the sweeper ran.
  let endedAt: Instant;
  if (inDomain) {
    const candidates = [now.bootMs];
    if (ttlDue) candidates.push(record.expiresAtBootMs);
    if (ceilingDueByBoot && ceiling) candidates.push(ceiling.bootMs);
    if (ceilingDueByWall && ceiling) candidates.push(now.bootMs - (now.wallMs - ceiling.wallMs));
    const bootMs = Math.max(record.grantedAt.bootMs, Math.min(...candidates));
    endedAt = { bootMs, wallMs: now.wallMs - (now.bootMs - bootMs), bootId: now.domain.bootId };
  } else {
    const wallMs = Math.min(now.wallMs, record.expiresAtWallMs, ceiling?.wallMs ?? Number.POSITIVE_INFINITY);
    endedAt = { bootMs: record.expiresAtBootMs, wallMs, bootId: record.clockDomain.bootId };
  }
  // A grant clamped to the chain's deadline that runs out there ran into the chain cap.
  const byChain = !byCeiling && record.chain.deadlineBootMs !== null && record.expiresAtBootMs >= record.chain.deadlineBootMs;
  return { ...record, state: 'ended', endReason: 'expired', expiredBy: byCeiling ? 'authorized_until' : byChain ? 'chain_cap' : 'ttl', endedAt };
}

/** Valid = counts for `waiting`: active, and not due at `now`. Degraded and unknown leases are not valid. */
export function isValidAt(record: WaitLeaseRecord, now: ClockReading): boolean {
  return expireIfDue(record, now).state === 'active';
}

/** Authority left at `now` by the stricter clock; 0 when ended or due. For degraded/unknown leases it is the nominal time left. */
export function remainingMsAt(record: WaitLeaseRecord, now: ClockReading): number {
  const current = expireIfDue(record, now);
  if (current.state === 'ended') return 0;
  const inDomain = sameDomain(record.clockDomain, now.domain);
  const byTtl = inDomain ? record.expiresAtBootMs - now.bootMs : record.expiresAtWallMs - now.wallMs;
  const ceiling = ceilingOf(record);
  const byCeiling = ceiling === null ? Number.POSITIVE_INFINITY : inDomain ? ceilingRemainingMs(ceiling, now) : ceiling.wallMs - now.wallMs;
  return Math.max(0, Math.min(byTtl, byCeiling));
}

// ---------------------------------------------------------------------------------------------
// acquire

export interface AcquireInput {
  id: string;
  pane: string;
  /** The pane's current generation; the lease is bound to it. */
  generation: number;
  jobRef: unknown;
  ttlMs: unknown;
  jobType?: unknown;
  kind?: unknown;
  authorizedUntil?: unknown;
  description?: unknown;
  observer?: ObserverDescription;
  /** Hash of the freshly generated token (see token.ts); the caller returns the token itself. */
  tokenHash: string;
  now: ClockReading;
  /** The global hard max TTL of one grant. */
  hardMaxTtlMs: number;
  /** Per-job-type caps; each can only tighten hardMaxTtlMs. */
  hardMaxTtlMsByJobType?: HardMaxTtlByJobType;
  /**
   * The pane's leases at this generation: the set is keyed by job_ref. Ended ones of the same
   * job_ref are needed too: they decide which job-ref chain the new lease continues.
   */
  paneLeases: readonly WaitLeaseRecord[];
  /** The chain cap in force (null: none). */
  chainCapMs?: number | null;
  /** The token of the target as observed at acquire (a hold's pinned pid): the progress baseline. */
  initialProgressToken?: string | null;
}

/**
 * Creates a lease. Refuses (throws LeaseholdError): a missing or invalid ttl_ms, job_ref,
 * job_type or kind (invalid_argument); an authorized_until already reached
 * (OWNER_WINDOW_ENDED, it would grant nothing); a job_ref that already has a valid lease on
 * this pane generation (conflict: renew it with its token, or release it first). A degraded
 * or unknown lease for the same job_ref does not block: the new lease supersedes it in views.
 */
export function acquire(input: AcquireInput): { record: WaitLeaseRecord; grant: Grant; superseded: WaitLeaseRecord[] } {
  const ttlMs = validateTtlMs(input.ttlMs);
  const jobRef = validateJobRef(input.jobRef);
  const jobType = parseJobType(input.jobType);
  const kind = parseLeaseKind(input.kind);
  const description = validateOptionalText(input.description, 'description', DESCRIPTION_MAX_LENGTH);
  const authorizedUntil = validateAuthorizedUntil(input.authorizedUntil);
  const { now } = input;

  const sameJob = input.paneLeases.filter((lease) => lease.pane === input.pane && lease.generation === input.generation && lease.jobRef === jobRef);
  // A declared lease supersedes an inferred one for the same job (inferred.ts); the reverse never happens.
  const supersedes = (lease: WaitLeaseRecord) => kind === 'declared' && kindForConsumers(lease.kind) === 'inferred';
  const holder = sameJob.find((lease) => isValidAt(lease, now) && !supersedes(lease));
  if (holder) {
    throw new LeaseholdError(
      'conflict',
      `pane ${input.pane} already holds a valid wait-lease (${holder.id}) for job_ref ${jobRef}; renew it with its token or release it first`,
      { field: 'job_ref', details: { lease_id: holder.id } },
    );
  }

  const ceiling = authorizedUntil === null ? null : projectCeiling(authorizedUntil, now);
  if (ceilingReached(ceiling, now)) {
    throw new LeaseholdError('OWNER_WINDOW_ENDED', `authorized_until ${authorizedUntil} is not in the future; it would grant no authority`, {
      field: 'authorized_until',
    });
  }
  // The cap bounds unattended authority; an inferred lease grants none (it never satisfies
  // "safe to keep billing"), so it runs uncapped: a long-lived agent process is no anomaly.
  const capMs = kind === 'declared' ? (input.chainCapMs ?? null) : null;
  const chain = chainFor(chainPredecessor(input.paneLeases, input.pane, input.generation, jobRef), now, capMs, jobRef);
  const grant = clampGrant({
    now,
    ttlMs,
    hardMaxTtlMs: hardMaxTtlMsFor(input.hardMaxTtlMs, input.hardMaxTtlMsByJobType, jobType),
    ceiling,
    chainRemainingMs: chainRemainingMs(chain, now),
  });
  const record: WaitLeaseRecord = {
    id: input.id,
    pane: input.pane,
    generation: input.generation,
    jobRef,
    jobType,
    kind,
    description,
    tokenHash: input.tokenHash,
    declaredTtlMs: ttlMs,
    grantedAt: instantOf(now),
    clockDomain: { ...now.domain },
    renewedAt: null,
    renewCount: 0,
    expiresAtBootMs: grant.expiresAtBootMs,
    expiresAtWallMs: grant.expiresAtWallMs,
    authorizedUntilWallMs: ceiling?.wallMs ?? null,
    authorizedUntilBootMs: ceiling?.bootMs ?? null,
    clampedBy: grant.clampedBy,
    state: 'active',
    stateReason: null,
    endReason: null,
    expiredBy: null,
    endedAt: null,
    releaseNote: null,
    observer: input.observer ?? { kind: 'none' },
    lastEvidence: null,
    lastRefusal: null,
    expiredNoticeConsumed: false,
    chain,
    progress: { ...EMPTY_PROGRESS, token: input.initialProgressToken ?? null },
  };
  const superseded = sameJob
    .filter((lease) => supersedes(lease) && lease.state !== 'ended')
    .map((lease) => endUnobserved(lease, { reason: `superseded by declared wait-lease ${record.id}`, now }).record)
    .filter((lease) => lease.endReason === 'orphaned');
  return { record, grant, superseded };
}

// ---------------------------------------------------------------------------------------------
// lowering the ceiling (shared by lowerCeiling and renew)

/** Applies a lower ceiling at once; refuses a raise. Equal is a no-op. Does not end the lease. */
function withLoweredCeiling(record: WaitLeaseRecord, authorizedUntilWallMs: number, now: ClockReading): WaitLeaseRecord {
  const previous = ceilingOf(record);
  if (previous !== null && authorizedUntilWallMs > previous.wallMs) {
    throw invalidArgument(
      'authorized_until',
      `authorized_until can only be lowered (current ${previous.wallMs}, asked ${authorizedUntilWallMs}); raising or clearing a ceiling is refused`,
    );
  }
  const ceiling = projectCeiling(authorizedUntilWallMs, now, previous);
  const grantedFromNow = ceilingRemainingMs(ceiling, now);
  return {
    ...record,
    authorizedUntilWallMs: ceiling.wallMs,
    authorizedUntilBootMs: ceiling.bootMs,
    expiresAtBootMs: Math.min(record.expiresAtBootMs, now.bootMs + grantedFromNow),
    expiresAtWallMs: Math.min(record.expiresAtWallMs, now.wallMs + grantedFromNow),
  };
}

export interface LowerCeilingInput {
  tokenHash: string;
  authorizedUntil: unknown;
  now: ClockReading;
}

/**
 * Lowers authorized_until; the lower value applies at once and ends the lease (expired by
 * authorized_until) when it is already reached: early revocation is a lowered ceiling. A
 * raise, or a clear (null/absent), is refused with invalid_argument naming authorized_until.
 */
export function lowerCeiling(record: WaitLeaseRecord, input: LowerCeilingInput): LeaseOutcome {
  if (input.authorizedUntil === undefined || input.authorizedUntil === null) {
    return refused(invalidArgument('authorized_until', 'authorized_until is required; a ceiling can be lowered but never cleared'), record);
  }
  let value: number | null;
  try {
    value = validateAuthorizedUntil(input.authorizedUntil);
  } catch (error) {
    return refused(error as LeaseholdError, record);
  }
  if (!hashesEqual(input.tokenHash, record.tokenHash)) return refused(tokenMismatch(record), record);
  const swept = expireIfDue(record, input.now);
  if (swept.state === 'ended') {
    return refused(new LeaseholdError('LEASE_ENDED', `wait-lease ${record.id} has ended (${swept.endReason}); there is no authority left to lower`, { field: 'lease_id' }), record, swept);
  }
  let lowered: WaitLeaseRecord;
  try {
    lowered = withLoweredCeiling(swept, value as number, input.now);
  } catch (error) {
    return refused(error as LeaseholdError, record, swept);
  }
  const next = expireIfDue(lowered, input.now);
  return { ok: true, record: next, changed: true };
}

// ---------------------------------------------------------------------------------------------
// renew

export interface RenewInput {
  tokenHash: string;
  ttlMs: unknown;
  evidence: unknown;
  /** The server's own reading of the pid named in pid evidence (it does the I/O). */
  pidReading?: PidReading | null;
  /** Who observed what `evidence` reports (evidence.ts): a caller's word about a provider job renews nothing. */
  source: EvidenceSource;
  /** Optional lower ceiling supplied with the renewal; it can only lower. */
  authorizedUntil?: unknown;
  now: ClockReading;
  hardMaxTtlMs: number;
  /** Per-job-type caps; each can only tighten hardMaxTtlMs. */
  hardMaxTtlMsByJobType?: HardMaxTtlByJobType;
  freshnessMs?: number;
  /** K: identical renewals in a row that escalate to a page (default DEFAULT_IDENTICAL_RENEWAL_LIMIT). */
  identicalRenewalLimit?: number;
}

/** The lease's own target, which renewal evidence must be about. */
export function targetOf(record: WaitLeaseRecord): LeaseTarget {
  const observer = record.observer;
  return {
    pinnedPid: observer.kind === 'pid' ? { pid: observer.pid, startTime: observer.startTime } : null,
    jobId: observer.kind === 'provider_job' ? observer.id : record.jobRef,
  };
}

/**
 * Re-authorizes a lease under the same clamps. Refusals, in order: invalid ttl_ms or
 * authorized_until (invalid_argument); wrong token (TOKEN_MISMATCH); a lease whose clock
 * domain is not the reading's, or that is UNKNOWN (conflict: its expiry cannot be trusted,
 * release and acquire anew); ended, including expired-by-time but not yet swept (LEASE_ENDED,
 * or OWNER_WINDOW_ENDED when the ceiling ended it); no fresh target evidence
 * (EVIDENCE_MISSING, remembered on the record for verdicts); ceiling reached
 * (OWNER_WINDOW_ENDED, the lease ends). A degraded lease renewed with verified evidence is
 * active again: the target re-verified.
 */
export function renew(record: WaitLeaseRecord, input: RenewInput): LeaseOutcome<{ grant: Grant }> {
  const { now } = input;
  let ttlMs: number;
  let authorizedUntil: number | null;
  try {
    ttlMs = validateTtlMs(input.ttlMs);
    authorizedUntil = validateAuthorizedUntil(input.authorizedUntil);
  } catch (error) {
    return refused(error as LeaseholdError, record);
  }
  if (!hashesEqual(input.tokenHash, record.tokenHash)) return refused(tokenMismatch(record), record);

  if (record.state !== 'ended' && !sameDomain(record.clockDomain, now.domain)) {
    const unknown = markUnknown(record, { reason: 'renewed from another clock domain (reboot or unverifiable restart)', now });
    return refused(
      new LeaseholdError('conflict', `wait-lease ${record.id} was granted in another clock domain; its expiry cannot be trusted: release it and acquire a new one`, { field: 'lease_id' }),
      record,
      unknown,
    );
  }
  const swept = expireIfDue(record, now);
  if (swept.state === 'ended') return refused(endedError(swept), record, swept);
  if (swept.state === 'unknown') {
    return refused(
      new LeaseholdError('conflict', `wait-lease ${record.id} is UNKNOWN (${swept.stateReason ?? 'clock unverifiable'}); release it and acquire a new one`, { field: 'lease_id' }),
      record,
      swept,
    );
  }

  // The ceiling change is input validation against the stored ceiling (a raise is refused), so
  // it is judged before the evidence: a bad request must not leave a remembered
  // EVIDENCE_MISSING behind. It is applied only if the renewal succeeds.
  let bounded = swept;
  if (authorizedUntil !== null) {
    try {
      bounded = withLoweredCeiling(swept, authorizedUntil, now);
    } catch (error) {
      return refused(error as LeaseholdError, record, swept);
    }
  }

  let observation: TargetObservation;
  try {
    observation = judgeRenewalEvidence(input.evidence, {
      nowWallMs: now.wallMs,
      freshnessMs: input.freshnessMs ?? DEFAULT_EVIDENCE_FRESHNESS_MS,
      pidReading: input.pidReading,
      target: targetOf(swept),
      source: input.source,
    });
  } catch (error) {
    const refusal = error as LeaseholdError;
    const remembered = { ...swept, lastRefusal: { code: 'EVIDENCE_MISSING' as const, message: refusal.message, at: instantOf(now) } };
    return refused(refusal, record, remembered);
  }
  const ceiling = ceilingOf(bounded);
  if (ceilingReached(ceiling, now)) {
    // Only reachable through a ceiling lowered by this very call (an earlier one was swept above).
    const ended = expireIfDue(bounded, now);
    return refused(endedError(ended), record, ended);
  }

  const grant = clampGrant({
    now,
    ttlMs,
    hardMaxTtlMs: hardMaxTtlMsFor(input.hardMaxTtlMs, input.hardMaxTtlMsByJobType, record.jobType),
    ceiling,
    chainRemainingMs: chainRemainingMs(bounded.chain, now),
  });
  // The renewal counts as of its observation (a replayed listing is older news than its replay),
  // so the no-news bound runs from when the job was last seen.
  const age = Math.max(0, now.wallMs - observation.observedAtWallMs);
  const next: WaitLeaseRecord = {
    ...bounded,
    state: 'active',
    stateReason: null,
    renewedAt: { bootMs: now.bootMs - age, wallMs: now.wallMs - age, bootId: now.domain.bootId },
    renewCount: bounded.renewCount + 1,
    expiresAtBootMs: grant.expiresAtBootMs,
    expiresAtWallMs: grant.expiresAtWallMs,
    clampedBy: grant.clampedBy,
    lastEvidence: observation,
    lastRefusal: null,
    // A pid observed with no progress marker (the platform reads no CPU time, as on macOS, and
    // the caller gave no progress value) says nothing about progress: such a renewal neither
    // counts toward NO_PROGRESS nor resets the count, so a busy job is not paged for the
    // platform's blindness (the chain cap still bounds it).
    progress:
      observation.kind === 'pid' && observation.progress === undefined
        ? bounded.progress
        : advanceProgress(
            bounded.progress,
            progressTokenOf(observation),
            now,
            input.identicalRenewalLimit ?? DEFAULT_IDENTICAL_RENEWAL_LIMIT,
            kindForConsumers(bounded.kind) === 'declared',
          ),
  };
  return { ok: true, record: next, changed: true, grant };
}

// ---------------------------------------------------------------------------------------------
// release, orphan, degrade, unknown, notices

export interface ReleaseInput {
  tokenHash: string;
  /** Why it was released (release is not completion); optional free text, kept for the ledger. */
  reason?: unknown;
  now: ClockReading;
}

/**
 * Ends the lease as released. Token conditional (TOKEN_MISMATCH). Releasing an ended lease,
 * including one whose time ran out but was not yet swept, answers LEASE_ENDED and leaves the
 * end reason as it was (an expired lease is not rewritten to released), so a retried release
 * is safe and tells the truth.
 */
export function release(record: WaitLeaseRecord, input: ReleaseInput): LeaseOutcome {
  let note: string | null;
  try {
    note = validateOptionalText(input.reason, 'reason', RELEASE_NOTE_MAX_LENGTH);
  } catch (error) {
    return refused(error as LeaseholdError, record);
  }
  if (!hashesEqual(input.tokenHash, record.tokenHash)) return refused(tokenMismatch(record), record);
  const swept = expireIfDue(record, input.now);
  if (swept.state === 'ended') {
    return refused(
      new LeaseholdError('LEASE_ENDED', `wait-lease ${record.id} had already ended (${swept.endReason})`, { field: 'lease_id', details: { end_reason: swept.endReason } }),
      record,
      swept,
    );
  }
  const next: WaitLeaseRecord = { ...swept, state: 'ended', endReason: 'released', expiredBy: null, endedAt: instantOf(input.now), releaseNote: note };
  return { ok: true, record: next, changed: true };
}

/** A newer pane generation orphans this lease (the pane was reopened or reused). Same object when not applicable. */
export function orphan(record: WaitLeaseRecord, input: { paneGeneration: number; now: ClockReading }): WaitLeaseRecord {
  if (record.state === 'ended' || record.generation >= input.paneGeneration) return record;
  const swept = expireIfDue(record, input.now);
  if (swept.state === 'ended') return swept;
  return { ...swept, state: 'ended', endReason: 'orphaned', expiredBy: null, endedAt: instantOf(input.now) };
}

/**
 * Ends a lease whose job's end was NOT observed (its session left, or a listing stopped naming
 * it): the wait is over for the pane, but when the job ended is not known, so the ledger must
 * not call the measured time exact. Recorded as `orphaned` (censoring `unknown`) with the
 * reason as its note; `released` (exact) is kept for ends that were seen (a pid exit, a
 * task-notification, SubagentStop, a listing with a finished status). Same object when ended.
 */
export function endUnobserved(record: WaitLeaseRecord, input: { reason: string; now: ClockReading }): LeaseOutcome {
  const swept = expireIfDue(record, input.now);
  if (swept.state === 'ended') {
    return refused(
      new LeaseholdError('LEASE_ENDED', `wait-lease ${record.id} had already ended (${swept.endReason})`, { field: 'lease_id', details: { end_reason: swept.endReason } }),
      record,
      swept,
    );
  }
  const note = input.reason.length <= RELEASE_NOTE_MAX_LENGTH ? input.reason : `${input.reason.slice(0, RELEASE_NOTE_MAX_LENGTH - 1)}…`;
  const next: WaitLeaseRecord = { ...swept, state: 'ended', endReason: 'orphaned', expiredBy: null, endedAt: instantOf(input.now), releaseNote: note };
  return { ok: true, record: next, changed: true };
}

/** The target could not be verified: stop trusting renewals from the hold loop. Only an active lease degrades. */
export function degrade(record: WaitLeaseRecord, input: { reason: string; now: ClockReading }): WaitLeaseRecord {
  const swept = expireIfDue(record, input.now);
  if (swept.state !== 'active') return swept;
  return { ...swept, state: 'degraded', stateReason: input.reason };
}

/**
 * Gives an active lease that pins nothing the observer a late-found target provides (a pid
 * verified by the caller): the hold loop judges it from then on. Anything else is unchanged:
 * an observer once pinned is never replaced.
 */
export function pinObserver(record: WaitLeaseRecord, observer: ObserverDescription): WaitLeaseRecord {
  if (record.state !== 'active' || record.observer.kind !== 'none' || observer.kind === 'none') return record;
  return { ...record, observer };
}

// ---------------------------------------------------------------------------------------------
// the no-news bound (issue 8 item 3)

/**
 * How long a lease that names no target the server can verify (observer `none`: a hook's
 * declared subagent, a Bash whose process was not found, a CLI acquire) may go without news
 * (its grant, or a renewal on its own session's listing) and still read "waiting". Past it the
 * lease is degraded: nothing vouches that its job still runs, so it no longer suppresses a
 * stall alarm for the rest of its TTL. A pinned target is checked by the hold loop instead.
 */
export const NO_NEWS_BOUND_MS = 10 * 60_000;

/** The boot-clock instant at which an active unverifiable lease stops reading waiting; null when the bound does not apply. */
export function noNewsDeadlineBootMs(record: WaitLeaseRecord, boundMs: number): number | null {
  if (record.state !== 'active' || record.observer.kind !== 'none') return null;
  return (record.renewedAt ?? record.grantedAt).bootMs + boundMs;
}

/**
 * Degrades an active lease with no verifiable target once `boundMs` passed without news. Judged
 * on the boot clock within the lease's domain (another domain is the clock watcher's to judge);
 * the same object when nothing is due.
 */
export function degradeIfNoNews(record: WaitLeaseRecord, now: ClockReading, boundMs: number): WaitLeaseRecord {
  const deadline = noNewsDeadlineBootMs(record, boundMs);
  if (deadline === null || !sameDomain(record.clockDomain, now.domain) || now.bootMs < deadline) return record;
  const news = record.renewedAt === null ? 'its grant' : 'its last renewal';
  const minutes = Math.round(boundMs / 60_000);
  const bound = minutes >= 1 ? `${minutes}m` : `${Math.round(boundMs / 1000)}s`;
  return degrade(record, {
    reason: `no news for ${bound} since ${news}: the lease names no target the server can verify, so it no longer vouches that the job runs`,
    now,
  });
}

/**
 * The clock cannot vouch for this lease (reboot, unverifiable restart, unexplained
 * discontinuity). Not swept first on purpose: the boot clock is the thing in doubt.
 */
export function markUnknown(record: WaitLeaseRecord, input: { reason: string; now: ClockReading }): WaitLeaseRecord {
  if (record.state !== 'active' && record.state !== 'degraded') return record;
  return { ...record, state: 'unknown', stateReason: input.reason };
}

/** Applies a clock judgement (judgeContinuity or judgeRestart) to leases: active and degraded ones become UNKNOWN when it says so. */
export function applyClockJudgement(
  records: readonly WaitLeaseRecord[],
  judgement: { leasesBecomeUnknown: boolean; explanation: string },
  now: ClockReading,
): WaitLeaseRecord[] {
  if (!judgement.leasesBecomeUnknown) return [...records];
  return records.map((record) => markUnknown(record, { reason: judgement.explanation, now }));
}

/**
 * Records that the one-shot "lease expired N ago" notice was shown. Only an expired lease has
 * a notice to consume: on a lease that is still live (or was released/orphaned) this is a
 * no-op, because consuming early would silently suppress the notice it later owes the human.
 * Swept first, so a lease whose time ran out but was not yet written counts as expired.
 */
export function consumeExpiredNotice(record: WaitLeaseRecord, now: ClockReading): WaitLeaseRecord {
  const swept = expireIfDue(record, now);
  if (swept.state !== 'ended' || swept.endReason !== 'expired' || swept.expiredNoticeConsumed) return swept;
  return { ...swept, expiredNoticeConsumed: true };
}

/**
 * The lease as it stands at `now`, for views only (never persisted by itself): swept if due,
 * degraded past the no-news bound, and UNKNOWN when the reading comes from another clock domain
 * than the one it was granted in.
 */
export function leaseAt(record: WaitLeaseRecord, now: ClockReading): WaitLeaseRecord {
  const swept = expireIfDue(record, now);
  // The no-news bound is judged here too, so a read between sweeps already tells the truth.
  if (swept.state === 'ended' || sameDomain(record.clockDomain, now.domain)) return degradeIfNoNews(swept, now, NO_NEWS_BOUND_MS);
  return markUnknown(swept, { reason: 'granted in another clock domain', now });
}
