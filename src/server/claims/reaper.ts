// Requeues lapsed claims. Event-driven (maintenance/deadlineScheduler.ts): a timer armed at
// the earliest known expiry, plus a periodic backstop sweep that also catches claims other
// team servers granted. runOnce is the whole job; start/stop only schedule it.
import type { Clock } from '../../core/clock.ts';
import type { ChangeBus } from '../events.ts';
import { DeadlineScheduler } from '../maintenance/deadlineScheduler.ts';
import type { ClaimStore } from './claimStore.ts';

export interface ReaperOptions {
  store: ClaimStore;
  clock: Clock;
  bus: ChangeBus;
  backstopIntervalMs?: number;
  onError?: (error: unknown) => void;
}

export class Reaper {
  private readonly options: ReaperOptions;
  private readonly schedule: DeadlineScheduler;

  constructor(options: ReaperOptions) {
    this.options = options;
    this.schedule = new DeadlineScheduler({
      run: () => this.runOnce(),
      nextDelayMs: async () => {
        const next = await options.store.nextLeaseExpiry();
        return next === null ? null : next - options.clock.nowMs();
      },
      backstopIntervalMs: options.backstopIntervalMs ?? 2000,
      onError: options.onError,
    });
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
    this.schedule.start();
  }

  stop(): Promise<void> {
    return this.schedule.stop();
  }

  /** A lease was granted or extended: make sure a run comes no later than its expiry. */
  noteExpiry(expiresAt: number): void {
    this.schedule.dueIn(expiresAt - this.options.clock.nowMs());
  }
}
