// Claim-lease benchmarks (issue 2): claim+complete throughput and claim latency with 1 and 8
// concurrent workers on SQLite and PostgreSQL; reaper lag on real time; server cold start
// and resident memory. Run: `npm run bench` (PostgreSQL when LEASEHOLD_BENCH_DATABASE_URL or
// LEASEHOLD_TEST_DATABASE_URL is set).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { MCP_WARMUP } from './support/mcpSdkFloor.ts';
import { systemClock } from '../src/core/clock.ts';
import { LeaseholdClient } from '../src/client/client.ts';
import { silentLogger, startLeaseServer, type LeaseServer, type LeaseServerConfig } from '../src/server/app.ts';
import type { EndpointRecord } from '../src/server/claims/records.ts';
import { readDiscovery } from '../src/runtime/discovery.ts';
import { lastJsonLine } from './support/childJson.ts';
import { fmtMs, median, percentile, report, rssMb } from './stats.ts';
import { vendWorker } from '../test/support/server.ts';
import { postgresTarget, sqliteTarget, type StorageTarget } from '../test/support/storage.ts';

const databaseUrl = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL;
const targets: StorageTarget[] = [sqliteTarget, ...(databaseUrl ? [postgresTarget(databaseUrl)] : [])];
const TODOS_PER_RUN = 4000;

async function withServer<T>(target: StorageTarget, run: (server: LeaseServer) => Promise<T>, overrides: Partial<LeaseServerConfig> = {}): Promise<T> {
  const { config, cleanup } = await target.create();
  const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-'));
  const server = await startLeaseServer({ storage: config, runtimeDir, logger: silentLogger, clock: systemClock, singleInstance: false, ...overrides });
  try {
    return await run(server);
  } finally {
    await server.close();
    await cleanup();
    rmSync(runtimeDir, { recursive: true, force: true });
  }
}

async function throughput(target: StorageTarget, workers: number): Promise<void> {
  await withServer(target, async (server) => {
    const endpoints: EndpointRecord[] = [];
    for (let index = 0; index < workers; index++) {
      endpoints.push(await vendWorker(server, { slug: `w${index}` }));
    }
    for (let index = 0; index < TODOS_PER_RUN; index++) await server.claims.createTodo(server.human, { queue: 'bench', title: `t${index}` });
    const claimLatencies: number[] = [];
    const started = performance.now();
    let completed = 0;
    await Promise.all(
      endpoints.map(async (endpoint) => {
        for (;;) {
          const before = performance.now();
          const claim = await server.claims.claimNext(endpoint, 'bench');
          claimLatencies.push(performance.now() - before);
          if (!claim) return;
          await server.claims.complete(endpoint, claim.todo_id, claim.claim_epoch);
          completed += 1;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    report(`claim+complete ${target.name}, ${workers} worker(s)`, {
      per_s: Math.round(completed / seconds),
      claim_median: fmtMs(median(claimLatencies)),
      claim_p99: fmtMs(percentile(claimLatencies, 99)),
      rss_mb: rssMb().toFixed(0),
    });
  });
}

export const MCP_CLAIMS = 500;

/**
 * MCP claim_next over HTTP with the real SDK client: 200 claims unmeasured (MCP_WARMUP), then
 * 500, each completed; returns the median (ms) of the 500. `client`: 'in-process' (the SDK
 * client shares the server's event loop, as in issue 11's target) or 'child' (the client in its
 * own process, as Claude Code is).
 */
export async function mcpLatency(target: StorageTarget, client: 'in-process' | 'child' = 'in-process', overrides: Partial<LeaseServerConfig> = {}): Promise<number> {
  const { connectMcp } = await import('../test/support/mcp.ts');
  return withServer(target, async (server) => {
    const vended = await server.claims.vendEndpoint(server.human, { slug: 'mcp' });
    for (let index = 0; index < MCP_WARMUP + MCP_CLAIMS; index++) await server.claims.createTodo(server.human, { queue: 'bench', title: `t${index}` });
    let latencies: number[] = [];
    if (client === 'child') {
      latencies = (await childClientLatencies(server.url, vended.token, MCP_WARMUP + MCP_CLAIMS)).slice(MCP_WARMUP);
    } else {
      const session = await connectMcp(server.url, vended.token);
      for (let index = 0; index < MCP_WARMUP + MCP_CLAIMS; index++) {
        const before = performance.now();
        const claim = await session.call('claim_next', { queue: 'bench' });
        if (index >= MCP_WARMUP) latencies.push(performance.now() - before);
        await session.call('complete', { todo_id: claim.value.todo_id, claim_epoch: claim.value.claim_epoch });
      }
      await session.close();
    }
    report(`MCP claim_next over HTTP ${target.name}, client ${client}`, { median: fmtMs(median(latencies)), p99: fmtMs(percentile(latencies, 99)) });
    return median(latencies);
  }, overrides);
}

/** Runs bench/support/mcpClaimClient.ts in its own process against the server (the token on stdin); its claim_next latencies. */
function childClientLatencies(url: string, token: string, count: number): Promise<number[]> {
  return lastJsonLine<number[]>(fileURLToPath(new URL('./support/mcpClaimClient.ts', import.meta.url)), [url, String(count)], token);
}

async function reaperLag(target: StorageTarget): Promise<void> {
  await withServer(target, async (server) => {
    const endpoint = await vendWorker(server, { slug: 'lag' });
    const expiries = new Map<string, number>();
    const lags: number[] = [];
    const done = new Promise<void>((resolve) => {
      server.bus.subscribe((event) => {
        if (event.type !== 'todo.changed' || event.change !== 'reaped') return;
        const expiry = expiries.get(event.todo_id);
        if (expiry === undefined) return;
        lags.push(Date.now() - expiry);
        if (lags.length === 60) resolve();
      });
    });
    // 60 leases of 1-3 s, granted over ~1.5 s so expiries are spread out.
    for (let index = 0; index < 60; index++) {
      const todo = await server.claims.createTodo(server.human, { queue: 'lag', title: `t${index}` });
      const claim = await server.claims.claim(endpoint, todo.id, 1 + (index % 3));
      expiries.set(todo.id, claim.lease_expires_at);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await done;
    report(`reaper lag (expiry → claimable) ${target.name}`, { n: lags.length, median: fmtMs(median(lags)), p99: fmtMs(percentile(lags, 99)), max: fmtMs(Math.max(...lags)) });
  });
}

async function coldStart(): Promise<void> {
  const cli = fileURLToPath(new URL('../bin/leasehold.cjs', import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-data-'));
  const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-rt-'));
  const once = async (label: string) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, 'serve'], { env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir }, stdio: 'ignore' });
    let answeredAt = 0;
    for (;;) {
      const discovery = readDiscovery(runtimeDir);
      if (discovery && discovery.pid === child.pid) {
        try {
          await new LeaseholdClient({ baseUrl: discovery.url, timeoutMs: 1000 }).health();
          answeredAt = performance.now();
          break;
        } catch {
          // not yet
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const rss = rssMb(child.pid!);
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    return { ms: answeredAt - started, rss, label };
  };
  const fresh = await once('fresh');
  const existing: Array<{ ms: number; rss: number }> = [];
  for (let index = 0; index < 5; index++) existing.push(await once('existing'));
  report('server cold start, fresh data dir (1 run)', { to_first_answer: fmtMs(fresh.ms), rss_mb: fresh.rss.toFixed(0) });
  report('server cold start, existing data dir (5 runs)', {
    median: fmtMs(median(existing.map((run) => run.ms))),
    rss_mb_median: median(existing.map((run) => run.rss)).toFixed(0),
  });
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(runtimeDir, { recursive: true, force: true });
}

export async function benchClaims(): Promise<void> {
  process.stdout.write('# claim leases\n');
  for (const target of targets) {
    await throughput(target, 1);
    await throughput(target, 8);
    await mcpLatency(target);
    await mcpLatency(target, 'child');
    await reaperLag(target);
  }
  await coldStart();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchClaims();
