// The server-owned renew loop of `hold`. Each tick it observes the target of every active held
// lease (pid + start time via processInfo, or the provider job's command / loopback URL) and
// applies core's decideHoldStep: renew only while the target verifies, release when it has
// ended, degrade (and stop) when it cannot be verified. Verification runs every tick, so an
// ended target releases within one interval; the renew write happens only once the lease has
// used half its grant, so 1,000 healthy holds cost reads, not writes. Team mode: only the
// leases granted on this machine are looked at; another machine's pid means nothing here.
import { IntervalLoop } from '../maintenance/intervalLoop.ts';
import { type HoldObservation, decideHoldStep } from '../../core/waitLease/hold.ts';
import { remainingMsAt } from '../../core/waitLease/lease.ts';
import type { LeaseClock } from '../clock/leaseClock.ts';
import { observeProviderJob, pidReadingOf } from './observers.ts';
import type { WaitLeaseService } from './waitLeaseService.ts';
import type { StoredLease } from './waitLeaseStore.ts';

export interface HoldLoopOptions {
  service: WaitLeaseService;
  clock: LeaseClock;
  intervalMs?: number;
  /** Provider checks run at most this many at a time. */
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

type RenewalDue = Parameters<WaitLeaseService['renewHeldMany']>[0][number];

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
    const { service } = this.options;
    const held = await service.store.heldLeases(service.machineId);
    const result: HoldTickResult = { checked: held.length, renewed: 0, released: 0, degraded: 0 };
    const queue = [...held];
    const due: RenewalDue[] = [];
    const worker = async () => {
      for (let stored = queue.shift(); stored; stored = queue.shift()) {
        try {
          await this.step(stored, result, due);
        } catch (error) {
          // A lost race (released meanwhile) or a refusal: the next tick sees the new state.
          if (!(error instanceof Error && 'code' in error)) this.options.onError?.(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.options.concurrency ?? 8) }, worker));
    // The renewals due this tick, written together (one statement on PostgreSQL).
    try {
      result.renewed += await service.renewHeldMany(due, 'server');
    } catch (error) {
      this.options.onError?.(error);
    }
    return result;
  }

  private async step(stored: StoredLease, result: HoldTickResult, due: RenewalDue[]): Promise<void> {
    const { service, clock } = this.options;
    const record = stored.record;
    let observation: HoldObservation;
    if (record.observer.kind === 'pid') {
      try {
        observation = { kind: 'pid', reading: pidReadingOf(record.observer.pid, service.readProcess, clock.read().wallMs) };
      } catch (error) {
        observation = { kind: 'pid', reading: null, error: (error as Error).message };
      }
    } else if (record.observer.kind === 'provider_job') {
      const answer = await observeProviderJob(record.observer, service.providerTimeoutMs);
      observation = { kind: 'provider_job', state: answer.state, observedAtWallMs: clock.read().wallMs, error: answer.error };
    } else {
      return;
    }
    const decision = decideHoldStep(record, observation);
    switch (decision.action) {
      case 'renew': {
        const grantMs = Math.min(record.declaredTtlMs, service.hardMaxTtlMsFor(record.jobType));
        const remaining = remainingMsAt(record, clock.read());
        if (remaining > grantMs / 2 && remaining > 2 * this.intervalMs) return;
        due.push({ stored, evidence: decision.evidence, pidReading: decision.pidReading });
        return;
      }
      case 'release':
        await service.releaseHeld(record.id, decision.reason);
        result.released += 1;
        return;
      case 'degrade':
        await service.degradeHeld(record.id, decision.reason);
        result.degraded += 1;
        return;
      case 'stop':
        return;
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
