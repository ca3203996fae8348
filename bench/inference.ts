// The inferred tier's observation tick (issue 12): CPU time of one InferenceObserver.runOnce
// with 50 registered panes and 200 processes (each pane: its shell, a running child and two
// grandchildren), on real storage (SQLite; PostgreSQL too when LEASEHOLD_BENCH_DATABASE_URL or
// LEASEHOLD_TEST_DATABASE_URL is set). The process table is injected (200 real processes
// under 50 real shells would measure the machine, not the tick); the real /proc scan is timed
// on its own beside it. Figures: the first tick (50 inferred leases acquired) and the steady
// tick (every lease kept: reads only), CPU ms per tick, medians and p99 over 200 ticks.
// Run: `node bench/inference.ts` (or `npm run bench -- inference`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLeaseServer } from '../src/server/app.ts';
import { BENCH_SERVER_OPTIONS } from './support/benchServer.ts';
import { listProcesses, type ProcessInfo } from '../src/server/observe/processInfo.ts';
import { InferenceObserver } from '../src/server/waitLeases/inference.ts';
import { median, percentile, report } from './stats.ts';
import { postgresTarget, sqliteTarget, type StorageTarget } from '../test/support/storage.ts';

const databaseUrl = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL;
const targets: StorageTarget[] = [sqliteTarget, ...(databaseUrl ? [postgresTarget(databaseUrl)] : [])];
const PANES = 50;
const TICKS = 200;

/** 50 shells, each with a child and two grandchildren: 200 processes. */
function syntheticTable(): ProcessInfo[] {
  const table: ProcessInfo[] = [];
  for (let pane = 0; pane < PANES; pane++) {
    const shell = 100_000 + pane * 10;
    // An interactive shell on its terminal, `npm` its foreground job (its own process group).
    const job = { pgrp: shell + 1, tpgid: shell + 1 };
    table.push({ pid: shell, ppid: 1, startTime: String(1000 + pane), state: 'S', comm: 'bash', cpuTicks: 5, pgrp: shell, tpgid: shell + 1 });
    table.push({ pid: shell + 1, ppid: shell, startTime: String(2000 + pane), state: 'S', comm: 'npm', cpuTicks: 50, ...job });
    table.push({ pid: shell + 2, ppid: shell + 1, startTime: String(3000 + pane), state: 'R', comm: 'node', cpuTicks: 500, ...job });
    table.push({ pid: shell + 3, ppid: shell + 1, startTime: String(3001 + pane), state: 'S', comm: 'node', cpuTicks: 400, ...job });
  }
  return table;
}

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function cpuMsAsync(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function tickCost(target: StorageTarget): Promise<void> {
  const { config, cleanup } = await target.create();
  const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-'));
  const sessions = mkdtempSync(join(tmpdir(), 'leasehold-bench-sessions-'));
  const server = await startLeaseServer({ ...BENCH_SERVER_OPTIONS, storage: config, runtimeDir, inference: false });
  try {
    await server.holdLoop.stop(); // the synthetic pids are not real: only the observation tick is measured
    const table = syntheticTable();
    for (let pane = 0; pane < PANES; pane++) {
      const shell = table[pane * 4]!;
      await server.waitLeases.forHuman(server.human.id).registerPane({ name: `bench-${pane}`, source: 'vscode', shell_pid: shell.pid, shell_start_time: shell.startTime });
    }
    const observer = new InferenceObserver({
      service: server.waitLeases,
      clock: server.waitLeases.clock,
      listProcesses: () => table.map((info) => ({ ...info })),
      readArgv: (pid) => ['npm', 'run', 'test', '--', '--shard', String(pid)],
      claudeSessionsDir: sessions,
    });
    let acquired = 0;
    const first = await cpuMsAsync(async () => {
      acquired = (await observer.runOnce()).acquired;
    });
    const steady: number[] = [];
    for (let tick = 0; tick < TICKS; tick++) steady.push(await cpuMsAsync(() => observer.runOnce()));
    report(`inference tick (${target.name}, ${PANES} panes, ${table.length} processes)`, {
      first_tick_cpu: `${first.toFixed(1)} ms (${acquired} acquired)`,
      steady_cpu_median: `${median(steady).toFixed(2)} ms`,
      steady_cpu_p99: `${percentile(steady, 99).toFixed(2)} ms`,
      cpu_share_at_2s_tick: `${((median(steady) / 2000) * 100).toFixed(2)}%`,
    });
  } finally {
    await server.close();
    await cleanup();
    rmSync(runtimeDir, { recursive: true, force: true });
    rmSync(sessions, { recursive: true, force: true });
  }
}

export async function benchInference(): Promise<void> {
  const scans: number[] = [];
  let size = 0;
  for (let n = 0; n < 50; n++) scans.push(cpuMs(() => (size = listProcesses().length)));
  report(`real process-table scan (/proc, ${size} processes)`, { cpu_median: `${median(scans).toFixed(2)} ms`, cpu_p99: `${percentile(scans, 99).toFixed(2)} ms` });
  for (const target of targets) await tickCost(target);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchInference();
  process.exit(0);
}
