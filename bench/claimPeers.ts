// Claims side by side with their peers, in one run (issue 11): claim+complete/s for 4,000 todos
// with Leasehold at the storage layer (ClaimService, as the peers are measured through their
// libraries) on PostgreSQL and SQLite, pg-boss 12 on the same PostgreSQL, BullMQ 5 on Redis,
// and the raw floors (a bare `UPDATE … FOR UPDATE SKIP LOCKED … RETURNING` plus a complete on
// PostgreSQL; the same claim + event insert in one transaction per transition on node:sqlite).
// Contenders run interleaved, round after round, so machine noise spreads over all of them;
// each figure is the median of the rounds and is printed with its ratio to each peer and floor.
// Then: MCP claim_next over HTTP, the hold loop's renew tick, server RSS, and cost as work grows.
// Run: `npm run bench -- claimPeers` (LEASEHOLD_BENCH_ROUNDS, default 3; PostgreSQL from
// LEASEHOLD_BENCH_DATABASE_URL / LEASEHOLD_TEST_DATABASE_URL, else 127.0.0.1:5432/test;
// Redis from LEASEHOLD_BENCH_REDIS_URL, else 127.0.0.1:6379, started if down).
// LEASEHOLD_BENCH_CONTENDERS=lh-pg-1,boss-1,raw-pg-1 runs only those side-by-side contenders
// (keys as in `contenders` below) and nothing after the table: for measuring one change.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { Queue, Worker } from 'bullmq';
import { serverSpawnSettings } from '../src/runtime/serverMemory.ts';
import { generateOrderedId } from '../src/server/auth/tokens.ts';
import { silentLogger, startLeaseServer, type LeaseServer } from '../src/server/app.ts';
import type { EndpointRecord } from '../src/server/claims/records.ts';
import { vendWorker } from '../test/support/server.ts';
import { postgresTarget, sqliteTarget, type StorageTarget } from '../test/support/storage.ts';
import { bundleServer, rssLoad, startBundledServer } from './support/bundledServer.ts';
import { lastJsonLine } from './support/childJson.ts';
import type { McpRounds } from './support/mcpRounds.ts';
import { fmtMs, median, percentile, report, reportRounds, rssMb } from './stats.ts';

const DATABASE_URL = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = new URL(process.env.LEASEHOLD_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379');
const ROUNDS = Math.max(1, Number(process.env.LEASEHOLD_BENCH_ROUNDS ?? 3));
const ONLY = process.env.LEASEHOLD_BENCH_CONTENDERS ? new Set(process.env.LEASEHOLD_BENCH_CONTENDERS.split(',').map((key) => key.trim())) : undefined;
const TODOS = 4000;
const root = fileURLToPath(new URL('..', import.meta.url));
const pgTarget = postgresTarget(DATABASE_URL);

// A contender's timed run must not pay for the garbage the runs and the setup before it left
// (BullMQ's and the 8-worker runs' heaps are large), nor start while the databases still write
// out that work: before each, a full collection and a short pause.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
async function settle(): Promise<void> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 250));
}

interface RunFigures {
  perSecond: number;
  claimMs: number[];
}

/** Runs `workers` loops of claim+complete until each finds nothing; times only that. */
async function drain(workers: number, makeLoop: (index: number) => { claim: () => Promise<unknown>; complete: (claimed: unknown) => Promise<void> }): Promise<RunFigures> {
  const claimMs: number[] = [];
  let done = 0;
  const loops = Array.from({ length: workers }, (_, index) => makeLoop(index));
  await settle();
  const started = performance.now();
  await Promise.all(
    loops.map(async (loop) => {
      for (;;) {
        const before = performance.now();
        const claimed = await loop.claim();
        claimMs.push(performance.now() - before);
        if (!claimed) return;
        await loop.complete(claimed);
        done += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (done !== TODOS) throw new Error(`drained ${done} of ${TODOS}`);
  return { perSecond: done / seconds, claimMs };
}

// Leasehold ------------------------------------------------------------------------------

async function startServer(target: StorageTarget): Promise<{ server: LeaseServer; endpoints: EndpointRecord[]; close: () => Promise<void> }> {
  const { config, cleanup } = await target.create();
  const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-'));
  const server = await startLeaseServer({ storage: config, runtimeDir, logger: silentLogger, singleInstance: false });
  const endpoints: EndpointRecord[] = [];
  for (let index = 0; index < 8; index++) {
    endpoints.push(await vendWorker(server, { slug: `w${index}` }));
  }
  return {
    server,
    endpoints,
    close: async () => {
      await server.close();
      await cleanup();
      rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
}

/** Adds queued todos in bulk (setup, not measured): `perQueue` in each of `queues`. */
async function addTodos(server: LeaseServer, queues: string[], perQueue: number): Promise<void> {
  const db = server.claimStore.db;
  const sqlite = db.dialect === 'sqlite';
  const now = Date.now();
  const rows: Array<[string, string]> = [];
  for (let index = 0; index < perQueue; index++) for (const queue of queues) rows.push([queue, `t${index}`]);
  await db.transaction(async (tx) => {
    let seq = sqlite ? ((await tx.all<{ seq: number }>('SELECT COALESCE(MAX(seq), 0) AS seq FROM todos'))[0]!.seq as number) : 0;
    for (let offset = 0; offset < rows.length; offset += 500) {
      const chunk = rows.slice(offset, offset + 500);
      const values: (string | number | null)[] = [];
      for (const [queue, title] of chunk) {
        values.push(generateOrderedId('td'), queue, title, 'null', 'queued', 0, 0, server.human.id, now, now);
        if (sqlite) values.push(++seq);
      }
      const placeholders = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?${sqlite ? ', ?' : ''})`;
      await tx.run(
        `INSERT INTO todos (id, queue, title, payload, state, attempts, claim_epoch, created_by, created_at, updated_at${sqlite ? ', seq' : ''})
         VALUES ${chunk.map(() => placeholders).join(', ')}`,
        values,
      );
    }
  });
}

async function leaseholdRun(lh: { server: LeaseServer; endpoints: EndpointRecord[] }, workers: number, queue: string): Promise<RunFigures> {
  await addTodos(lh.server, [queue], TODOS);
  return drain(workers, (index) => {
    const endpoint = lh.endpoints[index]!;
    return {
      claim: () => lh.server.claims.claimNext(endpoint, queue),
      complete: async (claimed) => {
        const claim = claimed as { todo_id: string; claim_epoch: number };
        await lh.server.claims.complete(endpoint, claim.todo_id, claim.claim_epoch);
      },
    };
  });
}

// pg-boss 12 -----------------------------------------------------------------------------

async function startPgBoss(schema: string): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: DATABASE_URL, schema, schedule: false });
  boss.on('error', (error: unknown) => process.stderr.write(`pg-boss: ${String(error)}\n`));
  await boss.start();
  return boss;
}

async function pgBossRun(boss: PgBoss, workers: number, queue: string): Promise<RunFigures> {
  await boss.createQueue(queue);
  for (let offset = 0; offset < TODOS; offset += 1000) {
    await boss.insert(queue, Array.from({ length: 1000 }, (_, index) => ({ data: { title: `t${offset + index}` } })));
  }
  return drain(workers, () => ({
    claim: async () => (await boss.fetch(queue))[0],
    complete: async (job) => {
      await boss.complete(queue, (job as { id: string }).id);
    },
  }));
}

// Raw floor on PostgreSQL: one autocommitted claim statement, one complete ---------------

async function rawPgSetup(schema: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10, options: `-c search_path=${schema}` });
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(`CREATE TABLE jobs (id BIGSERIAL PRIMARY KEY, queue TEXT NOT NULL, state TEXT NOT NULL, holder TEXT, claim_epoch INTEGER NOT NULL DEFAULT 0,
    lease_expires_at BIGINT, updated_at BIGINT);
    CREATE INDEX jobs_by_queue ON jobs (queue, state, id)`);
  return pool;
}

async function rawPgRun(pool: pg.Pool, workers: number, queue: string): Promise<RunFigures> {
  await pool.query(`INSERT INTO jobs (queue, state) SELECT $1, 'queued' FROM generate_series(1, $2::int)`, [queue, TODOS]);
  return drain(workers, (index) => ({
    claim: async () => {
      const now = Date.now();
      const { rows } = await pool.query(
        `UPDATE jobs SET state = 'claimed', holder = $1, claim_epoch = claim_epoch + 1, lease_expires_at = $2, updated_at = $3
         WHERE id = (SELECT id FROM jobs WHERE queue = $4 AND state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING id, claim_epoch`,
        [`w${index}`, now + 300_000, now, queue],
      );
      return rows[0];
    },
    complete: async (claimed) => {
      const job = claimed as { id: string; claim_epoch: number };
      await pool.query(`UPDATE jobs SET state = 'done', lease_expires_at = NULL, updated_at = $1 WHERE id = $2 AND claim_epoch = $3 AND state = 'claimed'`, [
        Date.now(),
        job.id,
        job.claim_epoch,
      ]);
    },
  }));
}

// Raw floor on node:sqlite: claim + event row, one transaction per transition -----------

function rawSqliteSetup(dir: string): DatabaseSync {
  const db = new DatabaseSync(join(dir, 'floor.db'));
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
    CREATE TABLE jobs (id INTEGER PRIMARY KEY, queue TEXT NOT NULL, state TEXT NOT NULL, holder TEXT, claim_epoch INTEGER NOT NULL DEFAULT 0,
      lease_expires_at INTEGER, updated_at INTEGER);
    CREATE INDEX jobs_by_queue ON jobs (queue, state, id);
    CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, job_id INTEGER NOT NULL, kind TEXT NOT NULL, claim_epoch INTEGER NOT NULL, at INTEGER NOT NULL);`);
  return db;
}

async function rawSqliteRun(db: DatabaseSync, workers: number, queue: string): Promise<RunFigures> {
  db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO jobs (queue, state) SELECT ?, 'queued' FROM n`).run(TODOS, queue);
  const claim = db.prepare(
    `UPDATE jobs SET state = 'claimed', holder = ?, claim_epoch = claim_epoch + 1, lease_expires_at = ?, updated_at = ?
     WHERE id = (SELECT id FROM jobs WHERE queue = ? AND state = 'queued' ORDER BY id LIMIT 1) RETURNING id, claim_epoch`,
  );
  const complete = db.prepare(`UPDATE jobs SET state = 'done', lease_expires_at = NULL, updated_at = ? WHERE id = ? AND claim_epoch = ? AND state = 'claimed'`);
  const event = db.prepare('INSERT INTO events (job_id, kind, claim_epoch, at) VALUES (?, ?, ?, ?)');
  const inTransaction = <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const value = fn();
      db.exec('COMMIT');
      return value;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };
  return drain(workers, (index) => ({
    claim: async () =>
      inTransaction(() => {
        const now = Date.now();
        const row = claim.get(`w${index}`, now + 300_000, now, queue) as { id: number; claim_epoch: number } | undefined;
        if (row) event.run(row.id, 'claimed', row.claim_epoch, now);
        return row;
      }),
    complete: async (claimed) => {
      const job = claimed as { id: number; claim_epoch: number };
      inTransaction(() => {
        const now = Date.now();
        if (complete.run(now, job.id, job.claim_epoch).changes) event.run(job.id, 'completed', job.claim_epoch, now);
      });
    },
  }));
}

// BullMQ 5 on Redis ----------------------------------------------------------------------

function ensureRedis(): void {
  const local = ['127.0.0.1', 'localhost'].includes(REDIS_URL.hostname) && (REDIS_URL.port || '6379') === '6379';
  if (local) execFileSync('bash', [join(root, 'scripts/ensure-redis.sh')], { stdio: 'inherit' });
}

const redisConnection = () => ({ host: REDIS_URL.hostname, port: Number(REDIS_URL.port || 6379), maxRetriesPerRequest: null });

async function bullRun(prefix: string, workers: number, name: string): Promise<RunFigures> {
  const queue = new Queue(name, { connection: redisConnection(), prefix });
  for (let offset = 0; offset < TODOS; offset += 1000) {
    await queue.addBulk(Array.from({ length: 1000 }, (_, index) => ({ name: 'todo', data: { title: `t${offset + index}` } })));
  }
  const bullWorkers = Array.from({ length: workers }, () => new Worker(name, null, { connection: redisConnection(), prefix, autorun: false }));
  await Promise.all(bullWorkers.map((worker) => worker.waitUntilReady()));
  try {
    return await drain(workers, (index) => {
      const worker = bullWorkers[index]!;
      const token = `w${index}`;
      return {
        claim: () => worker.getNextJob(token, { block: false }),
        complete: async (job) => {
          await (job as { moveToCompleted: (value: unknown, token: string, fetchNext: boolean) => Promise<unknown> }).moveToCompleted('ok', token, false);
        },
      };
    });
  } finally {
    await Promise.all(bullWorkers.map((worker) => worker.close()));
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

// The side-by-side table -----------------------------------------------------------------

interface Contender {
  key: string;
  label: string;
  run: (round: number) => Promise<RunFigures>;
}

const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : '—');

async function sideBySide(): Promise<Map<string, { perSecond: number; p99: number; rounds: number[] }>> {
  const tag = randomBytes(4).toString('hex');
  const floorDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-floor-'));
  const lhPg = await startServer(pgTarget);
  const lhSqlite = await startServer(sqliteTarget);
  const boss = await startPgBoss(`pgboss_bench_${tag}`);
  const rawPg = await rawPgSetup(`raw_bench_${tag}`);
  const rawSqlite = rawSqliteSetup(floorDir);
  const bullPrefix = `leasehold-bench-${tag}`;
  const all: Contender[] = [
    { key: 'lh-pg-1', label: 'Leasehold PostgreSQL, 1 worker', run: (r) => leaseholdRun(lhPg, 1, `q1-${r}`) },
    { key: 'lh-pg-8', label: 'Leasehold PostgreSQL, 8 workers', run: (r) => leaseholdRun(lhPg, 8, `q8-${r}`) },
    { key: 'lh-sqlite-8', label: 'Leasehold SQLite, 8 workers', run: (r) => leaseholdRun(lhSqlite, 8, `q8-${r}`) },
    { key: 'boss-1', label: 'pg-boss 12, 1 worker', run: (r) => pgBossRun(boss, 1, `q1-${r}`) },
    { key: 'boss-8', label: 'pg-boss 12, 8 workers', run: (r) => pgBossRun(boss, 8, `q8-${r}`) },
    { key: 'raw-pg-1', label: 'raw PostgreSQL floor, 1 worker', run: (r) => rawPgRun(rawPg, 1, `q1-${r}`) },
    { key: 'raw-pg-8', label: 'raw PostgreSQL floor, 8 workers', run: (r) => rawPgRun(rawPg, 8, `q8-${r}`) },
    { key: 'raw-sqlite-8', label: 'raw node:sqlite floor, 8 workers', run: (r) => rawSqliteRun(rawSqlite, 8, `q8-${r}`) },
    { key: 'bull-8', label: 'BullMQ 5 on Redis, 8 workers', run: (r) => bullRun(bullPrefix, 8, `q8-${r}`) },
  ];
  const contenders = all.filter((contender) => !ONLY || ONLY.has(contender.key));
  if (contenders.length === 0) throw new Error(`LEASEHOLD_BENCH_CONTENDERS names none of ${all.map((contender) => contender.key).join(', ')}`);
  const results = new Map<string, RunFigures[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const contender of contenders) {
        const figures = await contender.run(round);
        results.set(contender.key, [...(results.get(contender.key) ?? []), figures]);
      }
      process.stdout.write(`  round ${round + 1}/${ROUNDS} done, load ${loadavg()[0]!.toFixed(1)}\n`);
    }
    // How far PostgreSQL transitions were coalesced (1 and 8 workers together): calls per statement.
    const batches = lhPg.server.claimStore.batchStats();
    report('  Leasehold PostgreSQL, calls per statement', Object.fromEntries(
      Object.entries(batches).map(([kind, stats]) => [kind, stats.batches ? (stats.requests / stats.batches).toFixed(2) : '—']),
    ));
  } finally {
    await lhPg.close();
    await lhSqlite.close();
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    await rawPg.query(`DROP SCHEMA IF EXISTS raw_bench_${tag} CASCADE`);
    await rawPg.query(`DROP SCHEMA IF EXISTS pgboss_bench_${tag} CASCADE`);
    await rawPg.end();
    rawSqlite.close();
    rmSync(floorDir, { recursive: true, force: true });
  }
  const summary = new Map<string, { perSecond: number; p99: number; rounds: number[] }>();
  for (const contender of contenders) {
    const runs = results.get(contender.key)!;
    summary.set(contender.key, {
      perSecond: median(runs.map((run) => run.perSecond)),
      p99: median(runs.map((run) => percentile(run.claimMs, 99))),
      rounds: runs.map((run) => Math.round(run.perSecond)),
    });
  }
  process.stdout.write(`\nclaim+complete/s, ${TODOS} todos, median of ${ROUNDS} interleaved rounds (each round's figure in brackets):\n`);
  for (const contender of contenders) {
    const figure = summary.get(contender.key)!;
    process.stdout.write(`  ${contender.label.padEnd(36)} ${String(Math.round(figure.perSecond)).padStart(7)}/s   [${figure.rounds.join(', ')}]\n`);
  }
  const per = (key: string) => summary.get(key)?.perSecond;
  const p99 = (key: string) => summary.get(key)?.p99;
  process.stdout.write('\nratios (Leasehold ÷ peer, same run):\n');
  report('  PostgreSQL, 1 worker', { 'vs pg-boss': ratio(per('lh-pg-1'), per('boss-1')), 'vs raw floor': ratio(per('lh-pg-1'), per('raw-pg-1')), 'pg-boss vs floor': ratio(per('boss-1'), per('raw-pg-1')) });
  report('  PostgreSQL, 8 workers', { 'vs pg-boss': ratio(per('lh-pg-8'), per('boss-8')), 'vs raw floor': ratio(per('lh-pg-8'), per('raw-pg-8')), 'vs BullMQ': ratio(per('lh-pg-8'), per('bull-8')), 'pg-boss vs floor': ratio(per('boss-8'), per('raw-pg-8')) });
  report('  SQLite, 8 workers', { 'vs BullMQ': ratio(per('lh-sqlite-8'), per('bull-8')), 'vs node:sqlite floor': ratio(per('lh-sqlite-8'), per('raw-sqlite-8')), 'vs pg-boss': ratio(per('lh-sqlite-8'), per('boss-8')) });
  const p99Ms = (key: string) => (p99(key) === undefined ? '—' : fmtMs(p99(key)!));
  report('  claim p99, 8 workers', {
    'Leasehold PostgreSQL': p99Ms('lh-pg-8'),
    'pg-boss': p99Ms('boss-8'),
    'Leasehold SQLite': p99Ms('lh-sqlite-8'),
    'BullMQ': p99Ms('bull-8'),
    'Leasehold PG ÷ pg-boss': ratio(p99('lh-pg-8'), p99('boss-8')),
  });
  return summary;
}

// Memory, and cost as work grows -----------------------------------------------------------

/**
 * RSS of a real server process after 10,000 todos and 1,000 wait-leases added over HTTP, run
 * from a bundle as `leasehold serve` ships (support/bundledServer.ts). It gets the memory
 * settings every real start path gives it (the supervisor, npm start, serve's re-exec).
 */
async function serverRss(): Promise<number> {
  const bundle = await bundleServer();
  const settings = serverSpawnSettings(process.env);
  const server = await startBundledServer(bundle.path, settings.flags, settings.env);
  try {
    const idle = rssMb(server.child.pid!);
    await rssLoad(server.human);
    const rss = rssMb(server.child.pid!);
    report('server RSS (SQLite, own process)', { idle_mb: idle.toFixed(0), 'after 10,000 todos + 1,000 wait-leases (MB)': rss.toFixed(0), target: '≤ 100 MB' });
    return rss;
  } finally {
    server.stop();
    bundle.remove();
  }
}

/** claim+complete/s with 100,000 queued todos spread over 100 queues (8 workers, each cycling through the queues). */
async function atScale(target: StorageTarget): Promise<number> {
  const lh = await startServer(target);
  try {
    const queues = Array.from({ length: 100 }, (_, index) => `scale${index}`);
    await addTodos(lh.server, queues, 1000);
    const transitions = TODOS;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      lh.endpoints.map(async (endpoint, index) => {
        for (let turn = index; next < transitions; turn += 7) {
          next += 1;
          const claim = await lh.server.claims.claimNext(endpoint, queues[turn % queues.length]!);
          if (!claim) throw new Error('a scale queue ran dry');
          await lh.server.claims.complete(endpoint, claim.todo_id, claim.claim_epoch);
        }
      }),
    );
    const perSecond = transitions / ((performance.now() - started) / 1000);
    report(`claim+complete, 100,000 queued in 100 queues, ${target.name}`, { per_s: Math.round(perSecond), workers: 8, transitions });
    return perSecond;
  } finally {
    await lh.close();
  }
}

/** The reaper with 10,000 leases lapsing in the same millisecond: lag from that instant to each requeue. */
async function reaperBurst(target: StorageTarget): Promise<void> {
  const lh = await startServer(target);
  try {
    const { server } = lh;
    const count = 10_000;
    await addTodos(server, ['burst'], count);
    // One claim through the service gives the instant (claim clock) and its wall time; the others
    // are set to lapse at that very instant.
    const before = Date.now();
    const probe = (await server.claims.claimNext(lh.endpoints[0]!, 'burst', 2))!;
    const lapseWall = (before + Date.now()) / 2 + 2000;
    await server.claimStore.db.run(
      `UPDATE todos SET state = 'claimed', holder_endpoint_id = ?, claim_epoch = claim_epoch + 1, attempts = attempts + 1, lease_expires_at = ? WHERE queue = 'burst' AND state = 'queued'`,
      [lh.endpoints[1]!.id, probe.lease_expires_at],
    );
    const lags: number[] = [];
    await new Promise<void>((resolve) => {
      server.bus.subscribe((event) => {
        if (event.type !== 'todo.changed' || event.change !== 'reaped') return;
        lags.push(Date.now() - lapseWall);
        if (lags.length === count) resolve();
      });
    });
    report(`reaper, 10,000 leases lapsing at once, ${target.name}`, { median_lag: fmtMs(median(lags)), p99: fmtMs(percentile(lags, 99)), last: fmtMs(Math.max(...lags)) });
  } finally {
    await lh.close();
  }
}

export async function benchClaimPeers(): Promise<void> {
  ensureRedis();
  process.stdout.write(`# claims side by side with pg-boss 12, BullMQ 5 and the raw floors (load ${loadavg().map((load) => load.toFixed(1)).join(' ')} on ${execFileSync('nproc').toString().trim()} cores)\n`);
  await sideBySide();
  if (ONLY) return;
  process.stdout.write('\n');
  // Leasehold and the SDK alone (the same client, the SDK's server with tools that do nothing),
  // five rounds each, interleaved, in a process of their own (support/mcpRounds.ts says why);
  // each figure is the middle round's (an odd count: a median of two would be the better one),
  // so that one round a neighbour on the machine slowed does not decide it.
  const rounds = await lastJsonLine<McpRounds>(join(root, 'bench/support/mcpRounds.ts'));
  const mcp = median(rounds.leasehold);
  const floor = median(rounds.sdkAlone);
  report('  MCP claim_next median, SQLite', {
    median: fmtMs(mcp),
    'SDK alone (no-op tools)': fmtMs(floor),
    'Leasehold adds': fmtMs(mcp - floor),
    'client in its own process': fmtMs(median(rounds.childClient)),
    target: '≤ 1 ms',
  });
  reportRounds('  MCP rounds (ms)', { ...rounds });
  // The hold loop's renew tick, in a server process of its own too (support/holdTicks.ts says why).
  const ticks = await lastJsonLine<Record<string, number>>(join(root, 'bench/support/holdTicks.ts'));
  for (const [storage, tick] of Object.entries(ticks)) report(`  hold loop renew tick, 1,000 leases, ${storage}`, { wall: fmtMs(tick), target: '≤ 50 ms' });
  await serverRss();
  for (const target of [sqliteTarget, pgTarget]) {
    await atScale(target);
    await reaperBurst(target);
  }
  process.stdout.write(`# done (load ${loadavg().map((load) => load.toFixed(1)).join(' ')})\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchClaimPeers();
  process.exit(0);
}
