// A lease server in a process of its own for the hold loop's renew tick (holdTicks.ts), so the
// tick's figure is the server's alone: no bench client or peers' heap to collect beside it. Its
// hold loop and sweeper are stopped and its lease clock is set ahead by the bench; each tick
// runs when the bench asks over IPC and is timed here. The storage config comes over IPC (a
// database URL may hold a password). Once listening it sends {url, token}.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLeaseServer, type LeaseServerConfig } from '../../src/server/app.ts';
import { BENCH_SERVER_OPTIONS } from './benchServer.ts';
import { SkippingLeaseClock } from './skippingLeaseClock.ts';

/** A tick the bench asks for: the lease clock set `skipMs` ahead first (0 for a verify-only tick). */
export interface TickRequest {
  skipMs: number;
}

export interface TickResult {
  wallMs: number;
  cpuMs: number;
  checked: number;
  renewed: number;
}

const config = await new Promise<LeaseServerConfig['storage']>((resolve) => process.once('message', (message) => resolve(message as LeaseServerConfig['storage'])));
const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-hold-'));
const leaseClock = new SkippingLeaseClock();
// The sleeping targets make no progress, so every renewal is identical: the identical-renewal fuse is raised past its default 12.
const server = await startLeaseServer({ ...BENCH_SERVER_OPTIONS, storage: config, runtimeDir, leaseClock, identicalRenewalLimit: 100 });
await server.holdLoop.stop();
// Renew ticks let 9 of the grants' 10 minutes pass at once: the sweeper must not expire them meanwhile.
await server.expirySweeper.stop();

process.on('message', (message) => {
  const { skipMs } = message as TickRequest;
  leaseClock.skip(skipMs);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  void server.holdLoop.runOnce().then((result) => {
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    process.send!({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, checked: result.checked, renewed: result.renewed } satisfies TickResult);
  });
});
process.on('SIGTERM', () =>
  void server.close().then(() => {
    rmSync(runtimeDir, { recursive: true, force: true });
    process.exit(0);
  }),
);
process.send!({ url: server.url, token: server.token });
