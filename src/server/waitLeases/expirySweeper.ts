// Ends wait-leases whose time is up. Event-driven like the claim reaper: a timer armed at the
// nearest deadline of any live lease (re-armed whenever a grant changes it), plus a periodic
// backstop sweep. runOnce is the whole job; start/stop only schedule it. Deadlines are on the
// lease clock, whose milliseconds run at the same rate as the timers' clock.
import type { LeaseClock } from '../clock/leaseClock.ts';
import type { WaitLeaseService } from './waitLeaseService.ts';

export interface ExpirySweeperOptions {
  service: WaitLeaseService;
  clock: LeaseClock;
  backstopIntervalMs?: number;
  onError?: (error: unknown) => void;
}

export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private backstop: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private rerun = false;
  private stopped = true;
  private readonly options: ExpirySweeperOptions;

  constructor(options: ExpirySweeperOptions) {
    this.options = options;
  }

  /** Expires every lease due now; returns how many were ended. */
  async runOnce(): Promise<number> {
    const { service, clock } = this.options;
    let total = 0;
    for (;;) {
      const candidates = await service.store.expiryCandidates(clock.read());
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
    this.stopped = false;
    this.backstop = setInterval(() => void this.tick(), this.options.backstopIntervalMs ?? 2000);
    this.backstop.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.backstop);
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** A deadline may have moved earlier (a grant, a lowered ceiling): re-arm the timer. */
  reschedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    void this.arm();
  }

  private async arm(): Promise<void> {
    try {
      const delay = await this.options.service.store.nextDeadlineInMs(this.options.clock.read());
      if (this.stopped) return;
      clearTimeout(this.timer);
      this.timer = undefined;
      if (delay === null) return;
      // +1: never fire before the deadline as the lease clock reads it; setTimeout caps at ~24.8 days.
      this.timer = setTimeout(() => void this.tick(), Math.min(Math.ceil(delay) + 1, 2 ** 31 - 1));
      this.timer.unref();
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.running) {
      this.rerun = true;
      return;
    }
    this.rerun = false;
    this.running = this.runOnce();
    try {
      await this.running;
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      this.running = undefined;
    }
    if (this.stopped) return;
    if (this.rerun) {
      this.rerun = false;
      void this.tick();
      return;
    }
    await this.arm();
  }
}
