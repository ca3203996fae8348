// Watches the lease clock. At start it compares the persisted clock domain of this host with
// the current one (core's judgeRestart, then judgeContinuity across the gap): a reboot or a
// domain it cannot verify makes every lease granted in the old domain UNKNOWN. On each tick it
// applies judgeContinuity to the previous and current readings, so an unexplained
// discontinuity (the boot clock going back, a suspend a non-suspend-counting clock missed)
// makes active leases UNKNOWN. A wall-clock rollback is explained and extends nothing.
import { hostname } from 'node:os';
import type { ClockReading } from '../../core/waitLease/clockReading.ts';
import { type ContinuityJudgement, type RestartJudgement, judgeContinuity, judgeRestart } from '../../core/waitLease/clockDomain.ts';
import type { LeaseClock } from '../clock/leaseClock.ts';
import type { WaitLeaseService } from './waitLeaseService.ts';

export interface ClockWatcherOptions {
  service: WaitLeaseService;
  clock: LeaseClock;
  /** Which machine's domain row to use (team mode shares one database): the machine id (default os.hostname()). */
  host?: string;
  tickMs?: number;
  onJudgement?: (judgement: ContinuityJudgement | RestartJudgement, markedUnknown: number) => void;
  onError?: (error: unknown) => void;
}

export class ClockWatcher {
  private previous: ClockReading | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private readonly host: string;
  private readonly options: ClockWatcherOptions;

  constructor(options: ClockWatcherOptions) {
    this.options = options;
    this.host = options.host ?? hostname();
  }

  /** The restart judgement: run once before the server serves. */
  async startup(): Promise<RestartJudgement | null> {
    const { service, clock } = this.options;
    const current = clock.read();
    const persisted = await service.store.readClockDomain(this.host);
    let result: RestartJudgement | null = null;
    if (persisted) {
      result = judgeRestart(persisted.domain, current.domain);
      let explanation = result.explanation;
      let unknown = result.leasesBecomeUnknown;
      if (!unknown) {
        const gap = judgeContinuity(persisted, current);
        if (gap.leasesBecomeUnknown) {
          unknown = true;
          explanation = `across the restart: ${gap.explanation}`;
          result = { kind: 'unverifiable', leasesBecomeUnknown: true, explanation };
        }
      }
      const marked = unknown ? await service.markDomainUnknown(persisted.domain, `server restart: ${explanation}`) : 0;
      this.options.onJudgement?.(result, marked);
    }
    await service.store.writeClockDomain(this.host, current);
    this.previous = current;
    return result;
  }

  /** One tick: judge continuity since the last reading, persist the reading. */
  async runOnce(): Promise<ContinuityJudgement> {
    const { service, clock } = this.options;
    const current = clock.read();
    const previous = this.previous ?? current;
    const judgement = judgeContinuity(previous, current);
    let marked = 0;
    if (judgement.leasesBecomeUnknown) marked = await service.markDomainUnknown(previous.domain, judgement.explanation);
    this.previous = current;
    await service.store.writeClockDomain(this.host, current);
    if (judgement.kind !== 'continuous') this.options.onJudgement?.(judgement, marked);
    return judgement;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.tickMs ?? 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
