// The schedule the claim reaper and the wait-lease sweeper share: run a unit's runOnce at the
// next deadline it knows of (a timer, re-armed after each run and whenever a grant moves a
// deadline earlier), plus a periodic backstop that also catches deadlines other servers set.
// Runs never overlap; a request that arrives mid-run triggers one more run after it.
import { performance } from 'node:perf_hooks';

export interface DeadlineSchedulerOptions {
  run: () => Promise<unknown>;
  /** Milliseconds from now until the next deadline, or null when there is none. */
  nextDelayMs: () => Promise<number | null>;
  backstopIntervalMs: number;
  onError?: (error: unknown) => void;
}

/** setTimeout's longest delay (~24.8 days); the backstop covers anything later. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export class DeadlineScheduler {
  private readonly options: DeadlineSchedulerOptions;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on the monotonic clock. */
  private timerDueAt: number | undefined;
  private backstop: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private rerun = false;
  private stopped = true;

  constructor(options: DeadlineSchedulerOptions) {
    this.options = options;
  }

  start(): void {
    this.stopped = false;
    this.backstop = setInterval(() => void this.tick(), this.options.backstopIntervalMs);
    this.backstop.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.backstop);
    this.disarm();
    await this.running?.catch(() => undefined);
  }

  /** A deadline lies `delayMs` from now: fire no later than just after it. Cheap: no query. */
  dueIn(delayMs: number): void {
    if (this.stopped) return;
    // +1: never fire before the deadline as the unit's own clock reads it.
    const delay = Math.min(Math.max(0, Math.ceil(delayMs)) + 1, MAX_TIMER_DELAY_MS);
    const dueAt = performance.now() + delay;
    if (this.timerDueAt !== undefined && this.timerDueAt <= dueAt) return;
    this.disarm();
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  /** Deadlines may have moved earlier: ask the unit for its next one (after any current run). */
  reschedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    void this.armFromNextDeadline();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = undefined;
  }

  private async armFromNextDeadline(): Promise<void> {
    try {
      const delay = await this.options.nextDelayMs();
      if (this.stopped) return;
      this.disarm();
      if (delay !== null) this.dueIn(delay);
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.rerun = false;
    this.disarm();
    this.running = this.options.run();
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
    await this.armFromNextDeadline();
  }
}
