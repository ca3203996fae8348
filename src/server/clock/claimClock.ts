// The claim clock of embedded storage: claim time on the boot clock (core's claimTimeAt), so a
// wall-clock step cannot extend a live claim. Its anchor is kept in the claim_clock row, written
// once a second and at stop, so a restart in the same boot continues where it left off and a
// reboot never starts claim time before the last one handed out.
import { type ClaimClockAnchor, type ClaimClockStep, claimTimeAt } from '../../core/claimClock.ts';
import type { Clock } from '../../core/clock.ts';
import { first, type Db } from '../db/sql.ts';
import type { LeaseClock } from './leaseClock.ts';

interface AnchorRow {
  boot_id: string | null;
  counts_suspend: number | boolean;
  boot_ms: number;
  wall_ms: number;
  claim_ms: number;
}

export interface SteadyClaimClockOptions {
  /** How often the anchor is persisted (default 1 s). */
  persistMs?: number;
  /** Hears every step other than 'steady' (a wall step, a new boot), for the log. */
  onStep?: (step: ClaimClockStep, claimMs: number, wallMs: number) => void;
  onError?: (error: unknown) => void;
}

export class SteadyClaimClock implements Clock {
  private anchor: ClaimClockAnchor;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private readonly db: Db;
  private readonly leaseClock: LeaseClock;
  private readonly options: SteadyClaimClockOptions;

  private constructor(db: Db, leaseClock: LeaseClock, anchor: ClaimClockAnchor, options: SteadyClaimClockOptions) {
    this.db = db;
    this.leaseClock = leaseClock;
    this.anchor = anchor;
    this.options = options;
  }

  /** Reads the persisted anchor, judges the restart (same boot or not), and persists the new one. */
  static async start(db: Db, leaseClock: LeaseClock, options: SteadyClaimClockOptions = {}): Promise<SteadyClaimClock> {
    const row = await first<AnchorRow>(db, 'SELECT boot_id, counts_suspend, boot_ms, wall_ms, claim_ms FROM claim_clock WHERE id = 1');
    const stored: ClaimClockAnchor | undefined = row && {
      bootId: row.boot_id,
      countsSuspend: Boolean(row.counts_suspend),
      bootMs: Number(row.boot_ms),
      wallMs: Number(row.wall_ms),
      claimMs: Number(row.claim_ms),
    };
    const reading = leaseClock.read();
    const started = claimTimeAt(stored, reading, { sameProcess: false });
    if (started.step !== 'steady' && started.step !== 'start') options.onStep?.(started.step, started.claimMs, reading.wallMs);
    const clock = new SteadyClaimClock(db, leaseClock, started.anchor, options);
    await clock.persist();
    clock.timer = setInterval(() => void clock.persist(), options.persistMs ?? 1000);
    clock.timer.unref();
    return clock;
  }

  nowMs(): number {
    return this.read().claimMs;
  }

  /** Claim time now, with the reading it was judged on. */
  private read(): { claimMs: number; anchor: ClaimClockAnchor } {
    const reading = this.leaseClock.read();
    const next = claimTimeAt(this.anchor, reading, { sameProcess: true });
    if (next.anchor !== this.anchor) {
      this.anchor = next.anchor;
      if (next.step !== 'steady') this.options.onStep?.(next.step, next.claimMs, reading.wallMs);
    }
    return { claimMs: next.claimMs, anchor: { ...next.anchor, bootMs: reading.bootMs, wallMs: reading.wallMs, claimMs: next.claimMs } };
  }

  /** Writes the current reading as the anchor (any reading is one: claim time moves with boot time). */
  persist(): Promise<void> {
    if (this.writing) return this.writing;
    const { anchor } = this.read();
    this.writing = this.db
      .run(
        `INSERT INTO claim_clock (id, boot_id, counts_suspend, boot_ms, wall_ms, claim_ms) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET boot_id = excluded.boot_id, counts_suspend = excluded.counts_suspend,
           boot_ms = excluded.boot_ms, wall_ms = excluded.wall_ms, claim_ms = excluded.claim_ms`,
        [anchor.bootId, anchor.countsSuspend, Math.max(0, Math.floor(anchor.bootMs)), Math.floor(anchor.wallMs), Math.floor(anchor.claimMs)],
      )
      .then(
        () => undefined,
        (error: unknown) => this.options.onError?.(error),
      )
      .finally(() => {
        this.writing = undefined;
      });
    return this.writing;
  }

  /** Stops the timer and persists the last reading; call before the database closes. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.writing;
    await this.persist();
  }
}
