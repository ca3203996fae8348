// Time as an injected dependency: services read `now` here so tests never sleep.

export interface Clock {
  /** Milliseconds since the Unix epoch, as this clock judges it. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(startMs = Date.UTC(2026, 11, 2, 12, 0, 0)) {
    this.current = startMs;
  }
  nowMs(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}
