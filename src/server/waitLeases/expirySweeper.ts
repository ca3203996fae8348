// Ends wait-leases whose time is up. Event-driven like the claim reaper (maintenance/
// deadlineScheduler.ts): a timer armed at the nearest deadline of any live lease (re-armed
// whenever a grant changes it), plus a periodic backstop sweep. runOnce is the whole job; start/stop only schedule it. Deadlines are on the
// lease clock, whose milliseconds run at the same rate as the timers' clock. Team mode: only
// this machine's leases are judged (their deadlines are on its boot clock); another
// machine's are judged by their owner, or made UNKNOWN when it goes silent (machineRegistry).
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
      nextDelayMs: () => options.service.store.nextDeadlineInMs(options.clock.read(), options.service.machineId),
      backstopIntervalMs: options.backstopIntervalMs ?? 2000,
      onError: options.onError,
    });
  }

  /** Expires every lease due now; returns how many were ended. */
  async runOnce(): Promise<number> {
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
