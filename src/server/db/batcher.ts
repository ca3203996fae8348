// Coalesces concurrent requests of one kind into batches: a request waits for nothing when a
// batch slot is free (it goes at the next turn of the event loop, with whatever else was asked
// for in that turn), and requests made while every slot is busy go together in the next batch.
// One worker therefore waits for no other, and many pay one round trip for all (as SQLite's group
// commit does for transactions). What a batch means, and what happens when one fails, is the
// runner's business: it answers one result (or error) per request, in order.

export type BatchOutcome<Res> = { ok: true; value: Res } | { ok: false; error: unknown };

export interface BatcherOptions {
  /** Batches running at once (default 1). */
  maxInFlight?: number;
  /** Requests in one batch at most (default 64). */
  maxBatch?: number;
}

interface Waiting<Req, Res> {
  request: Req;
  resolve: (value: Res) => void;
  reject: (error: unknown) => void;
}

export class Batcher<Req, Res> {
  private readonly runBatch: (requests: readonly Req[]) => Promise<BatchOutcome<Res>[]>;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;
  private waiting: Waiting<Req, Res>[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Batches run and requests served so far (the mean batch size, for benchmarks and tests). */
  readonly stats = { batches: 0, requests: 0 };

  constructor(runBatch: (requests: readonly Req[]) => Promise<BatchOutcome<Res>[]>, options: BatcherOptions = {}) {
    this.runBatch = runBatch;
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 1);
    this.maxBatch = Math.max(1, options.maxBatch ?? 64);
  }

  submit(request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.waiting.length > 0) this.start(this.waiting.splice(0, this.maxBatch));
    });
  }

  private start(batch: Waiting<Req, Res>[]): void {
    this.inFlight += 1;
    this.stats.batches += 1;
    this.stats.requests += batch.length;
    const settle = (outcomes: BatchOutcome<Res>[] | undefined, failure?: unknown) => {
      batch.forEach((entry, index) => {
        const outcome = outcomes?.[index];
        if (!outcome) entry.reject(failure ?? new Error('batch runner answered fewer results than requests'));
        else if (outcome.ok) entry.resolve(outcome.value);
        else entry.reject(outcome.error);
      });
    };
    let running: Promise<BatchOutcome<Res>[]>;
    try {
      running = this.runBatch(batch.map((entry) => entry.request));
    } catch (error) {
      running = Promise.reject(error);
    }
    running
      .then((outcomes) => settle(outcomes), (error: unknown) => settle(undefined, error))
      .finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
  }
}
