// An in-process lease server on a real port and real storage, for server suites.
import { rmSync } from 'node:fs';
import { ManualClock, systemClock, type Clock } from '../../src/core/clock.ts';
import { LeaseholdClient } from '../../src/client/client.ts';
import { silentLogger, startLeaseServer, type LeaseServer, type LeaseServerConfig } from '../../src/server/app.ts';
import type { VendEndpointRequest } from '../../src/core/wire/claims.ts';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import { ManualLeaseClock, systemLeaseClock, type LeaseClock } from '../../src/server/clock/leaseClock.ts';
import type { StorageTarget } from './storage.ts';
import { tempDir } from './storage.ts';

export interface RealClockTestServer {
  server: LeaseServer;
  client: LeaseholdClient;
  runtimeDir: string;
  stop(): Promise<void>;
}

export interface TestServer extends RealClockTestServer {
  clock: ManualClock;
  /** The wait-lease clock (boot time + wall + boot id), moved by hand: suspend, rollback, reboot. */
  leaseClock: ManualLeaseClock;
}

async function startWithClocks(target: StorageTarget, overrides: Partial<LeaseServerConfig>, clock: Clock | undefined, leaseClock: LeaseClock): Promise<RealClockTestServer> {
  const { config: storage, cleanup } = await target.create();
  const runtimeDir = tempDir('runtime');
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
    runtimeDir,
    client: new LeaseholdClient({ baseUrl: server.url, token: server.token }),
    async stop() {
      await server.close();
      await cleanup();
      rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
}

/** A worker endpoint vended by the server's human, as the store holds it (what ClaimService's calls take). */
export async function vendWorker(server: LeaseServer, request: VendEndpointRequest): Promise<EndpointRecord> {
  const vended = await server.claims.vendEndpoint(server.human, request);
  return (await server.claimStore.getEndpoint(vended.endpoint.id))!;
}

/** Stops the wait-lease maintenance loops (sweeper, clock watcher, hold loop): the test runs their ticks itself. */
export async function stopWaitLeaseMaintenance(t: { server: LeaseServer }): Promise<void> {
  await t.server.expirySweeper.stop();
  await t.server.clockWatcher.stop();
  await t.server.holdLoop.stop();
}

/** A server whose clocks the test moves by hand, so no test sleeps through a TTL. */
export async function startTestServer(
  target: StorageTarget,
  overrides: Partial<LeaseServerConfig> & { clock?: ManualClock; leaseClock?: ManualLeaseClock } = {},
): Promise<TestServer> {
  const clock = overrides.clock ?? new ManualClock();
  const leaseClock = overrides.leaseClock ?? new ManualLeaseClock({ wallMs: clock.nowMs() });
  return { ...(await startWithClocks(target, overrides, clock, leaseClock)), clock, leaseClock };
}

/** A server with no claim clock handed in: it judges claims on its own (the lease clock's boot clock on SQLite). */
export async function startOwnClaimClockTestServer(
  target: StorageTarget,
  overrides: Partial<LeaseServerConfig> & { leaseClock?: ManualLeaseClock } = {},
): Promise<RealClockTestServer & { leaseClock: ManualLeaseClock }> {
  const leaseClock = overrides.leaseClock ?? new ManualLeaseClock();
  return { ...(await startWithClocks(target, overrides, undefined, leaseClock)), leaseClock };
}

/** A server on the system clocks, for the few tests whose subject is real-time latency. */
export function startRealClockTestServer(target: StorageTarget, overrides: Partial<LeaseServerConfig> = {}): Promise<RealClockTestServer> {
  return startWithClocks(target, overrides, systemClock, systemLeaseClock());
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
