// Team mode judges claim expiry by the database's clock: one clock for every holder on every
// machine. Reading it per call would cost a round trip, so the offset to the local clock is
// measured at start and refreshed periodically.
import type { Clock } from '../../core/clock.ts';
import type { Db } from './sql.ts';

export class DatabaseClock implements Clock {
  private offsetMs = 0;
  private timer: NodeJS.Timeout | undefined;

  private readonly db: Db;

  private constructor(db: Db) {
    this.db = db;
  }

  static async start(db: Db, refreshMs = 30_000): Promise<DatabaseClock> {
    const clock = new DatabaseClock(db);
    await clock.sync();
    clock.timer = setInterval(() => void clock.sync().catch(() => undefined), refreshMs);
    clock.timer.unref();
    return clock;
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  async sync(): Promise<void> {
    const before = Date.now();
    const rows = await this.db.all<{ now_ms: number }>(`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now_ms`);
    const after = Date.now();
    this.offsetMs = Number(rows[0]!.now_ms) - Math.round((before + after) / 2);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
