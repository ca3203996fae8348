// An in-process lease server on a real port and real storage, for server suites.
import { rmSync } from 'node:fs';
import { ManualClock } from '../../src/core/clock.ts';
import { LeaseholdClient } from '../../src/client/client.ts';
import { silentLogger, startLeaseServer, type LeaseServer, type LeaseServerConfig } from '../../src/server/app.ts';
import { ManualLeaseClock } from '../../src/server/clock/leaseClock.ts';
import type { StorageTarget } from './storage.ts';
import { tempDir } from './storage.ts';

export interface TestServer {
  server: LeaseServer;
  client: LeaseholdClient;
  clock: ManualClock;
  /** The wait-lease clock (boot time + wall + boot id), moved by hand: suspend, rollback, reboot. */
  leaseClock: ManualLeaseClock;
  runtimeDir: string;
  stop(): Promise<void>;
}

export async function startTestServer(
  target: StorageTarget,
  overrides: Partial<LeaseServerConfig> & { clock?: ManualClock; leaseClock?: ManualLeaseClock } = {},
): Promise<TestServer> {
  const { config: storage, cleanup } = await target.create();
  const runtimeDir = tempDir('runtime');
  const clock = overrides.clock ?? new ManualClock();
  const leaseClock = overrides.leaseClock ?? new ManualLeaseClock({ wallMs: clock.nowMs() });
  const server = await startLeaseServer({
    storage,
    runtimeDir,
    logger: silentLogger,
    writeRateLimit: { capacity: 10_000, refillPerSecond: 10_000 },
    ...overrides,
    clock,
    leaseClock,
  });
  return {
    server,
    clock,
    leaseClock,
    runtimeDir,
    client: new LeaseholdClient({ baseUrl: server.url, token: server.token }),
    async stop() {
      await server.close();
      await cleanup();
      rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
}

/** Expects a promise to reject; returns the error for further assertions. */
export async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection, but the promise resolved');
}
