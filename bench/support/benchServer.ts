// What every in-process bench server shares: silent, no single-instance lock (benches run
// several at once), and no write rate limit (the benches write far faster than a human).
import { silentLogger, type LeaseServerConfig } from '../../src/server/app.ts';

export const BENCH_SERVER_OPTIONS = {
  logger: silentLogger,
  singleInstance: false,
  writeRateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
} satisfies Partial<LeaseServerConfig>;
