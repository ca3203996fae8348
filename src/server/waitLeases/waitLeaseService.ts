// Panes and wait-leases applied to storage. Every rule lives in src/core/waitLease: this
// service reads the lease clock, loads records, asks core for the next record, and writes it
// with a compare-and-set (re-reading and re-deciding when something else wrote first). Every
// change is published on the ChangeBus as pane.changed / lease.changed for SSE clients.
import { LeaseholdError } from '../../core/errors.ts';
import { annotatePane, shouldShowExpiredNotice } from '../../core/waitLease/annotation.ts';
import type { ClockDomain, ClockReading } from '../../core/waitLease/clockReading.ts';
import { DEFAULT_HARD_MAX_TTL_MS, type HardMaxTtlByJobType, hardMaxTtlMsFor } from '../../core/waitLease/grant.ts';
import { pinPidTarget } from '../../core/waitLease/hold.ts';
import type { EvidenceSource, PidReading } from '../../core/waitLease/evidence.ts';
import { pidProgressToken } from '../../core/waitLease/evidence.ts';
import { DEFAULT_CHAIN_CAP_MS, DEFAULT_IDENTICAL_RENEWAL_LIMIT, progressSeen } from '../../core/waitLease/fuses.ts';
import { type TtlSuggestion, suggestTtls } from '../../core/waitLease/ttlSuggest.ts';
import {
  type LeaseOutcome,
  type ObserverDescription,
  type WaitLeaseRecord,
  acquire as acquireLease,
  consumeExpiredNotice,
  degrade,
  NO_NEWS_BOUND_MS,
  degradeIfNoNews,
  pinObserver,
  expireIfDue,
  leaseAt,
  lowerCeiling as lowerLeaseCeiling,
  markUnknown,
  endUnobserved,
  orphan,
  release as releaseLease,
  remainingMsAt,
  renew as renewLease,
  targetOf,
} from '../../core/waitLease/lease.ts';
import type { LedgerRow } from '../../core/waitLease/ledger.ts';
import { leaseViewOf } from '../../core/waitLease/leaseView.ts';
import { currentLeasesByJobRef } from '../../core/waitLease/paneLeases.ts';
import { teardownCheck, teardownLeaseStateOf } from '../../core/waitLease/teardown.ts';
import { elapsedMsSince } from '../../core/waitLease/clockReading.ts';
import { DEFAULT_RECENT_END_WINDOW_MS, computeVerdict } from '../../core/waitLease/verdict.ts';
import { newLeaseToken } from '../../core/waitLease/token.ts';
import type {
  AcquireRequest,
  GrantResponse,
  HoldRequest,
  LeaseViewWire,
  LowerCeilingResponse,
  PaneViewWire,
  RegisterPaneRequest,
  ReleaseResponse,
  RenewResponse,
  SessionBindingWire,
  TeardownCheckRequest,
  TeardownCheckResponse,
  VerdictWire,
} from '../../core/waitLease/wire.ts';
import { randomBytes } from 'node:crypto';
import { generateId, hashToken } from '../auth/tokens.ts';
import type { LeaseClock } from '../clock/leaseClock.ts';
import type { SqlExecutor } from '../db/sql.ts';
import type { ChangeBus } from '../events.ts';
import {
  defaultProcessLister,
  defaultProcessReader,
  notHoldable,
  observeProviderJob,
  pidProgressReadingOf,
  pidReadingOf,
  type ProcessLister,
  type ProcessReader,
  validateProviderUrl,
} from './observers.ts';
import type { CompareAndSetWrite, LeaseFilter, PaneRecord, StoredLease, WaitLeaseStore } from './waitLeaseStore.ts';

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
export const LEDGER_DEFAULT_LIMIT = 100;
export const LEDGER_MAX_LIMIT = 1000;
const CAS_ATTEMPTS = 64;

export interface WaitLeaseServiceOptions {
  store: WaitLeaseStore;
  clock: LeaseClock;
  bus: ChangeBus;
  /** Server setting: the most authority one acquire or renew may grant. */
  hardMaxTtlMs?: number;
  /** Per-job-type hard max TTLs (validated: each only tightens hardMaxTtlMs). */
  hardMaxTtlMsByJobType?: HardMaxTtlByJobType;
  /** The chain cap: unattended authority per job-ref chain, renewals included (default 4 h; null: none). */
  chainCapMs?: number | null;
  /** K: identical renewals in a row that escalate to a page (default 12). */
  identicalRenewalLimit?: number;
  readProcess?: ProcessReader;
  /** The process trees a held pid's progress marker sums its descendants from (default /proc's children files, else the whole table from /proc or ps). */
  listProcesses?: ProcessLister;
  providerTimeoutMs?: number;
  /** A lease was granted or shortened: the sweeper re-arms its timer. */
  onDeadlineChanged?: () => void;
  /** A held lease appeared: the hold loop may want to look at it. */
  onHoldStarted?: () => void;
  /** This server's machine (team mode): it owns what it grants and judges only that. Default 'local'. */
  machineId?: string;
  /**
   * The lease clock of another machine as this server can read it (team mode: its last
   * heartbeat projected forward, see team/machineRegistry.ts). Without it every lease is
   * read on this server's own clock.
   */
  readingFor?: (machineId: string | null) => ClockReading;
  /** Names a machine for messages ("held on machine …"). */
  machineLabel?: (machineId: string | null) => string;
}

type Ok<X> = Extract<LeaseOutcome<X>, { ok: true }>;

/** A held lease whose renewal fell due on a hold loop tick, with what its observer saw. */
export interface HeldRenewalDue {
  stored: StoredLease;
  evidence: Record<string, unknown>;
  pidReading: PidReading | null;
}

/** A renewal core decided, as compareAndSetMany writes it. */
interface HeldRenewalWrite extends CompareAndSetWrite {
  item: HeldRenewalDue;
}

function notFoundLease(id: string): LeaseholdError {
  return new LeaseholdError('not_found', `no wait-lease "${id}"`, { field: 'lease_id' });
}

function notFoundPane(name: string): LeaseholdError {
  return new LeaseholdError('not_found', `no open pane "${name}"; register it first (POST /api/v1/panes or \`leasehold pane register\`)`, { field: 'pane' });
}

/** The change a transition made, for lease.changed events. */
function changeOf(before: WaitLeaseRecord, after: WaitLeaseRecord, label: string): string {
  if (after.state === 'ended' && before.state !== 'ended') return after.endReason ?? 'ended';
  if (after.state !== before.state) return after.state;
  return label;
}

/** Whether the renewer's evidence names the process the lease is pinned on (core decides what that proves). */
function pinnedPidNamed(record: WaitLeaseRecord, pid: unknown): pid is number {
  const pinned = targetOf(record).pinnedPid;
  return pinned !== null && pinned.pid === pid;
}

export class WaitLeaseService {
  readonly store: WaitLeaseStore;
  readonly clock: LeaseClock;
  readonly hardMaxTtlMs: number;
  readonly hardMaxTtlMsByJobType: HardMaxTtlByJobType;
  readonly chainCapMs: number | null;
  readonly identicalRenewalLimit: number;
  readonly readProcess: ProcessReader;
  readonly listProcesses: ProcessLister;
  readonly providerTimeoutMs: number;
  readonly machineId: string;
  private readonly bus: ChangeBus;
  private readonly options: WaitLeaseServiceOptions;

  constructor(options: WaitLeaseServiceOptions) {
    this.options = options;
    this.store = options.store;
    this.clock = options.clock;
    this.bus = options.bus;
    this.hardMaxTtlMs = options.hardMaxTtlMs ?? DEFAULT_HARD_MAX_TTL_MS;
    this.hardMaxTtlMsByJobType = options.hardMaxTtlMsByJobType ?? {};
    this.chainCapMs = options.chainCapMs === undefined ? DEFAULT_CHAIN_CAP_MS : options.chainCapMs;
    this.identicalRenewalLimit = options.identicalRenewalLimit ?? DEFAULT_IDENTICAL_RENEWAL_LIMIT;
    this.readProcess = options.readProcess ?? defaultProcessReader;
    this.listProcesses = options.listProcesses ?? defaultProcessLister;
    this.providerTimeoutMs = options.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
    this.machineId = options.machineId ?? 'local';
  }

  /** The hard max TTL that bounds one grant of this job type (core: a per-type cap only tightens the global one). */
  hardMaxTtlMsFor(jobType: string): number {
    return hardMaxTtlMsFor(this.hardMaxTtlMs, this.hardMaxTtlMsByJobType, jobType);
  }

  /**
   * This service confined to one human (issue 9): their panes, sessions, leases and ledger
   * only. Every surface (REST, MCP, hook events, CLI through REST) acts through one of these, so
   * another human's pane or lease is the same 404 as a missing one.
   */
  forHuman(humanId: string): WaitLeaseService {
    return new WaitLeaseService({ ...this.options, store: this.store.forHuman(humanId) });
  }

  /** Whose changes this service publishes (null: the owning machine's maintenance, which names each lease's owner). */
  private get owner(): string | null {
    return this.store.humanId ?? null;
  }

  /** The clock a lease or pane is read on: this server's for its own, the owner's projection for another machine's. */
  readingFor(machineId: string | null): ClockReading {
    if (machineId === this.machineId || !this.options.readingFor) return this.clock.read();
    return this.options.readingFor(machineId);
  }

  private paneReading(pane: PaneRecord): ClockReading {
    // A pane from before team mode recorded its machine is read as local.
    return this.readingFor(pane.machineId ?? this.machineId);
  }

  // Panes ----------------------------------------------------------------------------

  /** (Re)registers a pane: always a new generation; leases of older generations end orphaned. */
  async registerPane(request: RegisterPaneRequest): Promise<PaneViewWire> {
    const { pane, orphaned } = await this.store.transaction(async (tx) => {
      const now = this.clock.read();
      let existing = await this.store.lockPane(tx, request.name);
      if (!existing) {
        // First registration: insert generation 1 (a concurrent first use may win; then we re-register over it).
        const created = this.newPaneRecord(request.name, request.source, now.wallMs);
        if (await this.store.insertPaneIfAbsent(tx, created)) {
          existing = undefined;
        } else {
          existing = await this.store.lockPane(tx, request.name);
        }
      }
      const next: PaneRecord = {
        name: request.name,
        generation: (existing?.generation ?? 0) + 1,
        source: request.source,
        shellPid: request.shell_pid ?? null,
        shellStartTime: request.shell_start_time === undefined ? null : String(request.shell_start_time),
        windowId: request.window_id ?? null,
        title: request.title ?? null,
        displayState: 'unknown',
        displayUpdatedAt: null,
        registeredAt: now.wallMs,
        closedAt: null,
        updatedAt: now.wallMs,
        machineId: this.machineId,
      };
      await this.store.updatePane(tx, next);
      const orphaned = await this.orphanOlderGenerations(tx, next);
      return { pane: next, orphaned };
    });
    this.publishLeaseChanges(orphaned, 'orphaned');
    this.bus.publish({ type: 'pane.changed', human_id: this.owner, pane: pane.name, change: pane.generation === 1 ? 'registered' : 're-registered' });
    return this.paneView(pane);
  }

  /** Closes a pane: its leases end orphaned; the next registration starts a new generation. */
  async closePane(name: string): Promise<PaneViewWire> {
    const { pane, orphaned } = await this.store.transaction(async (tx) => {
      const now = this.clock.read();
      const existing = await this.store.lockPane(tx, name);
      if (!existing || existing.closedAt !== null) throw notFoundPane(name);
      const closed: PaneRecord = { ...existing, generation: existing.generation + 1, closedAt: now.wallMs, updatedAt: now.wallMs };
      await this.store.updatePane(tx, closed);
      return { pane: closed, orphaned: await this.orphanOlderGenerations(tx, closed) };
    });
    this.publishLeaseChanges(orphaned, 'orphaned');
    this.bus.publish({ type: 'pane.changed', human_id: this.owner, pane: name, change: 'closed' });
    return this.paneView(pane);
  }

  /**
   * The open panes as a reader sees them. A read shows each pending "lease expired N ago"
   * notice once and records it as shown, so no surface (GET /panes, `leasehold pane list`, a
   * VS Code window) repeats it on the next read.
   */
  async listPanes(): Promise<PaneViewWire[]> {
    const panes = await this.store.listOpenPanes();
    const views = await Promise.all(panes.map((pane) => this.paneView(pane)));
    await this.consumeShownNotices(views);
    return views;
  }

  /** One pane as a reader sees it; its pending expired notices are shown once (see listPanes). */
  async getPane(name: string): Promise<PaneViewWire> {
    const view = await this.paneView(await this.openPane(name));
    await this.consumeShownNotices([view]);
    return view;
  }

  private async consumeShownNotices(views: readonly PaneViewWire[]): Promise<void> {
    const pending = views.flatMap((view) => view.leases.filter((lease) => lease.notice_pending === true).map((lease) => lease.lease_id));
    await Promise.all(pending.map((leaseId) => this.consumeNotice(leaseId).catch(() => undefined)));
  }

  /** Sets the display state as reported; never touches leases. */
  async setDisplayState(name: string, state: string): Promise<PaneViewWire> {
    const now = this.clock.read();
    if (!(await this.store.setDisplayState(name, state, now.wallMs))) throw notFoundPane(name);
    this.bus.publish({ type: 'pane.changed', human_id: this.owner, pane: name, change: 'display' });
    return this.getPane(name);
  }

  /**
   * The hook's display change, judged by when it was observed (a later observation wins); false
   * when a later one stands. `state` null: the display is confirmed as it stands at that time.
   */
  async setDisplayStateAsOf(name: string, state: string | null, observedAtWallMs: number): Promise<boolean> {
    const outcome = await this.store.setDisplayStateAsOf(name, state, observedAtWallMs, this.clock.read().wallMs);
    if (outcome === 'missing') throw notFoundPane(name);
    if (outcome === 'set' && state !== null) this.bus.publish({ type: 'pane.changed', human_id: this.owner, pane: name, change: 'display' });
    return outcome === 'set';
  }

  /**
   * Pins a live unheld lease on the process a late launch event found (the launch may arrive
   * after the Stop listing that leased the task first): from then on the hold loop judges it.
   */
  async pinPid(leaseId: string, target: { pid: number; start_time: string }): Promise<void> {
    const reading = pidReadingOf(target.pid, this.readProcess, this.clock.read().wallMs);
    const observer = pinPidTarget(target, reading.startTime === null ? null : reading);
    await this.transitionWithReading(
      leaseId,
      (record) => {
        const next = pinObserver(record, observer);
        return { ok: true, record: next, changed: next !== record };
      },
      'pinned',
    );
    this.options.onHoldStarted?.();
  }

  /** Binds a Claude Code session to the pane's current generation. */
  async bindSession(paneName: string, sessionId: string): Promise<SessionBindingWire> {
    const binding = await this.store.transaction(async (tx) => {
      const pane = await this.store.lockPane(tx, paneName);
      if (!pane || pane.closedAt !== null) throw notFoundPane(paneName);
      const bound = { sessionId, pane: pane.name, generation: pane.generation, boundAt: this.clock.read().wallMs, machineId: this.machineId };
      await this.store.bindSession(tx, bound);
      return bound;
    });
    this.bus.publish({ type: 'pane.changed', human_id: this.owner, pane: paneName, change: 'session_bound' });
    return { session_id: binding.sessionId, pane: binding.pane, generation: binding.generation };
  }

  /**
   * Hands a session's live leases to the session that replaced it on the same pane (Claude
   * Code's /clear: background jobs survive it and the new session's Stop lists them). The
   * leases keep their observers and expiry: one job, one lease, one ledger row.
   */
  async carrySessionLeases(fromSession: string, toSession: string): Promise<{ carried: string[] }> {
    const carried = await this.store.transaction((tx) => this.store.carrySessionLeases(tx, fromSession, toSession, this.clock.read().wallMs));
    return { carried };
  }

  /** Drops a session's pane binding (it left every terminal); returns the pane it was bound to, if any. */
  async unbindSession(sessionId: string): Promise<string | undefined> {
    const binding = await this.store.getSession(sessionId);
    if (!binding) return undefined;
    await this.store.transaction((tx) => this.store.unbindSession(tx, sessionId));
    this.bus.publish({ type: 'pane.changed', human_id: this.owner, pane: binding.pane, change: 'session_unbound' });
    return binding.pane;
  }

  /**
   * The live lease another session holds on this job, handed to `toSession`: a Claude Code task
   * id names one job, and a session that continues another (a fork moved to the background
   * daemon, whose process Claude Code may take from a pre-started spare) lists the same task.
   * Returns the lease id, or undefined when no other session holds one.
   */
  async adoptLease(jobRef: string, toSession: string): Promise<string | undefined> {
    const others = (await this.store.listLeases({ jobRef, live: true })).filter((stored) => stored.sessionId !== null && stored.sessionId !== toSession && stored.machineId === this.machineId);
    for (const stored of others) {
      const carried = await this.store.transaction((tx) => this.store.carryLease(tx, stored.record.id, toSession, this.clock.read().wallMs));
      if (carried) return stored.record.id;
    }
    return undefined;
  }

  async getSession(sessionId: string): Promise<SessionBindingWire> {
    const binding = await this.store.getSession(sessionId);
    if (!binding) throw new LeaseholdError('not_found', `session "${sessionId}" is not bound to a pane`, { field: 'session_id' });
    return { session_id: binding.sessionId, pane: binding.pane, generation: binding.generation };
  }

  /** Releases every live lease acquired for the session (the human's or the hook's release, no token). */
  async releaseSession(sessionId: string, reason?: string): Promise<{ released: string[] }> {
    const live = await this.store.listLeases({ sessionId, live: true });
    const released: string[] = [];
    for (const stored of live) {
      try {
        await this.releaseByOwner(stored.record.id, reason ?? `session ${sessionId} released all`);
        released.push(stored.record.id);
      } catch (error) {
        if (!(error instanceof LeaseholdError && error.code === 'LEASE_ENDED')) throw error;
      }
    }
    return { released };
  }

  // Lease verbs ----------------------------------------------------------------------

  async acquire(
    request: AcquireRequest,
    options: { sessionId?: string | null; observer?: ObserverDescription; initialProgressToken?: string | null } = {},
  ): Promise<GrantResponse> {
    const token = newLeaseToken((length) => randomBytes(length));
    const tokenHash = hashToken(token);
    const sessionId = options.sessionId ?? null;
    const superseded: WaitLeaseRecord[] = [];
    const { record, grant, registered } = await this.store.transaction(async (tx) => {
      superseded.length = 0; // a retried transaction decides again
      const now = this.clock.read();
      let pane = await this.store.lockPane(tx, request.pane);
      let registered = false;
      if (!pane) {
        // A pane named by the CLI comes into being on first use (generation 1).
        registered = await this.store.insertPaneIfAbsent(tx, this.newPaneRecord(request.pane, 'cli', now.wallMs));
        pane = await this.store.lockPane(tx, request.pane);
      }
      if (!pane || pane.closedAt !== null) {
        throw new LeaseholdError('conflict', `pane "${request.pane}" is closed; register it again before acquiring wait-leases on it`, { field: 'pane' });
      }
      if (sessionId !== null) {
        const binding = await this.store.getSession(sessionId, tx);
        if (binding && (binding.pane !== pane.name || binding.generation !== pane.generation)) {
          throw new LeaseholdError(
            'conflict',
            `session ${sessionId} is bound to pane "${binding.pane}" generation ${binding.generation}, not "${pane.name}" generation ${pane.generation}; a reused pane never inherits an earlier session`,
            { field: 'session_id' },
          );
        }
      }
      // Every lease of this job_ref on this generation, ended ones too: core decides the conflict and which chain continues.
      const sameJob = await this.store.listLeases({ pane: pane.name, generation: pane.generation, jobRef: request.job_ref }, tx);
      const paneLeases = sameJob.map((stored) => stored.record);
      const result = acquireLease({
        id: generateId('wl'),
        pane: pane.name,
        generation: pane.generation,
        jobRef: request.job_ref,
        ttlMs: request.ttl_ms,
        jobType: request.job_type,
        kind: request.kind,
        authorizedUntil: request.authorized_until,
        description: request.description,
        observer: options.observer,
        tokenHash,
        now,
        hardMaxTtlMs: this.hardMaxTtlMs,
        hardMaxTtlMsByJobType: this.hardMaxTtlMsByJobType,
        paneLeases,
        chainCapMs: this.chainCapMs,
        initialProgressToken: options.initialProgressToken,
      });
      await this.store.insertLease(tx, result.record, sessionId, now.wallMs, this.machineId);
      for (const ended of result.superseded) {
        // Best effort: an inferred lease that changed meanwhile is superseded by the observer's next tick.
        const version = sameJob.find((stored) => stored.record.id === ended.id)?.version;
        if (version !== undefined && (await this.store.compareAndSet(ended, version, now.wallMs, tx))) superseded.push(ended);
      }
      return { ...result, registered };
    });
    if (registered) this.bus.publish({ type: 'pane.changed', human_id: this.owner, pane: record.pane, change: 'registered' });
    this.bus.publish({ type: 'lease.changed', human_id: this.owner, pane: record.pane, lease_id: record.id, change: 'acquired' });
    this.publishLeaseChanges(superseded, 'superseded');
    this.options.onDeadlineChanged?.();
    return { lease_id: record.id, token, expires_in_ms: grant.expiresInMs, clamped_by: grant.clampedBy };
  }

  /**
   * hold: the server owns the renew loop. The target is verified now (a pid is pinned to its
   * start time; a provider job must answer running), then the hold loop re-verifies it.
   * Only the human API may have the server run a command: `allowCommand` must be passed as
   * true explicitly (the REST route does); any other caller (MCP, hook events, a future path
   * that forgets the option) is refused, so the default is the safe side.
   */
  async hold(request: HoldRequest, options: { sessionId?: string | null; allowCommand?: boolean } = {}): Promise<GrantResponse> {
    let observer: ObserverDescription;
    let initialProgressToken: string | null = null;
    const target = request.target;
    if ('pid' in target) {
      // The baseline marker is computed as every renewal's is (the process tree's CPU time).
      const reading = pidProgressReadingOf(target.pid, this.readProcess, this.listProcesses, this.clock.read().wallMs);
      observer = pinPidTarget(target, reading.startTime === null ? null : reading);
      if (observer.kind === 'pid') initialProgressToken = pidProgressToken(observer.pid, observer.startTime, reading);
    } else {
      const job = target.provider_job;
      if (job.command && options.allowCommand !== true) {
        throw new LeaseholdError('forbidden', 'provider_job.command is only accepted from the human API; an endpoint may hold a pid or a loopback provider_job.url', {
          field: 'target.provider_job.command',
        });
      }
      if (job.url) validateProviderUrl(job.url);
      const observation = await observeProviderJob(job, this.providerTimeoutMs);
      if (observation.state !== 'running') {
        throw notHoldable(
          observation.state === null || observation.state === 'unknown'
            ? `provider job ${job.id} could not be verified (${observation.error ?? 'state unknown'}); there is nothing verified to hold`
            : `provider job ${job.id} is ${observation.state}; there is no running target to hold`,
        );
      }
      observer = { kind: 'provider_job', id: job.id, ...(job.command ? { command: [...job.command] } : {}), ...(job.url ? { url: job.url } : {}) };
    }
    const grant = await this.acquire(
      {
        pane: request.pane,
        job_ref: request.job_ref,
        ttl_ms: request.ttl_ms,
        job_type: request.job_type,
        description: request.description,
        authorized_until: request.authorized_until,
      },
      { sessionId: options.sessionId, observer, initialProgressToken },
    );
    this.options.onHoldStarted?.();
    return grant;
  }

  async renew(leaseId: string, body: { token: string; ttl_ms: number; evidence?: unknown; authorized_until?: number }): Promise<RenewResponse> {
    await this.refuseUnlessOwnedHere(leaseId, 'renew');
    const tokenHash = hashToken(body.token);
    const pid = typeof body.evidence === 'object' && body.evidence !== null ? (body.evidence as { pid?: unknown }).pid : undefined;
    const { evidence, source } = await this.observedByServer(leaseId, body.evidence);
    const outcome = await this.transition(
      leaseId,
      (record, now) =>
        renewLease(record, {
          tokenHash,
          ttlMs: body.ttl_ms,
          evidence,
          source,
          // The server reads the named pid itself; the caller's word is not evidence. Core
          // refuses any pid but the lease's pinned one before it looks at a reading, so only that
          // one is read (with the process table, for its progress marker).
          pidReading: pinnedPidNamed(record, pid) ? pidProgressReadingOf(pid, this.readProcess, this.listProcesses, now.wallMs) : null,
          authorizedUntil: body.authorized_until,
          now,
          hardMaxTtlMs: this.hardMaxTtlMs,
        hardMaxTtlMsByJobType: this.hardMaxTtlMsByJobType,
          identicalRenewalLimit: this.identicalRenewalLimit,
        }),
      'renewed',
    );
    this.options.onDeadlineChanged?.();
    return { lease_id: leaseId, expires_in_ms: outcome.grant.expiresInMs, clamped_by: outcome.grant.clampedBy };
  }

  /**
   * A caller's provider-job evidence is its word only. When it names the lease's own provider
   * observer, the server observes that job itself now and renews on its own observation;
   * anything else goes to core as the caller's, where it is refused (evidence.ts).
   */
  private async observedByServer(leaseId: string, evidence: unknown): Promise<{ evidence: unknown; source: EvidenceSource }> {
    const job = typeof evidence === 'object' && evidence !== null ? (evidence as { provider_job?: { id?: unknown } }).provider_job : undefined;
    if (typeof job !== 'object' || job === null) return { evidence, source: 'caller' };
    const observer = (await this.store.getLease(leaseId))?.record.observer;
    if (observer?.kind !== 'provider_job' || observer.id !== job.id) return { evidence, source: 'caller' };
    const answer = await observeProviderJob(observer, this.providerTimeoutMs);
    return { evidence: { provider_job: { id: observer.id, state: answer.state ?? 'unknown', observed_at: this.clock.read().wallMs } }, source: 'server' };
  }

  async release(leaseId: string, token: string, reason?: string): Promise<ReleaseResponse> {
    const tokenHash = hashToken(token);
    await this.transition(leaseId, (record, now) => releaseLease(record, { tokenHash, reason, now }), 'released');
    return { lease_id: leaseId, end_reason: 'released' };
  }

  /** The human releases without the lease token (the extension's "Release Wait-Lease…"). */
  async releaseByOwner(leaseId: string, reason?: string): Promise<ReleaseResponse> {
    await this.transition(leaseId, (record, now) => releaseLease(record, { tokenHash: record.tokenHash, reason: reason ?? 'released by its owner', now }), 'released');
    return { lease_id: leaseId, end_reason: 'released' };
  }

  /** Ends a lease whose job's end was not observed (ledger censoring `unknown`, not `exact`); see core endUnobserved. */
  async endUnobservedByOwner(leaseId: string, reason: string): Promise<{ lease_id: string; end_reason: 'orphaned' }> {
    await this.transition(leaseId, (record, now) => endUnobserved(record, { reason, now }), 'orphaned');
    return { lease_id: leaseId, end_reason: 'orphaned' };
  }

  async lowerCeiling(leaseId: string, token: string, authorizedUntil: number): Promise<LowerCeilingResponse> {
    const tokenHash = hashToken(token);
    const { outcome, now } = await this.transitionWithReading(
      leaseId,
      (record, reading) => lowerLeaseCeiling(record, { tokenHash, authorizedUntil, now: reading }),
      'ceiling_lowered',
    );
    this.options.onDeadlineChanged?.();
    return {
      lease_id: leaseId,
      authorized_until: outcome.record.authorizedUntilWallMs ?? authorizedUntil,
      expires_in_ms: remainingMsAt(outcome.record, now),
      state: leaseAt(outcome.record, now).state,
    };
  }

  /**
   * Renewal needs evidence only the owning machine can have (its processes, its clock): a
   * renew through another machine's server is refused and changes nothing.
   */
  private async refuseUnlessOwnedHere(leaseId: string, verb: string): Promise<void> {
    const stored = await this.store.getLease(leaseId);
    if (!stored) throw notFoundLease(leaseId);
    if (stored.machineId === this.machineId || stored.record.state === 'ended') return;
    const where = this.options.machineLabel?.(stored.machineId) ?? stored.machineId ?? 'an unrecorded machine';
    throw new LeaseholdError(
      'conflict',
      `wait-lease ${leaseId} was granted on machine ${where}, not this one; ${verb} it through that machine's lease server (only it can see the job's evidence and clock)`,
      { field: 'lease_id' },
    );
  }

  async consumeNotice(leaseId: string): Promise<LeaseViewWire> {
    const { outcome, now, stored } = await this.transitionWithReading(
      leaseId,
      (record, now) => {
        const next = consumeExpiredNotice(record, now);
        return { ok: true, record: next, changed: next !== record };
      },
      'notice_consumed',
    );
    return this.leaseView({ ...stored, record: outcome.record }, now);
  }

  // Reads ----------------------------------------------------------------------------

  async listLeases(filter: { pane?: string; state?: WaitLeaseRecord['state']; sessionId?: string; limit?: number } = {}): Promise<LeaseViewWire[]> {
    const query: LeaseFilter = { pane: filter.pane, sessionId: filter.sessionId };
    // A lease can be ended at `now` before the sweeper wrote it, so state filters apply to the view.
    if (filter.state !== undefined && filter.state !== 'ended') query.live = true;
    const stored = await this.store.listLeases(query);
    const views = stored.map((lease) => this.leaseView(lease, this.readingFor(lease.machineId))).filter((view) => filter.state === undefined || view.state === filter.state);
    return filter.limit !== undefined ? views.slice(-filter.limit) : views;
  }

  async getLease(leaseId: string): Promise<LeaseViewWire> {
    const stored = await this.store.getLease(leaseId);
    if (!stored) throw notFoundLease(leaseId);
    return this.leaseView(stored, this.readingFor(stored.machineId));
  }

  async verdict(paneName: string): Promise<VerdictWire> {
    const pane = await this.openPane(paneName);
    const now = this.paneReading(pane);
    const leases = await this.store.listLeases({ pane: pane.name, generation: pane.generation });
    return computeVerdict({ name: pane.name, generation: pane.generation, displayState: pane.displayState }, leases.map((stored) => stored.record), now);
  }

  async teardownCheck(request: TeardownCheckRequest): Promise<TeardownCheckResponse> {
    const pane = await this.openPane(request.pane);
    const now = this.paneReading(pane);
    const leases = await this.store.listLeases({ pane: pane.name, generation: pane.generation });
    const lease = teardownLeaseStateOf(
      leases.map((stored) => stored.record),
      request.job_ref,
      now,
    );
    const check = teardownCheck({
      lease,
      jobHeartbeatAgeMs: request.job_heartbeat_age_ms,
      heartbeatStaleAfterMs: request.heartbeat_stale_after_ms,
      quietForMs: request.quiet_for_ms,
      policyFloorMs: request.policy_floor_ms,
    });
    return { allowed: check.allowed, unmet: check.unmet, lease };
  }

  /** The ledger: recorded, never read on a decision path. */
  ledger(filter: { jobType?: string; kind?: string; endReason?: string; since?: number; limit?: number }): Promise<LedgerRow[]> {
    const limit = Math.min(LEDGER_MAX_LIMIT, filter.limit ?? LEDGER_DEFAULT_LIMIT);
    return this.store.ledger({ ...filter, limit });
  }

  /**
   * Measured-TTL suggestions per job type (core ttlSuggest.ts): from released, exactly-censored
   * rows only. Shown to a human, never applied: no decision path calls this.
   */
  async suggestTtls(filter: { kind?: string; since?: number; percentile?: number; minSamples?: number }): Promise<TtlSuggestion[]> {
    const rows = await this.store.measuredDurations({ kind: filter.kind, since: filter.since });
    return suggestTtls(rows, { percentile: filter.percentile, minSamples: filter.minSamples });
  }

  // Maintenance (sweeper, clock watcher, hold loop) ------------------------------------

  /** Ends the lease as expired when it is due; returns true when it was written. */
  async expire(leaseId: string): Promise<boolean> {
    const { changed } = await this.transitionWithReading(
      leaseId,
      (record, now) => {
        const next = expireIfDue(record, now);
        return { ok: true, record: next, changed: next !== record };
      },
      'expired',
    );
    return changed;
  }

  /** Degrades the lease when its no-news bound has passed (core's degradeIfNoNews); true when it changed. */
  async degradeIfNoNews(leaseId: string): Promise<boolean> {
    const { changed } = await this.transitionWithReading(
      leaseId,
      (record, now) => {
        const next = degradeIfNoNews(record, now, NO_NEWS_BOUND_MS);
        return { ok: true, record: next, changed: next !== record };
      },
      'degraded',
    );
    return changed;
  }

  /** Makes every active or degraded lease granted in `domain` UNKNOWN (reboot, unverifiable restart, unexplained discontinuity). */
  async markDomainUnknown(domain: ClockDomain, explanation: string): Promise<number> {
    let count = 0;
    for (const stored of await this.store.liveLeasesInDomain(domain, this.machineId)) {
      const { changed } = await this.transitionWithReading(
        stored.record.id,
        (record, now) => {
          const next = markUnknown(record, { reason: explanation, now });
          return { ok: true, record: next, changed: next !== record };
        },
        'unknown',
      );
      if (changed) count += 1;
    }
    return count;
  }

  /**
   * A machine that stopped answering (no heartbeat for the bound, see team/machineRegistry.ts):
   * its active and degraded leases become UNKNOWN, because nobody can verify them any more,
   * and end as expired once their time is up on its projected clock (it only runs ahead).
   * null: leases from before ownership was recorded that no machine adopted.
   */
  async markMachineUnknown(machineId: string | null, explanation: string): Promise<number> {
    let count = 0;
    for (const stored of await this.store.liveLeasesOfMachine(machineId)) {
      const { changed } = await this.transitionWithReading(
        stored.record.id,
        (record, now) => {
          const next = expireIfDue(markUnknown(record, { reason: explanation, now }), now);
          return { ok: true, record: next, changed: next !== record };
        },
        'unknown',
      );
      if (changed) count += 1;
    }
    return count;
  }

  /**
   * The token-free renew of the server's own observers: the hold loop (`source` server) and a
   * hook lease's session reporting its task list (`lease_observer`; the caller must have checked
   * the lease belongs to that session). `ageMs`: how long ago the evidence was observed; the
   * renewal grants no more than it would have then.
   */
  async renewHeld(leaseId: string, evidence: Record<string, unknown>, pidReading: PidReading | null, source: Exclude<EvidenceSource, 'caller'>, ageMs = 0): Promise<void> {
    await this.transition(leaseId, this.heldRenewal(evidence, pidReading, source, ageMs), 'renewed');
    this.options.onDeadlineChanged?.();
  }

  /**
   * renewHeld for many leases at once (the hold loop's tick), from the rows the tick read: each
   * renewal is decided in core as one at a time would be, and the ones that change their lease
   * are written by the store's compareAndSetMany, which takes them as they are decided (on
   * PostgreSQL the database writes one batch while core decides the next). A lease written
   * meanwhile (its version moved) or refused goes the one-at-a-time way, which reads it again
   * and decides again. When a write failed it is returned as `failure`, beside how many were
   * renewed, and nothing goes the one-at-a-time way: the next tick sees every lease as it is.
   */
  async renewHeldMany(due: readonly HeldRenewalDue[], source: Exclude<EvidenceSource, 'caller'>): Promise<{ renewed: number; failure?: unknown }> {
    const oneAtATime: HeldRenewalDue[] = [];
    const writes: HeldRenewalWrite[] = [];
    // One reading per machine for the whole tick: the renewals are decided at one instant.
    const readings = new Map<string | null, ClockReading>();
    const decide = function* (this: WaitLeaseService): Generator<HeldRenewalWrite> {
      for (const item of due) {
        let now = readings.get(item.stored.machineId);
        if (now === undefined) {
          now = this.readingFor(item.stored.machineId);
          readings.set(item.stored.machineId, now);
        }
        const outcome = this.heldRenewal(item.evidence, item.pidReading, source)(item.stored.record, now);
        if (!outcome.ok) oneAtATime.push(item);
        else if (outcome.changed) {
          const write = { item, before: item.stored.record, record: outcome.record, expectedVersion: item.stored.version, now: now.wallMs };
          writes.push(write);
          yield write;
        }
      }
    };
    const written = await this.store.compareAndSetMany(decide.call(this));
    const failed = 'error' in written;
    let renewed = 0;
    for (const write of writes) {
      if (!written.applied.has(write.record.id)) {
        if (!failed) oneAtATime.push(write.item);
        continue;
      }
      renewed += 1;
      this.bus.publish({ type: 'lease.changed', human_id: write.item.stored.humanId, pane: write.record.pane, lease_id: write.record.id, change: changeOf(write.before, write.record, 'renewed') });
    }
    if (renewed > 0) this.options.onDeadlineChanged?.();
    if (failed) return { renewed, failure: written.error };
    for (const item of oneAtATime) {
      try {
        await this.renewHeld(item.stored.record.id, item.evidence, item.pidReading, source);
        renewed += 1;
      } catch (error) {
        // A refusal or a lease that ended meanwhile: the next tick sees its new state.
        if (!(error instanceof LeaseholdError)) throw error;
      }
    }
    return { renewed };
  }

  /** The renewal a server-side observer makes: the lease's own token, its declared TTL less the evidence's age. */
  private heldRenewal(evidence: Record<string, unknown>, pidReading: PidReading | null, source: Exclude<EvidenceSource, 'caller'>, ageMs = 0) {
    return (record: WaitLeaseRecord, now: ClockReading) =>
      renewLease(record, {
        tokenHash: record.tokenHash,
        ttlMs: Math.max(1, record.declaredTtlMs - Math.max(0, ageMs)),
        evidence,
        source,
        pidReading,
        now,
        hardMaxTtlMs: this.hardMaxTtlMs,
        hardMaxTtlMsByJobType: this.hardMaxTtlMsByJobType,
        identicalRenewalLimit: this.identicalRenewalLimit,
      });

  }

  /** A sign of progress the server saw between renewals (a command's output, wall ms): recorded on the lease (core fuses.ts). */
  async noteProgress(leaseId: string, atWallMs: number): Promise<void> {
    await this.transitionWithReading(
      leaseId,
      (record, now): LeaseOutcome => {
        if (leaseAt(record, now).state !== 'active') return { ok: true, record, changed: false };
        const at = { wallMs: atWallMs, bootMs: now.bootMs - Math.max(0, now.wallMs - atWallMs), bootId: now.domain.bootId };
        const progress = progressSeen(record.progress, at);
        return progress === record.progress ? { ok: true, record, changed: false } : { ok: true, record: { ...record, progress }, changed: true };
      },
      'progress',
    );
  }

  async releaseHeld(leaseId: string, reason: string): Promise<void> {
    await this.transition(leaseId, (record, now) => releaseLease(record, { tokenHash: record.tokenHash, reason, now }), 'released');
  }

  async degradeHeld(leaseId: string, reason: string): Promise<void> {
    await this.transitionWithReading(
      leaseId,
      (record, now) => {
        const next = degrade(record, { reason, now });
        return { ok: true, record: next, changed: next !== record };
      },
      'degraded',
    );
  }

  // Internals ------------------------------------------------------------------------

  private newPaneRecord(name: string, source: PaneRecord['source'], nowWallMs: number): PaneRecord {
    return {
      name,
      generation: 1,
      source,
      shellPid: null,
      shellStartTime: null,
      windowId: null,
      title: null,
      displayState: 'unknown',
      displayUpdatedAt: null,
      registeredAt: nowWallMs,
      closedAt: null,
      updatedAt: nowWallMs,
      machineId: this.machineId,
    };
  }

  private async openPane(name: string): Promise<PaneRecord> {
    const pane = await this.store.getPane(name);
    if (!pane || pane.closedAt !== null) throw notFoundPane(name);
    return pane;
  }

  private async orphanOlderGenerations(tx: SqlExecutor, pane: PaneRecord): Promise<WaitLeaseRecord[]> {
    const orphaned: WaitLeaseRecord[] = [];
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const live = (await this.store.listLeases({ pane: pane.name, live: true }, tx)).filter((stored) => stored.record.generation < pane.generation);
      if (live.length === 0) return orphaned;
      for (const stored of live) {
        const now = this.readingFor(stored.machineId);
        const next = orphan(stored.record, { paneGeneration: pane.generation, now });
        if (next === stored.record) continue;
        if (await this.store.compareAndSet(next, stored.version, now.wallMs, tx)) orphaned.push(next);
      }
    }
    throw new LeaseholdError('unavailable', `could not orphan the leases of pane "${pane.name}" under contention; retry`);
  }

  private publishLeaseChanges(records: readonly WaitLeaseRecord[], change: string): void {
    for (const record of records) this.bus.publish({ type: 'lease.changed', human_id: this.owner, pane: record.pane, lease_id: record.id, change: record.endReason ?? change });
  }

  private async transition<X extends object>(
    leaseId: string,
    step: (record: WaitLeaseRecord, now: ClockReading) => LeaseOutcome<X>,
    label: string,
  ): Promise<Ok<X>> {
    return (await this.transitionWithReading(leaseId, step, label)).outcome;
  }

  /**
   * Read, decide (core), compare-and-set; on a lost race read again and decide again. A
   * refusal that still changed the record (swept to expired, EVIDENCE_MISSING remembered) is
   * written before the refusal is thrown.
   */
  private async transitionWithReading<X extends object>(
    leaseId: string,
    step: (record: WaitLeaseRecord, now: ClockReading) => LeaseOutcome<X>,
    label: string,
  ): Promise<{ outcome: Ok<X>; now: ClockReading; stored: StoredLease; changed: boolean }> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const stored = await this.store.getLease(leaseId);
      if (!stored) throw notFoundLease(leaseId);
      const now = this.readingFor(stored.machineId);
      const outcome = step(stored.record, now);
      if (outcome.changed) {
        if (!(await this.store.compareAndSet(outcome.record, stored.version, now.wallMs))) continue;
        this.bus.publish({ type: 'lease.changed', human_id: stored.humanId, pane: outcome.record.pane, lease_id: leaseId, change: changeOf(stored.record, outcome.record, outcome.ok ? label : 'refused') });
      }
      if (!outcome.ok) throw outcome.error;
      return { outcome: outcome as Ok<X>, now, stored, changed: outcome.changed };
    }
    throw new LeaseholdError('unavailable', `wait-lease ${leaseId} is changing too fast to apply this write; retry`, { field: 'lease_id' });
  }

  leaseView(stored: StoredLease, now: ClockReading): LeaseViewWire {
    const view = leaseViewOf(stored.record, now);
    const current = leaseAt(stored.record, now);
    return {
      ...view,
      session_id: stored.sessionId,
      // Core decides what a pending notice is (annotation.ts); the server only reports it.
      notice_pending: shouldShowExpiredNotice(current),
    };
  }

  private async paneView(pane: PaneRecord): Promise<PaneViewWire> {
    const now = this.paneReading(pane);
    const stored = pane.closedAt === null ? await this.store.listLeases({ pane: pane.name, generation: pane.generation }) : [];
    const byId = new Map(stored.map((lease) => [lease.record.id, lease]));
    const current = currentLeasesByJobRef(
      stored.map((lease) => lease.record),
      pane.generation,
      now,
    );
    const shown = current.filter(
      (lease) =>
        lease.state !== 'ended' ||
        shouldShowExpiredNotice(lease) ||
        (lease.endedAt !== null && elapsedMsSince(lease.endedAt, now) <= DEFAULT_RECENT_END_WINDOW_MS),
    );
    const annotation = annotatePane({ displayState: pane.displayState, generation: pane.generation, leases: current, now });
    return {
      name: pane.name,
      generation: pane.generation,
      display_state: pane.displayState,
      leases: shown.map((lease) => {
        const stored = byId.get(lease.id)!;
        return this.leaseView(stored, this.readingFor(stored.machineId));
      }),
      annotation: annotation.text,
      source: pane.source,
      shell_pid: pane.shellPid,
      shell_start_time: pane.shellStartTime,
      window_id: pane.windowId,
      title: pane.title,
      registered_at: pane.registeredAt,
      sessions: pane.closedAt === null ? await this.store.sessionsOf(pane.name, pane.generation) : [],
    };
  }
}
