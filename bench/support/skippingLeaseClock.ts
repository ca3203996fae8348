// The system lease clock, set ahead by hand: the hold benches let 9 minutes pass in an instant
// (time passing is what makes a renewal due; the rows are not touched).
import { type LeaseClock, systemLeaseClock } from '../../src/server/clock/leaseClock.ts';

export class SkippingLeaseClock implements LeaseClock {
  private readonly system = systemLeaseClock();
  private aheadMs = 0;

  read() {
    const reading = this.system.read();
    return { ...reading, bootMs: reading.bootMs + this.aheadMs, wallMs: reading.wallMs + this.aheadMs };
  }

  skip(ms: number): void {
    this.aheadMs += ms;
  }
}
