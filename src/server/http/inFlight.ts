// Shutdown without "database is not open": requests in flight when the server is asked to
// stop are drained (finished against an open database), requests that arrive meanwhile are
// refused with 503 `unavailable` (the hook then retries or spools, the CLI says so), and only
// then are the loops and the database closed.
export class InFlight {
  private count = 0;
  private draining = false;
  private waiters: Array<() => void> = [];

  get closing(): boolean {
    return this.draining;
  }

  /** Counts a request in; false when the server is shutting down and it must be refused. */
  begin(): boolean {
    if (this.draining) return false;
    this.count++;
    return true;
  }

  end(): void {
    this.count--;
    if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** Refuses new requests from now on and resolves once none is in flight, or after `timeoutMs` (a stuck stream). */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    if (this.count === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.waiters.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }
}
