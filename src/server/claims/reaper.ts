// Requeues lapsed claims. Event-driven: a timer armed at the earliest known expiry, plus a
// periodic backstop sweep (it also catches claims other team servers granted). runOnce is
// the whole job; start/stop only schedule it.
import type { Clock } from '../../core/clock.ts';
import type { ChangeBus } from '../events.ts';
import type { ClaimStore } from './claimStore.ts';

export interface ReaperOptions {
  store: ClaimStore;
  clock: Clock;
  bus: ChangeBus;
  backstopIntervalMs?: number;
  onError?: (error: unknown) => void;
}

export class Reaper {
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt: number | undefined;
  private backstop: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = true;

  private readonly options: ReaperOptions;

  constructor(options: ReaperOptions) {
    this.options = options;
  }

  /** Reaps everything lapsed as of now; returns how many claims were requeued. */
  async runOnce(): Promise<number> {
    const { store, clock, bus } = this.options;
    let total = 0;
    for (;;) {
      const reaped = await store.reapExpired(clock.nowMs());
      for (const todo of reaped) {
        bus.publish({ type: 'todo.changed', todo_id: todo.id, queue: todo.queue, change: 'reaped', endpoint_id: todo.reaped_from });
      }
      total += reaped.length;
      if (reaped.length < 500) return total;
    }
  }

  start(): void {
    this.stopped = false;
    const interval = this.options.backstopIntervalMs ?? 2000;
    this.backstop = setInterval(() => void this.tick(), interval);
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

  /** A lease was granted or extended: make sure the timer fires no later than its expiry. */
  noteExpiry(expiresAt: number): void {
    if (this.stopped) return;
    if (this.timerDueAt !== undefined && this.timerDueAt <= expiresAt) return;
    this.arm(expiresAt);
  }

  private arm(dueAt: number): void {
    clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    const delay = Math.max(0, dueAt - this.options.clock.nowMs());
    // setTimeout caps at ~24.8 days; the backstop covers anything longer.
    this.timer = setTimeout(() => void this.tick(), Math.min(delay, 2 ** 31 - 1));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.running) return;
    this.timerDueAt = undefined;
    this.running = this.runOnce();
    try {
      await this.running;
      const next = await this.options.store.nextLeaseExpiry();
      if (next !== null && !this.stopped) this.noteExpiry(next);
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      this.running = undefined;
    }
  }
}
