// The schedule of the units that poll what the machine can see (the hold loop, the inference
// observer): run the unit's runOnce every interval, or now on a kick; runs never overlap (a
// kick during a run is dropped: the run in flight already looks at everything).
export class IntervalLoop {
  private readonly run: () => Promise<unknown>;
  private readonly intervalMs: () => number;
  private readonly onError: ((error: unknown) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(run: () => Promise<unknown>, intervalMs: () => number, onError?: (error: unknown) => void) {
    this.run = run;
    this.intervalMs = intervalMs;
    this.onError = onError;
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.intervalMs());
    this.timer.unref();
  }

  /** Run a tick now (unless one is running, or the loop is stopped). */
  kick(): void {
    if (this.running || this.timer === undefined) return;
    this.running = this.run();
    this.running
      .catch((error: unknown) => this.onError?.(error))
      .finally(() => {
        this.running = undefined;
      });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
