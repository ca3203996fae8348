// Team mode (issue 9): two lease servers (separate processes) on one PostgreSQL database.
//  - claim+complete throughput, 8 workers per server racing on one shared queue: total and per
//    server (bench/support/teamModeServer.ts runs a server and its workers);
//  - one view of change: a PATCH of an endpoint's default lease through B, until A's SSE client
//    hears endpoint.changed and until an MCP session on A receives tools/list_changed (LISTEN/
//    NOTIFY), median and p99.
// Run: `npm run bench -- teamMode` with LEASEHOLD_BENCH_DATABASE_URL or LEASEHOLD_TEST_DATABASE_URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { LeaseholdClient } from '../src/client/client.ts';
import { connectMcp } from '../test/support/mcp.ts';
import { postgresTarget } from '../test/support/storage.ts';
import { fmtMs, median, percentile, report } from './stats.ts';

const databaseUrl = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL;
const RUNNER = fileURLToPath(new URL('./support/teamModeServer.ts', import.meta.url));
const TODOS = 4000;
const WORKERS_PER_SERVER = 8;
const CHANGES = 200;

interface Runner {
  name: string;
  url: string;
  token: string;
  child: ChildProcess;
  ask(line: string): Promise<Record<string, number>>;
}

async function startRunner(name: string, schema: string, runtimeDir: string): Promise<Runner> {
  const child = spawn(process.execPath, [RUNNER], {
    env: { ...process.env, LH_BENCH_DB_URL: databaseUrl, LH_BENCH_SCHEMA: schema, LH_BENCH_RUNTIME_DIR: runtimeDir, LH_BENCH_NAME: name },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => waiters.shift()?.(line));
  const next = () => new Promise<string>((resolve) => waiters.push(resolve));
  const hello = JSON.parse(await next()) as { url: string; token: string };
  return {
    name,
    ...hello,
    child,
    async ask(line) {
      const answer = next();
      child.stdin!.write(`${line}\n`);
      return JSON.parse(await answer) as Record<string, number>;
    },
  };
}

export async function benchTeamMode(): Promise<void> {
  if (!databaseUrl) {
    process.stdout.write('team mode: skipped (set LEASEHOLD_BENCH_DATABASE_URL or LEASEHOLD_TEST_DATABASE_URL)\n');
    return;
  }
  const { config, cleanup } = await postgresTarget(databaseUrl).create();
  const schema = (config as { schema: string }).schema;
  const dirs = [mkdtempSync(join(tmpdir(), 'leasehold-bench-team-a-')), mkdtempSync(join(tmpdir(), 'leasehold-bench-team-b-'))];
  const runners: Runner[] = [];
  try {
    runners.push(await startRunner('A', schema, dirs[0]!), await startRunner('B', schema, dirs[1]!));
    const [a, b] = runners as [Runner, Runner];

    // Throughput: both servers' workers race on one queue.
    await a.ask(`fill shared ${TODOS}`);
    const started = performance.now();
    const [byA, byB] = await Promise.all([a.ask(`work shared ${WORKERS_PER_SERVER}`), b.ask(`work shared ${WORKERS_PER_SERVER}`)]);
    const seconds = (performance.now() - started) / 1000;
    if (byA.completed! + byB.completed! !== TODOS) throw new Error(`completed ${byA.completed! + byB.completed!} of ${TODOS}`);
    report(`team mode claim+complete, 2 servers x ${WORKERS_PER_SERVER} workers`, {
      total: `${Math.round(TODOS / seconds)}/s`,
      A: `${Math.round(byA.completed! / byA.seconds!)}/s (${byA.completed})`,
      B: `${Math.round(byB.completed! / byB.seconds!)}/s (${byB.completed})`,
    });

    // One view of change: PATCH through B, heard on A (SSE and an MCP session).
    const viaA = new LeaseholdClient({ baseUrl: a.url, token: a.token });
    const viaB = new LeaseholdClient({ baseUrl: b.url, token: b.token });
    const vended = await viaA.vendEndpoint({ slug: 'watched', default_lease_ttl_seconds: 600 });
    const mcp = await connectMcp(a.url, vended.token);
    let heard: (() => void) | undefined;
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const stream = viaA.openEventStream({
      onOpen: () => opened(),
      onEvent: (event) => {
        if (event.event === 'endpoint.changed' && event.data.includes(vended.endpoint.id)) heard?.();
      },
      onEnd: () => undefined,
    });
    await open;
    const sse: number[] = [];
    const listChanged: number[] = [];
    try {
      for (let round = 1; round <= CHANGES; round++) {
        const sseHeard = new Promise<void>((resolve) => (heard = resolve));
        const heardBefore = mcp.listChangedCount();
        const before = performance.now();
        const patched = viaB.editEndpoint('watched', { default_lease_ttl_seconds: round % 2 ? 3600 : 600 });
        // Each measured on its own: whichever arrives first does not wait for the other.
        await Promise.all([
          sseHeard.then(() => sse.push(performance.now() - before)),
          mcp.waitForListChanged(heardBefore + 1, 5_000).then(() => listChanged.push(performance.now() - before)),
          patched,
        ]);
      }
    } finally {
      stream.close();
      await mcp.close();
    }
    report(`change on B -> SSE event on A (${CHANGES})`, { median: fmtMs(median(sse)), p99: fmtMs(percentile(sse, 99)) });
    report(`change on B -> tools/list_changed on A (${CHANGES})`, { median: fmtMs(median(listChanged)), p99: fmtMs(percentile(listChanged, 99)) });
  } finally {
    for (const runner of runners) {
      runner.child.kill('SIGTERM');
      await new Promise((resolve) => runner.child.once('exit', resolve));
    }
    await cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
