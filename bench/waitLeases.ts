// Wait-lease benchmarks (issue 3), one run, real lease clock, SQLite (and PostgreSQL when
// LEASEHOLD_BENCH_DATABASE_URL or LEASEHOLD_TEST_DATABASE_URL is set):
// - acquire / renew (pid evidence, verified by the server) / release latency over HTTP;
// - expiry detection lag: from each lease's deadline to its lease.changed "expired" event;
// - the hold loop's ticks with 1,000 held leases, in a server process of its own
//   (support/holdTicks.ts). 1,000 real `sleep` children would be too many, so the 1,000 holds
//   share 5 real child pids. A tick reads each distinct pid once, so sharing flatters the
//   figure: `holdTickFigures(targets, 200)` spreads them over 200 real pids. A renew tick also
//   scans the process table once (each due pid's progress marker is the CPU time of its process
//   tree), so its cost grows with the processes on the machine too.
// Run: `node bench/waitLeases.ts` (or `npm run bench -- waitLeases`).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { LeaseholdClient } from '../src/client/client.ts';
import { startLeaseServer, type LeaseServer } from '../src/server/app.ts';
import { BENCH_SERVER_OPTIONS } from './support/benchServer.ts';
import { readProcessInfo } from '../src/server/observe/processInfo.ts';
import { holdTickFigures } from './support/holdTicks.ts';
import { SkippingLeaseClock } from './support/skippingLeaseClock.ts';
import { fmtMs, median, percentile, report } from './stats.ts';
import { postgresTarget, sqliteTarget, type StorageTarget } from '../test/support/storage.ts';

const databaseUrl = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL;
const targets: StorageTarget[] = [sqliteTarget, ...(databaseUrl ? [postgresTarget(databaseUrl)] : [])];

async function withServer<T>(target: StorageTarget, run: (server: LeaseServer, client: LeaseholdClient) => Promise<T>, overrides: Record<string, unknown> = {}): Promise<T> {
  const { config, cleanup } = await target.create();
  const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-'));
  const server = await startLeaseServer({ ...BENCH_SERVER_OPTIONS, storage: config, runtimeDir, ...overrides });
  try {
    return await run(server, new LeaseholdClient({ baseUrl: server.url, token: server.token }));
  } finally {
    await server.close();
    await cleanup();
    rmSync(runtimeDir, { recursive: true, force: true });
  }
}

async function latency(target: StorageTarget): Promise<void> {
  await withServer(target, async (_server, client) => {
    const evidence = { pid: process.pid, start_time: readProcessInfo(process.pid)!.startTime };
    const acquire: number[] = [];
    const renew: number[] = [];
    const release: number[] = [];
    const rounds = 1000;
    for (let index = 0; index < rounds + 50; index++) {
      let start = performance.now();
      // Held on this process: pid evidence renews only a lease pinned on that process.
      const grant = await client.holdWaitLease({ pane: `p${index % 20}`, job_ref: `j${index}`, ttl_ms: 600_000, target: { pid: evidence.pid, start_time: evidence.start_time } });
      const a = performance.now() - start;
      start = performance.now();
      await client.renewWaitLease(grant.lease_id, { token: grant.token, ttl_ms: 600_000, evidence });
      const r = performance.now() - start;
      start = performance.now();
      await client.releaseWaitLease(grant.lease_id, grant.token);
      const l = performance.now() - start;
      if (index >= 50) {
        acquire.push(a);
        renew.push(r);
        release.push(l);
      }
    }
    const fig = (values: number[]) => ({ median: fmtMs(median(values)), p99: fmtMs(percentile(values, 99)) });
    report(`[${target.name}] acquire (hold on a pid) over HTTP (n=${rounds})`, fig(acquire));
    report(`[${target.name}] renew (pid evidence) over HTTP`, { ...fig(renew), 'ratio renew/acquire': (median(renew) / median(acquire)).toFixed(2) });
    report(`[${target.name}] release over HTTP`, { ...fig(release), 'ratio release/acquire': (median(release) / median(acquire)).toFixed(2) });
  });
}

async function expiryLag(target: StorageTarget): Promise<void> {
  await withServer(
    target,
    async (server, client) => {
      const deadlines = new Map<string, number>();
      const lags: number[] = [];
      const done = new Promise<void>((resolve) => {
        server.bus.subscribe((event) => {
          if (event.type !== 'lease.changed' || event.change !== 'expired') return;
          const deadline = deadlines.get(event.lease_id);
          if (deadline === undefined) return;
          lags.push(performance.now() - deadline);
          if (lags.length === deadlines.size) resolve();
        });
      });
      const count = 200;
      for (let index = 0; index < count; index++) {
        const ttl = 200 + Math.floor(Math.random() * 1800);
        const before = performance.now();
        const grant = await client.acquireWaitLease({ pane: 'lag', job_ref: `j${index}`, ttl_ms: ttl });
        // The grant's clock reading lies between request and answer; take the later bound so lag is not understated by more than the round trip.
        deadlines.set(grant.lease_id, before + grant.expires_in_ms);
      }
      await done;
      report(`[${target.name}] expiry detection lag (n=${count}, TTL 0.2-2 s)`, {
        median: fmtMs(median(lags)),
        p99: fmtMs(percentile(lags, 99)),
        max: fmtMs(Math.max(...lags)),
        'target p99': '< 250 ms',
      });
    },
    { waitLeaseBackstopMs: 60_000 },
  );
}

/**
 * A server (its hold loop and sweeper stopped, so the caller runs the ticks) holding 1,000 leases
 * over `pids` real `sleep` processes, on a lease clock the caller can set ahead. The sleeping
 * targets make no progress, so every renewal is identical: the identical-renewal fuse is raised
 * so that renewals go on past its default 12.
 */
async function withHolds<T>(target: StorageTarget, pids: number, run: (server: LeaseServer, leaseClock: SkippingLeaseClock) => Promise<T>): Promise<T> {
  const children: ChildProcess[] = [];
  for (let index = 0; index < pids; index++) children.push(spawn('sleep', ['600'], { stdio: 'ignore' }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const leaseClock = new SkippingLeaseClock();
  try {
    return await withServer(
      target,
      async (server, client) => {
        await server.holdLoop.stop();
        for (let index = 0; index < HOLDS; index++) {
          await client.holdWaitLease({ pane: `h${index % 50}`, job_ref: `job-${index}`, ttl_ms: 600_000, target: { pid: children[index % children.length]!.pid! } });
        }
        return await run(server, leaseClock);
      },
      { leaseClock, identicalRenewalLimit: 100 },
    );
  } finally {
    for (const child of children) child.kill('SIGKILL');
  }
}

const HOLDS = 1000;

/** One hold loop tick that must renew every lease; its wall time (ms). */
async function renewTick(server: LeaseServer, leaseClock: SkippingLeaseClock, skipMs: number): Promise<number> {
  leaseClock.skip(skipMs);
  const start = performance.now();
  const result = await server.holdLoop.runOnce();
  const wall = performance.now() - start;
  if (result.renewed !== HOLDS) throw new Error(`renewed ${result.renewed}`);
  return wall;
}

/**
 * The PostgreSQL renew tick with its renewals written in statements of `sizes` rows (the store's
 * postgresBatchRows), the size changed every tick so that the machine's noise falls on each
 * alike. 40 ticks, each after the clock skips 310 s of the 600 s grants (due at half), which
 * stays inside the 4-hour chain cap; the first (cold) is left out. Returns each size's median.
 */
export async function holdBatchSizes(target: StorageTarget, sizes: readonly number[]): Promise<Map<number, number>> {
  return withHolds(target, 5, async (server, leaseClock) => {
    await server.expirySweeper.stop();
    const store = server.waitLeases.store;
    const walls = new Map<number, number[]>(sizes.map((size) => [size, []]));
    for (let tick = 0; tick < 40; tick++) {
      const size = sizes[tick % sizes.length]!;
      store.postgresBatchRows = size;
      const wall = await renewTick(server, leaseClock, 310_000);
      if (tick > 0) walls.get(size)!.push(wall);
    }
    return new Map([...walls].map(([size, figures]) => [size, median(figures)]));
  });
}

export async function benchWaitLeases(): Promise<void> {
  for (const target of targets) {
    await latency(target);
    await expiryLag(target);
  }
  await holdTickFigures(targets);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchWaitLeases();
  process.exit(0);
}
