// When to restart a crashed lease server: after a growing delay, and not at all once it has
// crashed too often within a window (then a human must look at the log). Pure.

export interface RestartPolicyOptions {
  /** Delay before the first restart. */
  initialDelayMs?: number;
  /** Cap on the delay. */
  maxDelayMs?: number;
  /** Crashes counted within this window... */
  windowMs?: number;
  /** ...give up at this many. */
  maxCrashes?: number;
}

export type RestartDecision = { action: 'restart'; attempt: number; delayMs: number } | { action: 'give_up'; crashes: number; windowMs: number };

export class RestartPolicy {
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly windowMs: number;
  private readonly maxCrashes: number;
  private crashes: number[] = [];

  constructor(options: RestartPolicyOptions = {}) {
    this.initialDelayMs = options.initialDelayMs ?? 1_000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.maxCrashes = options.maxCrashes ?? 5;
  }

  /** A crash at `nowMs`: restart after the returned delay, or give up. */
  recordCrash(nowMs: number): RestartDecision {
    this.crashes = this.crashes.filter((at) => nowMs - at < this.windowMs);
    this.crashes.push(nowMs);
    if (this.crashes.length >= this.maxCrashes) return { action: 'give_up', crashes: this.crashes.length, windowMs: this.windowMs };
    const attempt = this.crashes.length;
    const delayMs = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (attempt - 1));
    return { action: 'restart', attempt, delayMs };
  }

  /** A manual restart (the user asked): start counting afresh. */
  reset(): void {
    this.crashes = [];
  }

  get recentCrashes(): number {
    return this.crashes.length;
  }
}
