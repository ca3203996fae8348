// Ends wait-leases whose time is up, and degrades those with no verifiable target once the
// no-news bound passed (core lease.ts). Event-driven like the claim reaper (maintenance/
// deadlineScheduler.ts): a timer armed at the nearest deadline of any live lease (re-armed
// whenever a grant changes it), plus a periodic backstop sweep. runOnce is the whole job; start/stop only schedule it. Deadlines are on the
// lease clock, whose milliseconds run at the same rate as the timers' clock. Team mode: only
// this machine's leases are judged (their deadlines are on its boot clock); another
// machine's are judged by their owner, or made UNKNOWN when it goes silent (machineRegistry).
import { NO_NEWS_BOUND_MS } from '../../core/waitLease/lease.ts';
import type { LeaseClock } from '../clock/leaseClock.ts';
import { DeadlineScheduler } from '../maintenance/deadlineScheduler.ts';
import type { WaitLeaseService } from './waitLeaseService.ts';

export interface ExpirySweeperOptions {
  service: WaitLeaseService;
  clock: LeaseClock;
  backstopIntervalMs?: number;
  onError?: (error: unknown) => void;
}

export class ExpirySweeper {
  private readonly options: ExpirySweeperOptions;
  private readonly schedule: DeadlineScheduler;

  constructor(options: ExpirySweeperOptions) {
    this.options = options;
    this.schedule = new DeadlineScheduler({
      run: () => this.runOnce(),
      nextDelayMs: async () => {
        const now = options.clock.read();
        const delays = [
          await options.service.store.nextDeadlineInMs(now, options.service.machineId),
          await options.service.store.nextNoNewsInMs(now, options.service.machineId, NO_NEWS_BOUND_MS),
        ].filter((delay): delay is number => delay !== null);
        return delays.length === 0 ? null : Math.min(...delays);
      },
      backstopIntervalMs: options.backstopIntervalMs ?? 2000,
      onError: options.onError,
    });
  }

  /** Expires every lease due now, then degrades those past the no-news bound; returns how many were ended. */
  async runOnce(): Promise<number> {
    const ended = await this.expireDue();
    await this.degradeNoNews();
    return ended;
  }

  /** Degrades unverifiable leases whose no-news bound passed (lease.ts); returns how many. */
  async degradeNoNews(): Promise<number> {
    const { service, clock } = this.options;
    let degraded = 0;
    for (const stored of await service.store.noNewsCandidates(clock.read(), service.machineId, NO_NEWS_BOUND_MS)) {
      if (await service.degradeIfNoNews(stored.record.id).catch(() => false)) degraded += 1;
    }
    return degraded;
  }

  private async expireDue(): Promise<number> {
    const { service, clock } = this.options;
    let total = 0;
    for (;;) {
      const candidates = await service.store.expiryCandidates(clock.read(), service.machineId);
      let ended = 0;
      for (const stored of candidates) {
        if (await service.expire(stored.record.id).catch(() => false)) ended += 1;
      }
      total += ended;
      // A full page where nothing ended means the rest are not due by core's judgement either.
      if (candidates.length < 500 || ended === 0) return total;
    }
  }

  start(): void {
    this.schedule.start();
  }

  stop(): Promise<void> {
    return this.schedule.stop();
  }

  /** A deadline may have moved earlier (a grant, a lowered ceiling): re-arm the timer. */
  reschedule(): void {
    this.schedule.reschedule();
  }
}
