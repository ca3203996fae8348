// The hold loop's tick with 1,000 held leases (SQLite, then PostgreSQL), measured in a lease
// server process of its own (holdServer.ts, bundled as `leasehold serve` ships and started with
// the server's memory settings), the bench's client in this process: verify-only ticks, then
// ticks that renew every lease. bench/claimPeers.ts runs this file for its renew tick figure
// and bench/waitLeases.ts calls holdTickFigures. In the bench's own process, after the peers'
// runs, the same ticks paid for collecting a heap that is the bench's (SQLite's first three
// 74.5 ms with 122.7 ms of CPU, against 33-37 ms alone, minutes apart; 2026-12-07); in a
// process holding the server and its client, a major collection of the setup's garbage fell on
// the first tick (2026-12-07, later). Run directly, it prints the renew figures (ms, by
// storage) as the last line, as JSON.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LeaseholdClient } from '../../src/client/client.ts';
import { serverSpawnSettings } from '../../src/runtime/serverMemory.ts';
import { postgresTarget, sqliteTarget, type StorageTarget } from '../../test/support/storage.ts';
import { fmtMs, median, report, rssMb } from '../stats.ts';
import { bundleServer } from './bundledServer.ts';
import type { TickRequest, TickResult } from './holdServer.ts';

const HOLDS = 1000;
/** Renew ticks after the first three, for the warm figure. */
const WARM_RENEW_TICKS = 10;

// The same database as the bench's (its environment is this process's).
const databaseUrl = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`hold bench server exited ${code}`));
    child.once('exit', exited);
    child.once('message', (message) => {
      child.off('exit', exited);
      resolve(message as T);
    });
  });
}

/**
 * Hold loop ticks with 1,000 leases held over `pids` real `sleep` processes (1,000 children
 * would be too many; a tick reads each distinct pid once, so sharing flatters the figure);
 * the median wall time (ms) of the first three that renew them all.
 */
async function holdTicks(target: StorageTarget, bundle: string, pids: number): Promise<number> {
  const sleepers = Array.from({ length: pids }, () => spawn('sleep', ['600'], { stdio: 'ignore' }));
  const { config, cleanup } = await target.create();
  const settings = serverSpawnSettings(process.env);
  const server = spawn(process.execPath, [...settings.flags, bundle], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...settings.env } });
  try {
    const listening = nextMessage<{ url: string; token: string }>(server);
    server.send(config);
    const { url, token } = await listening;
    const client = new LeaseholdClient({ baseUrl: url, token });
    for (let index = 0; index < HOLDS; index++) {
      await client.holdWaitLease({ pane: `h${index % 50}`, job_ref: `job-${index}`, ttl_ms: 600_000, target: { pid: sleepers[index % pids]!.pid! } });
    }
    const tick = async (request: TickRequest) => {
      const result = nextMessage<TickResult>(server);
      server.send(request);
      return result;
    };
    // Ticks with no renewal due: each verifies all 1,000 targets (reads only).
    const verify: TickResult[] = [];
    for (let index = 0; index < 10; index++) verify.push(await tick({ skipMs: 0 }));
    if (verify.some((result) => result.checked !== HOLDS)) throw new Error(`checked ${verify.map((result) => result.checked).join(',')}`);
    const verifyCpu = median(verify.map((result) => result.cpuMs));
    report(`[${target.name}] hold loop tick, 1,000 holds on ${pids} real pids`, {
      'verify tick median': fmtMs(median(verify.map((result) => result.wallMs))),
      'CPU/tick': fmtMs(verifyCpu),
      'CPU share @2s interval': `${((verifyCpu / 2000) * 100).toFixed(2)}%`,
      'server RSS (MB)': rssMb(server.pid!).toFixed(0),
    });
    // Ticks where every lease is due: each after the lease clock skips 9 minutes of the
    // 10-minute grants. A server renews at every due tick, but 1,000 at once come only every few
    // minutes, so the first three of a process are the figure, the next ten the warm one.
    const renew: TickResult[] = [];
    for (let index = 0; index < 3 + WARM_RENEW_TICKS; index++) renew.push(await tick({ skipMs: 540_000 }));
    if (renew.some((result) => result.renewed !== HOLDS)) throw new Error(`renewed ${renew.map((result) => result.renewed).join(',')}`);
    const first = renew.slice(0, 3);
    const wall = median(first.map((result) => result.wallMs));
    report(`[${target.name}] hold loop renew tick (1,000 renewals on ${pids} pids, median of the first 3)`, {
      wall: fmtMs(wall),
      CPU: fmtMs(median(first.map((result) => result.cpuMs))),
      ticks: first.map((result) => fmtMs(result.wallMs)).join(', '),
      [`warm median (next ${WARM_RENEW_TICKS})`]: fmtMs(median(renew.slice(3).map((result) => result.wallMs))),
    });
    return wall;
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      await new Promise((resolve) => {
        server.once('exit', resolve);
        server.kill('SIGTERM');
      });
    }
    for (const sleeper of sleepers) sleeper.kill('SIGKILL');
    await cleanup();
  }
}

/** The renew tick figure (ms) of each storage, in a server process of its own each. */
export async function holdTickFigures(targets: readonly StorageTarget[], pids = 5): Promise<Record<string, number>> {
  const bundle = await bundleServer('bench/support/holdServer.ts');
  const ticks: Record<string, number> = {};
  try {
    for (const target of targets) ticks[target.name] = await holdTicks(target, bundle.path, pids);
  } finally {
    bundle.remove();
  }
  return ticks;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify(await holdTickFigures([sqliteTarget, postgresTarget(databaseUrl)]))}\n`);
  process.exit(0);
}
