// Applies Claude Code hook events (`{id, ops}`, src/core/wire/hookOps.ts) through the
// WaitLeaseService, once per event id, whether they arrive over HTTP (POST
// /api/v1/hook-events) or from the spool the hook wrote while the server was down.
//
// Order: every apply (a direct event, a spool replay at start or on the tick) runs on one
// serial queue, and a direct event first drains whatever is spooled, so an event spooled
// earlier is never overtaken by a later one delivered directly.
//
// Exactly once: the hook assigned the id before its first attempt. An id recorded in
// hook_events is answered `duplicate: true` and changes nothing. The record is written after
// the ops, not in one transaction with them, because each op is a WaitLeaseService write with
// its own transaction (and its compare-and-set retries). A crash between the two replays the
// event once more, so every op is written to be idempotent on its own: binding and display
// are set-to-a-value, acquire keeps an existing live lease of the same job_ref, releases of an
// ended lease are no-ops, and reconcile converges to the listing.
//
// Ownership: the server acquires hook leases on the session's behalf and keeps no token (the
// hook never sees one); it renews and releases them with the token-free owner paths, like the
// hold loop does for its leases.
import { readdirSync } from 'node:fs';
import { LeaseholdError } from '../../core/errors.ts';
import { DESCRIPTION_MAX_LENGTH } from '../../core/waitLease/lease.ts';
import type { JobType } from '../../core/waitLease/jobType.ts';
import { HookEventSchema } from '../../core/wire/hookOps.ts';
import type { HookEvent, HookEventResponse, HookJobType, HookOp, HookOpResult, PaneHint } from '../../core/wire/hookOps.ts';
import { parseWire } from '../../core/wire/validate.ts';
import { replaySpool } from '../../runtime/spool.ts';
import type { ReplayResult, SpooledEvent } from '../../runtime/spool.ts';
import type { Db } from '../db/sql.ts';
import type { WaitLeaseService } from '../waitLeases/waitLeaseService.ts';
import { isSameProcess } from '../observe/processInfo.ts';
import { SpoolState } from './spoolState.ts';

export interface HookEventLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface HookEventServiceOptions {
  db: Db;
  waitLeases: WaitLeaseService;
  /** The human whose hooks spool into this runtime dir: replayed events act for them. */
  spoolHumanId: string;
  /** <runtime dir>/spool */
  spoolDir: string;
  logger?: HookEventLogger;
  /** How often the spool is replayed (also at start). 0 disables the timer (tests call replayNow). */
  replayIntervalMs?: number;
  /** How long an applied id is remembered. */
  retentionMs?: number;
}

export const DEFAULT_REPLAY_INTERVAL_MS = 2_000;
export const DEFAULT_HOOK_EVENT_RETENTION_MS = 14 * 24 * 3600_000;

type Detail = Record<string, unknown>;

interface Observation {
  atWallMs: number;
  ageMs: number;
}

/** Hook job types → the server's enforced vocabulary (workflow has no base type). */
const SERVER_JOB_TYPE: Record<HookJobType, JobType> = {
  shell: 'shell',
  subagent: 'subagent',
  monitor: 'monitor',
  workflow: 'other:workflow',
};

function shortDescription(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  return line.length <= DESCRIPTION_MAX_LENGTH ? line : `${line.slice(0, DESCRIPTION_MAX_LENGTH - 1)}…`;
}

function errorOf(error: unknown): { code: string; message: string } {
  if (error instanceof LeaseholdError) return { code: error.code, message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

export class HookEventService {
  private readonly db: Db;
  private readonly waitLeases: WaitLeaseService;
  private readonly spoolHumanId: string;
  /** The service confined to the human of the event being applied (set per event; events apply one at a time). */
  private leases: WaitLeaseService;
  private leasesHumanId: string;
  private readonly spoolDir: string;
  private readonly logger: HookEventLogger | undefined;
  private readonly replayIntervalMs: number;
  private readonly retentionMs: number;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The spool's state for GET /api/v1/status; logs each spool problem once. */
  readonly spoolState: SpoolState;

  constructor(options: HookEventServiceOptions) {
    this.db = options.db;
    this.waitLeases = options.waitLeases;
    this.spoolHumanId = options.spoolHumanId;
    this.leasesHumanId = options.spoolHumanId;
    this.leases = options.waitLeases.forHuman(options.spoolHumanId);
    this.spoolDir = options.spoolDir;
    this.logger = options.logger;
    this.replayIntervalMs = options.replayIntervalMs ?? DEFAULT_REPLAY_INTERVAL_MS;
    this.retentionMs = options.retentionMs ?? DEFAULT_HOOK_EVENT_RETENTION_MS;
    this.spoolState = new SpoolState(this.spoolDir, this.logger);
  }

  /** Replays the spool now, then on every tick; prunes old ids on the tick too. */
  start(): void {
    void this.replayNow();
    if (this.replayIntervalMs > 0) {
      this.timer = setInterval(() => {
        void this.replayNow();
        void this.prune();
      }, this.replayIntervalMs);
      this.timer.unref();
    }
  }

  /** Stops the tick and waits for the queue to drain. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.queue.catch(() => undefined);
  }

  /** POST /api/v1/hook-events: validates, drains the spool first, applies once. */
  async submit(body: unknown, humanId: string): Promise<HookEventResponse> {
    const event = parseWire(HookEventSchema, body, 'body');
    return this.serial(async () => {
      // Whatever is wrong with the spool is recorded there; it must never fail the event at hand.
      await this.drainSpool().catch((error: unknown) => this.spoolState.recordError(String(error)));
      return this.applyOnce(event, humanId);
    });
  }

  /** Replays the spool through the same path as a direct event. Never throws. */
  replayNow(): Promise<ReplayResult | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    return this.serial(() => this.drainSpool()).catch((error: unknown) => {
      this.logger?.error('hook spool replay failed', { error: String(error) });
      this.spoolState.recordError(String(error));
      return undefined;
    });
  }

  /** Forgets applied ids older than the retention period. */
  async prune(): Promise<void> {
    try {
      await this.db.run('DELETE FROM hook_events WHERE applied_at < ?', [Date.now() - this.retentionMs]);
    } catch (error) {
      this.logger?.error('hook event prune failed', { error: String(error) });
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private hasSpooledEvents(): boolean {
    try {
      return readdirSync(this.spoolDir).some((name) => name.endsWith('.json') || name === 'processing');
    } catch (error) {
      // Only a missing spool is empty; one we cannot list (another user's) is replay's to report.
      return (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  }

  /** Must run on the queue. */
  private async drainSpool(): Promise<ReplayResult | undefined> {
    if (!this.hasSpooledEvents()) return undefined;
    const result = await replaySpool(
      this.spoolDir,
      async (spooled: SpooledEvent) => {
        await this.applyOnce(HookEventSchema.parse(spooled), this.spoolHumanId);
      },
      {
        // Replaying it again could never succeed; it is quarantined so it never blocks later events.
        validate: (spooled) => {
          const parsed = HookEventSchema.safeParse(spooled);
          return parsed.success ? null : `not a valid hook event {id, ops}: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
        },
      },
    );
    this.spoolState.record(result);
    if (result.applied.length > 0 || result.failed || result.quarantined.length > 0) {
      this.logger?.info('replayed spooled hook events', { applied: result.applied.length, failed: result.failed, quarantined: result.quarantined.length });
    }
    return result;
  }

  /** Must run on the queue. Throws only when storage fails (the event then stays spooled / is retried). */
  private async applyOnce(event: HookEvent, humanId: string): Promise<HookEventResponse> {
    if (humanId !== this.leasesHumanId) {
      this.leases = this.waitLeases.forHuman(humanId);
      this.leasesHumanId = humanId;
    }
    // Another human's record of the same id is not this event's: never answered from it.
    const seen = await this.db.all<{ results: string }>('SELECT results FROM hook_events WHERE id = ? AND (human_id = ? OR human_id IS NULL)', [event.id, humanId]);
    if (seen.length > 0) return { id: event.id, duplicate: true, results: JSON.parse(seen[0]!.results) as HookOpResult[] };
    const results: HookOpResult[] = [];
    const observed = this.observationOf(event);
    for (const op of event.ops) {
      try {
        const detail = await this.applyOp(op, observed);
        results.push({ op: op.op, ok: true, ...(detail ? { detail } : {}) });
      } catch (error) {
        results.push({ op: op.op, ok: false, error: errorOf(error) });
      }
    }
    await this.db.run('INSERT INTO hook_events (id, applied_at, op_count, results, machine_id, human_id) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING', [
      event.id,
      Date.now(),
      event.ops.length,
      JSON.stringify(results),
      this.waitLeases.machineId,
      humanId,
    ]);
    const failed = results.filter((result) => !result.ok);
    if (failed.length > 0) this.logger?.info('hook event applied with refused ops', { id: event.id, failed });
    return { id: event.id, duplicate: false, results };
  }

  /**
   * When the event was observed, and how long ago. A replayed (spooled) event is judged as of
   * then: its grants are shortened by its age and its evidence carries its own time, so a
   * replay never grants more than the event would have when it happened. An observed_at in the
   * future (another clock) counts as now.
   */
  private observationOf(event: HookEvent): Observation {
    const nowWallMs = this.leases.clock.read().wallMs;
    const atWallMs = event.observed_at !== undefined && event.observed_at <= nowWallMs ? event.observed_at : nowWallMs;
    return { atWallMs, ageMs: nowWallMs - atWallMs };
  }

  private applyOp(op: HookOp, observed: Observation): Promise<Detail | undefined> {
    switch (op.op) {
      case 'bind_session':
        return this.bindSession(op.session_id, op.pane_hint, op.source, op.forked_from);
      case 'leave_pane':
        return this.leavePane(op.session_id, op.reason, op.forked_from);
      case 'touch':
        return this.touch(op.session_id, op.job_ref, observed);
      case 'set_display':
        return this.setDisplay(op.session_id, op.state, op.if_state, observed);
      case 'acquire':
        return this.acquire(op, observed);
      case 'reconcile':
        return this.reconcile(op, observed);
      case 'release':
        return this.release(op.session_id, op.job_ref, `released: ${op.note ?? 'the subagent stopped (SubagentStop)'}`);
      case 'release_session':
        return this.releaseSession(op.session_id, op.reason);
    }
  }

  // ---- ops ---------------------------------------------------------------------------------

  /**
   * The pane whose registered shell (pid AND start time, so a reused pid never matches) is the
   * nearest ancestor of the hook process; else the pane named by LEASEHOLD_PANE.
   */
  private async findPane(hint: PaneHint): Promise<{ name: string; via: 'ancestry' | 'env_pane'; depth?: number }> {
    const panes = await this.leases.store.listOpenPanes();
    for (let depth = 0; depth < hint.ancestry.length; depth++) {
      const step = hint.ancestry[depth]!;
      const pane = panes.find((candidate) => candidate.shellPid === step.pid && candidate.shellStartTime === step.start_time);
      if (pane) return { name: pane.name, via: 'ancestry', depth };
    }
    if (hint.env_pane !== undefined) {
      const named = panes.find((candidate) => candidate.name === hint.env_pane);
      if (named) return { name: named.name, via: 'env_pane' };
      // A terminal named only by the environment comes into being on first use, like acquire's CLI panes.
      await this.leases.registerPane({ name: hint.env_pane, source: 'cli' });
      return { name: hint.env_pane, via: 'env_pane' };
    }
    throw new LeaseholdError(
      'not_found',
      `no registered pane is an ancestor of the hook process (${hint.ancestry.length} processes checked by pid and start time) and LEASEHOLD_PANE is not set`,
      { field: 'pane_hint' },
    );
  }

  private async bindSession(sessionId: string, hint: PaneHint, source: string | undefined, forkedFrom: string | undefined): Promise<Detail> {
    const found = await this.findPane(hint);
    const pane = await this.leases.getPane(found.name);
    const forked = await this.takeOverFork(sessionId, forkedFrom);
    // An attached background session re-binds on each event: once bound here, nothing to do.
    const bound = await this.leases.store.getSession(sessionId);
    if (bound && bound.pane === pane.name && bound.generation === pane.generation) {
      return { pane: pane.name, generation: pane.generation, via: found.via, unchanged: true, ...forked };
    }
    // A new session on a reused pane starts a new binding: the earlier session's leases on this
    // pane end here (its hooks will never reconcile them again). Except after /clear (source
    // "clear"): the same Claude Code process goes on, its background jobs survive and the new
    // session's Stop lists them, so their leases are handed over, still held on their pids.
    const released: string[] = [];
    const carried: string[] = [];
    const binding = await this.leases.bindSession(pane.name, sessionId);
    for (const earlier of await this.leases.store.sessionsOf(pane.name, pane.generation)) {
      if (earlier === sessionId) continue;
      if (source === 'clear') carried.push(...(await this.leases.carrySessionLeases(earlier, sessionId)).carried);
      else released.push(...(await this.endSessionLeases(earlier, `pane ${pane.name} reused by session ${sessionId}`)).ended);
    }
    return {
      pane: binding.pane,
      generation: binding.generation,
      via: found.via,
      ...(found.depth !== undefined ? { depth: found.depth } : {}),
      released_previous: released,
      ...(carried.length > 0 ? { carried_previous: carried } : {}),
      ...forked,
    };
  }

  /**
   * A session moved to Claude Code's background daemon continues under a new id that forks the
   * old one; the old one ended (SessionEnd prompt_input_exit) with its pid-held jobs still
   * running. The fork takes over their leases (as after /clear): one job, one lease, whichever
   * terminal the fork is later attached in. The leases stay on the pane they were granted on.
   */
  private async takeOverFork(sessionId: string, forkedFrom: string | undefined): Promise<Detail> {
    if (forkedFrom === undefined || forkedFrom === sessionId) return {};
    const { carried } = await this.leases.carrySessionLeases(forkedFrom, sessionId);
    return carried.length > 0 ? { carried_from_fork: carried } : {};
  }

  /** The session is in no terminal: it drives no pane from now on (its ops are refused as not bound). */
  private async leavePane(sessionId: string, reason: string, forkedFrom: string | undefined): Promise<Detail> {
    const forked = await this.takeOverFork(sessionId, forkedFrom);
    const left = await this.leases.unbindSession(sessionId);
    return { left: left ?? null, reason, ...forked };
  }

  private async paneOf(sessionId: string): Promise<string> {
    return (await this.leases.getSession(sessionId)).pane;
  }

  /**
   * Judged as of the event's observation: some hooks run async (off Claude Code's critical path)
   * and a replayed event is old, so a display change observed before the one that stands is
   * dropped (`stale`) instead of undoing it.
   */
  private async setDisplay(sessionId: string, state: string, ifState: string | undefined, observed: Observation): Promise<Detail> {
    const pane = await this.paneOf(sessionId);
    if (ifState !== undefined) {
      const current = (await this.leases.getPane(pane)).display_state;
      if (current !== ifState) {
        // Not blocked as of this observation: an earlier "blocked" arriving late must not stand.
        const confirmed = await this.leases.setDisplayStateAsOf(pane, null, observed.atWallMs);
        return { pane, state: current, unchanged: true, ...(confirmed ? {} : { stale: true }) };
      }
    }
    if (!(await this.leases.setDisplayStateAsOf(pane, state, observed.atWallMs))) return { pane, state, stale: true };
    return { pane, state };
  }

  /** The session's leases that have not ended, keyed by job_ref. */
  private async liveLeases(sessionId: string): Promise<Map<string, { lease_id: string; job_ref: string; kind: string; observer: { kind: string } }>> {
    const live = new Map<string, { lease_id: string; job_ref: string; kind: string; observer: { kind: string } }>();
    for (const view of await this.leases.listLeases({ sessionId })) {
      if (view.state !== 'ended') live.set(view.job_ref, view);
    }
    return live;
  }

  private async acquire(op: Extract<HookOp, { op: 'acquire' }>, observed: Observation): Promise<Detail> {
    const existing = (await this.liveLeases(op.session_id)).get(op.job_ref);
    if (existing) {
      // The launch arrived after a Stop listing leased the task (an async PostToolUse): hold it on its process now.
      if (op.pid_hint && existing.observer.kind === 'none') {
        try {
          await this.leases.pinPid(existing.lease_id, op.pid_hint);
          return { lease_id: existing.lease_id, existing: true, held: true, pid: op.pid_hint.pid };
        } catch (error) {
          return { lease_id: existing.lease_id, existing: true, hold_refused: errorOf(error).message };
        }
      }
      return { lease_id: existing.lease_id, existing: true };
    }
    if (op.only_if_known) {
      // A resumed background agent: only a job this session declared before gets a lease again.
      const known = (await this.leases.listLeases({ sessionId: op.session_id })).some((view) => view.job_ref === op.job_ref);
      if (!known) return { job_ref: op.job_ref, acquired: false, unknown_job: true };
    }
    const ttlMs = op.ttl_ms - observed.ageMs;
    // Replayed after its whole TTL: the lease would have expired by now; grant nothing.
    if (ttlMs <= 0) return { job_ref: op.job_ref, acquired: false, expired_before_replay: true };
    return this.grant(op.session_id, op.job_ref, op.job_type, ttlMs, op.description, op.pid_hint);
  }

  private async grant(
    sessionId: string,
    jobRef: string,
    jobType: HookJobType,
    ttlMs: number,
    description: string | undefined,
    pidHint?: { pid: number; start_time: string },
  ): Promise<Detail> {
    const pane = await this.paneOf(sessionId);
    const request = {
      pane,
      job_ref: jobRef,
      ttl_ms: ttlMs,
      job_type: SERVER_JOB_TYPE[jobType],
      ...(shortDescription(description) !== undefined ? { description: shortDescription(description) } : {}),
    };
    let holdError: string | undefined;
    if (pidHint) {
      try {
        const grant = await this.leases.hold({ ...request, target: { pid: pidHint.pid, start_time: pidHint.start_time } }, { sessionId, allowCommand: false });
        return { lease_id: grant.lease_id, held: true, pid: pidHint.pid, expires_in_ms: grant.expires_in_ms };
      } catch (error) {
        // Gone already, or its start time no longer matches: the declared lease still stands
        // on its TTL, and the next Stop's listing settles it.
        holdError = errorOf(error).message;
      }
    }
    const grant = await this.leases.acquire({ ...request, kind: 'declared' }, { sessionId });
    return { lease_id: grant.lease_id, held: false, expires_in_ms: grant.expires_in_ms, ...(holdError ? { hold_refused: holdError } : {}) };
  }

  /**
   * Ends a lease. `observed`: the job's end was seen (ledger `released`, censoring exact);
   * otherwise the end is inferred and the ledger says so (`orphaned`, censoring unknown).
   */
  private async endLease(leaseId: string, reason: string, observed = true): Promise<boolean> {
    try {
      if (observed) await this.leases.releaseByOwner(leaseId, reason);
      else await this.leases.endUnobservedByOwner(leaseId, reason);
      return true;
    } catch (error) {
      if (error instanceof LeaseholdError && (error.code === 'LEASE_ENDED' || error.code === 'not_found')) return false;
      throw error;
    }
  }

  private async reconcile(op: Extract<HookOp, { op: 'reconcile' }>, observed: Observation): Promise<Detail> {
    const live = await this.liveLeases(op.session_id);
    const endedObserved = await this.observedEnds(op.session_id, live);
    const stale: string[] = [];
    const adopted: string[] = [];
    // The listing's own time: a stale replayed listing is refused as evidence (EVIDENCE_MISSING).
    const observedAt = observed.atWallMs;
    const kept: string[] = [];
    const acquired: string[] = [];
    const released: string[] = [];
    const failed: Array<{ job_ref: string; error: { code: string; message: string } }> = [];
    const listed = new Set<string>();
    for (const task of op.running) {
      listed.add(task.job_ref);
      const lease = live.get(task.job_ref);
      try {
        if (lease && lease.observer.kind === 'pid') {
          kept.push(task.job_ref); // the hold loop renews it on the process itself
          continue;
        }
        if (lease) {
          try {
            // The session's own listing of its own task: the observer this lease names.
            await this.leases.renewHeld(lease.lease_id, { provider_job: { id: task.job_ref, state: 'running', observed_at: observedAt } }, null, 'lease_observer', observed.ageMs);
            kept.push(task.job_ref);
            continue;
          } catch (error) {
            // Expired or made UNKNOWN since: it cannot come back, so the listing starts a new one.
            if (!(error instanceof LeaseholdError && error.code === 'LEASE_ENDED')) throw error;
          }
        }
        if (task.ttl_ms - observed.ageMs <= 0) continue; // would have expired by now
        // Its end was observed already (SubagentStop, a task-notification): a listing taken
        // around that moment is stale, not a new run. (A resumed agent comes back through
        // SubagentStart, a Bash task id never runs twice.)
        if (!lease && endedObserved.has(task.job_ref)) {
          stale.push(task.job_ref);
          continue;
        }
        // The same task under the session this one continues: one job, one lease.
        if (!lease && (await this.leases.adoptLease(task.job_ref, op.session_id)) !== undefined) {
          adopted.push(task.job_ref);
          continue;
        }
        await this.grant(op.session_id, task.job_ref, task.job_type, task.ttl_ms - observed.ageMs, task.description);
        acquired.push(task.job_ref);
      } catch (error) {
        failed.push({ job_ref: task.job_ref, error: errorOf(error) });
      }
    }
    for (const task of op.finished) {
      listed.add(task.job_ref);
      const lease = live.get(task.job_ref);
      if (lease && (await this.endLease(lease.lease_id, `released: task ${task.status} (Stop background_tasks)`))) released.push(task.job_ref);
    }
    for (const [jobRef, lease] of live) {
      if (listed.has(jobRef) || lease.kind !== 'declared') continue;
      // Gone from the listing: it ended at some unobserved time since the last look.
      if (await this.endLease(lease.lease_id, 'ended unobserved: task no longer listed in Stop background_tasks', false)) released.push(jobRef);
    }
    return { kept, acquired, released, ...(adopted.length ? { adopted } : {}), ...(stale.length ? { stale_listed: stale } : {}), ...(failed.length ? { failed } : {}) };
  }

  /** Job refs of this session whose latest lease ended on an observed end (released), and that have no live lease. */
  private async observedEnds(sessionId: string, live: Map<string, unknown>): Promise<Set<string>> {
    // The latest lease per job_ref is the one granted most recently: the shortest running_ms.
    const latest = new Map<string, { runningMs: number; released: boolean }>();
    for (const view of await this.leases.listLeases({ sessionId })) {
      if (live.has(view.job_ref) || view.state !== 'ended') continue;
      const seen = latest.get(view.job_ref);
      const runningMs = view.running_ms ?? 0;
      if (!seen || runningMs <= seen.runningMs) latest.set(view.job_ref, { runningMs, released: view.end_reason === 'released' });
    }
    return new Set([...latest].filter(([, entry]) => entry.released).map(([jobRef]) => jobRef));
  }

  /** The session reports its own job at work (a tool call inside a background subagent): news for an unheld lease. */
  private async touch(sessionId: string, jobRef: string, observed: Observation): Promise<Detail> {
    const lease = (await this.liveLeases(sessionId)).get(jobRef);
    if (!lease || lease.observer.kind !== 'none') return { job_ref: jobRef, renewed: false };
    await this.leases.renewHeld(lease.lease_id, { provider_job: { id: jobRef, state: 'running', observed_at: observed.atWallMs } }, null, 'lease_observer', observed.ageMs);
    return { job_ref: jobRef, renewed: true };
  }

  private async release(sessionId: string, jobRef: string, reason: string): Promise<Detail> {
    const lease = (await this.liveLeases(sessionId)).get(jobRef);
    const released = lease ? await this.endLease(lease.lease_id, reason) : false;
    return { job_ref: jobRef, released };
  }

  private async releaseSession(sessionId: string, reason: string | undefined): Promise<Detail> {
    const { ended, held } = await this.endSessionLeases(sessionId, `session ended${reason ? ` (${reason})` : ''}`);
    return { released: ended, ...(held.length > 0 ? { still_held: held } : {}) };
  }

  /**
   * The session left the pane. A lease held on a process that still runs stays (the job goes
   * on, e.g. under pid 1 after "move to background"; the hold loop ends it, exactly, when the
   * process exits). Every other lease ends, as unobserved: nobody saw its job end.
   */
  private async endSessionLeases(sessionId: string, reason: string): Promise<{ ended: string[]; held: string[] }> {
    const ended: string[] = [];
    const held: string[] = [];
    for (const lease of (await this.liveLeases(sessionId)).values()) {
      const observer = lease.observer as { kind: string; pid?: number; start_time?: string };
      if (observer.kind === 'pid' && observer.pid !== undefined && observer.start_time !== undefined && isSameProcess(observer.pid, observer.start_time)) {
        held.push(lease.lease_id);
        continue;
      }
      if (await this.endLease(lease.lease_id, `ended unobserved: ${reason}`, false)) ended.push(lease.lease_id);
    }
    return { ended, held };
  }
}
