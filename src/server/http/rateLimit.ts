// Per-human write budget: a token bucket per key on an injected clock.
import type { Clock } from '../../core/clock.ts';

export interface RateLimitOptions {
  /** Writes allowed in a burst. */
  capacity: number;
  /** Sustained writes per second. */
  refillPerSecond: number;
}

export const DEFAULT_WRITE_RATE_LIMIT: RateLimitOptions = { capacity: 120, refillPerSecond: 20 };

export class WriteRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  private readonly clock: Clock;
  private readonly options: RateLimitOptions;

  constructor(clock: Clock, options: RateLimitOptions = DEFAULT_WRITE_RATE_LIMIT) {
    this.clock = clock;
    this.options = options;
  }

  /** Takes one write; returns 0 when allowed, else the seconds to wait (for Retry-After). */
  take(key: string): number {
    const now = this.clock.nowMs();
    const bucket = this.buckets.get(key) ?? { tokens: this.options.capacity, updatedAt: now };
    const refilled = Math.min(
      this.options.capacity,
      bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * this.options.refillPerSecond,
    );
    if (refilled >= 1) {
      this.buckets.set(key, { tokens: refilled - 1, updatedAt: now });
      return 0;
    }
    this.buckets.set(key, { tokens: refilled, updatedAt: now });
    return Math.max(1, Math.ceil((1 - refilled) / this.options.refillPerSecond));
  }
}
