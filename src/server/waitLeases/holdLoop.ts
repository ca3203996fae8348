// The server-owned renew loop of `hold`. Each tick it observes the target of every active held
// lease (pid + start time via processInfo, or the provider job's command / loopback URL) and
// applies core's decideHoldStep: renew only while the target verifies, release when it has
// ended, degrade (and stop) when it cannot be verified. Verification runs every tick, so an
// ended target releases within one interval; the renew write happens only once the lease has
// used half its grant, so 1,000 healthy holds cost reads, not writes. A tick reads each distinct
// pid once (its snapshot of the machine at one instant), however many holds wait on it, and the
// process trees under the pids due (for the progress marker: the CPU time of the held process's
// tree) only when a pid renewal is due. Team mode: only the leases granted on this machine are looked at;
// another machine's pid means nothing here.
import { IntervalLoop } from '../maintenance/intervalLoop.ts';
import { type HoldObservation, decideHoldStep } from '../../core/waitLease/hold.ts';
import { remainingMsAt } from '../../core/waitLease/lease.ts';
import type { ClockReading } from '../../core/waitLease/clockReading.ts';
import type { LeaseClock } from '../clock/leaseClock.ts';
import { type ChildrenIndex, childrenIndex } from '../../core/processTree.ts';
import type { PidReading } from '../../core/waitLease/evidence.ts';
import type { ProcessInfo } from '../observe/processInfo.ts';
import { observeProviderJob, pidReadingFrom } from './observers.ts';
import type { HeldRenewalDue, WaitLeaseService } from './waitLeaseService.ts';
import type { StoredLease } from './waitLeaseStore.ts';

export interface HoldLoopOptions {
  service: WaitLeaseService;
  clock: LeaseClock;
  intervalMs?: number;
  /** Provider checks (and the writes of ended or unverifiable targets) run at most this many at a time. */
  concurrency?: number;
  onError?: (error: unknown) => void;
}

export interface HoldTickResult {
  checked: number;
  renewed: number;
  released: number;
  degraded: number;
}

export const DEFAULT_HOLD_INTERVAL_MS = 2000;

/** A lease whose target ended (release) or could not be verified (degrade) this tick. */
interface Settlement {
  stored: StoredLease;
  action: 'release' | 'degrade';
  reason: string;
}

export class HoldLoop {
  private readonly loop = new IntervalLoop(() => this.runOnce(), () => this.intervalMs, (error) => this.options.onError?.(error));
  private readonly options: HoldLoopOptions;

  constructor(options: HoldLoopOptions) {
    this.options = options;
  }

  get intervalMs(): number {
    return this.options.intervalMs ?? DEFAULT_HOLD_INTERVAL_MS;
  }

  async runOnce(): Promise<HoldTickResult> {
    const { service, clock } = this.options;
    const held = await service.store.heldLeases(service.machineId);
    const result: HoldTickResult = { checked: held.length, renewed: 0, released: 0, degraded: 0 };
    const pidDue: HeldRenewalDue[] = [];
    const settle: Settlement[] = [];
    // The tick's view of the machine at one instant: each distinct pid is read once, at one
    // clock reading, and every lease pinned on it is judged on that reading (its own start
    // time decides, so a reused pid is still a different process for the lease it ended).
    const now = clock.read();
    const pids = new Map<number, HoldObservation>();
    const rows = new Map<number, ProcessInfo | null>();
    const providers: StoredLease[] = [];
    for (const stored of held) {
      const observer = stored.record.observer;
      if (observer.kind === 'pid') {
        let observation = pids.get(observer.pid);
        if (observation === undefined) {
          const read = this.observePid(observer.pid, now.wallMs);
          observation = read.observation;
          pids.set(observer.pid, observation);
          rows.set(observer.pid, read.row);
        }
        this.decide(stored, observation, now, pidDue, settle);
      } else if (observer.kind === 'provider_job') {
        providers.push(stored);
      }
    }
    const renewals = this.withProgressMarkers(pidDue, rows);
    // Ended and unverifiable targets: each written the one-at-a-time way (read, decide, compare-and-set).
    const settleAll = (items: readonly Settlement[]) =>
      this.eachConcurrently(items, async ({ stored, action, reason }) => {
        if (action === 'release') {
          await service.releaseHeld(stored.record.id, reason);
          result.released += 1;
        } else {
          await service.degradeHeld(stored.record.id, reason);
          result.degraded += 1;
        }
      });
    // The pid targets' settlements start now, beside the provider checks: an ended process is
    // released within the interval however long a provider takes to answer.
    const pidSettled = settleAll(settle.splice(0));
    // Provider checks run a command or a request each: a few at a time.
    await this.eachConcurrently(providers, async (stored) => {
      const observer = stored.record.observer;
      if (observer.kind !== 'provider_job') return;
      const answer = await observeProviderJob(observer, service.providerTimeoutMs);
      const at = clock.read();
      this.decide(stored, { kind: 'provider_job', state: answer.state, observedAtWallMs: at.wallMs, error: answer.error }, at, renewals, settle);
    });
    await Promise.all([pidSettled, settleAll(settle)]);
    // The renewals due this tick, written together (in batches of statements on PostgreSQL).
    try {
      const written = await service.renewHeldMany(renewals, 'server');
      result.renewed += written.renewed;
      if ('failure' in written) this.options.onError?.(written.failure);
    } catch (error) {
      this.options.onError?.(error);
    }
    return result;
  }

  /** The tick's read of one pid: the observation core judges, and the row a progress marker starts from. */
  private observePid(pid: number, readAtWallMs: number): { observation: HoldObservation; row: ProcessInfo | null } {
    try {
      const row = this.options.service.readProcess(pid);
      return { observation: { kind: 'pid', reading: pidReadingFrom(pid, row, readAtWallMs) }, row };
    } catch (error) {
      return { observation: { kind: 'pid', reading: null, error: (error as Error).message }, row: null };
    }
  }

  /**
   * The pid renewals due this tick, each given its pid's progress marker: the CPU time of the
   * process tree, from the tick's own read of the pid and one read of the trees under every pid
   * due, taken only when some pid renewal is due (a verify-only tick reads none). This is the
   * reading a hold's baseline is made of (pidProgressReadingOf: the process, then its tree), so
   * a tree that did nothing renews identically. Trees that cannot be read are reported and count
   * no descendants (the process's own CPU time still moves the marker).
   */
  private withProgressMarkers(due: readonly HeldRenewalDue[], rows: ReadonlyMap<number, ProcessInfo | null>): HeldRenewalDue[] {
    if (due.length === 0) return [];
    let table: ChildrenIndex<ProcessInfo> = new Map();
    try {
      const roots = new Set<number>();
      for (const item of due) if (item.stored.record.observer.kind === 'pid' && item.pidReading !== null) roots.add(item.stored.record.observer.pid);
      table = childrenIndex(this.options.service.listProcesses([...roots]));
    } catch (error) {
      this.options.onError?.(error);
    }
    const readings = new Map<number, PidReading>();
    return due.map((item) => {
      const observer = item.stored.record.observer;
      if (observer.kind !== 'pid' || item.pidReading === null) return item;
      let reading = readings.get(observer.pid);
      if (reading === undefined) {
        reading = pidReadingFrom(observer.pid, rows.get(observer.pid) ?? null, item.pidReading.readAtWallMs, table);
        readings.set(observer.pid, reading);
      }
      return { ...item, pidReading: reading };
    });
  }

  /** Core's decision for one lease on one observation, sorted into the tick's writes. */
  private decide(stored: StoredLease, observation: HoldObservation, now: ClockReading, due: HeldRenewalDue[], settle: Settlement[]): void {
    const record = stored.record;
    const decision = decideHoldStep(record, observation);
    switch (decision.action) {
      case 'renew': {
        const grantMs = Math.min(record.declaredTtlMs, this.options.service.hardMaxTtlMsFor(record.jobType));
        const remaining = remainingMsAt(record, now);
        if (remaining > grantMs / 2 && remaining > 2 * this.intervalMs) return;
        due.push({ stored, evidence: decision.evidence, pidReading: decision.pidReading });
        return;
      }
      case 'release':
      case 'degrade':
        settle.push({ stored, action: decision.action, reason: decision.reason });
        return;
      case 'stop':
        return;
    }
  }

  /** Runs `fn` over `items`, at most `concurrency` at a time; a lost race or a refusal is left to the next tick. */
  private async eachConcurrently<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]!;
        try {
          await fn(item);
        } catch (error) {
          // A lost race (released meanwhile) or a refusal: the next tick sees the new state.
          if (!(error instanceof Error && 'code' in error)) this.options.onError?.(error);
        }
      }
    };
    const workers = Math.min(items.length, Math.max(1, this.options.concurrency ?? 8));
    await Promise.all(Array.from({ length: workers }, worker));
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
