// The database going away (issue 9): two real `leasehold serve` processes share a throwaway
// PostgreSQL cluster (test/support/throwawayPostgres.ts, never the shared one) under write
// load; PostgreSQL is stopped (fast shutdown: their sessions are terminated) and started again.
// Meanwhile every refusal is coded (503 unavailable, or 429 from the write budget), never a
// crash, a reset or a 500; afterwards both servers write again by themselves, every write they
// acknowledged is in the database exactly once, and a change through B reaches A's SSE again
// (the LISTEN connection reconnected).
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { LeaseholdClient } from '../../src/client/client.ts';
import { startServeProcess } from '../support/cli.ts';
import { tempDir } from '../support/storage.ts';
import { createThrowawayCluster, throwawayPostgresUnavailable, type ThrowawayCluster } from '../support/throwawayPostgres.ts';

const unavailable = throwawayPostgresUnavailable();

interface Outcome {
  server: string;
  status: number | 'network';
  code?: string;
  id?: string;
  at: number;
  tookMs: number;
}

describe('fault: PostgreSQL restarts under load (two servers, throwaway cluster)', function () {
  this.timeout(180_000);
  let cluster: ThrowawayCluster | undefined;
  const stops: Array<() => Promise<void>> = [];
  const dirs: string[] = [];

  before(function () {
    if (unavailable) {
      console.log(`      skipped: ${unavailable}`);
      this.skip();
    }
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    cluster?.destroy();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses with 503 meanwhile, reconnects by itself, loses nothing and does not crash', async () => {
    cluster = createThrowawayCluster();
    const servers: Array<{ name: string; client: LeaseholdClient; pid: number }> = [];
    for (const [name, identity] of [
      ['A', 'alice'],
      ['B', 'alice'],
    ] as const) {
      const runtimeDir = tempDir(`pg-restart-${name}`);
      dirs.push(runtimeDir);
      const started = await startServeProcess([], { LEASEHOLD_DATABASE_URL: cluster.url, LEASEHOLD_RUNTIME_DIR: runtimeDir, LEASEHOLD_IDENTITY: identity });
      stops.push(started.stop);
      const token = readFileSync(join(runtimeDir, 'token'), 'utf8').trim();
      servers.push({ name, client: new LeaseholdClient({ baseUrl: started.url, token, timeoutMs: 20_000 }), pid: started.pid });
    }

    const outcomes: Outcome[] = [];
    let running = true;
    let sequence = 0;
    const worker = async (server: (typeof servers)[number]) => {
      while (running) {
        const title = `${server.name}-${++sequence}`;
        const began = Date.now();
        try {
          const todo = await server.client.createTodo({ queue: 'load', title });
          outcomes.push({ server: server.name, status: 201, id: todo.id, at: Date.now(), tookMs: Date.now() - began });
        } catch (error) {
          const coded = error as { status?: number; code?: string };
          outcomes.push({ server: server.name, status: typeof coded.status === 'number' ? coded.status : 'network', code: coded.code ?? String(error), at: Date.now(), tookMs: Date.now() - began });
        }
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    };
    const workers = servers.flatMap((server) => [worker(server), worker(server)]);

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const stoppedAt = Date.now();
    cluster.stop();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const restartedAt = Date.now();
    cluster.start();
    // Both servers write again by themselves (no restart of theirs, nothing told them).
    const deadline = Date.now() + 30_000;
    for (const server of servers) {
      while (!outcomes.some((outcome) => outcome.server === server.name && outcome.status === 201 && outcome.at > restartedAt)) {
        assert.ok(Date.now() < deadline, `server ${server.name} did not write again within 30 s of the restart; its last: ${JSON.stringify(outcomes.filter((outcome) => outcome.server === server.name).slice(-3))}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all(workers);

    // Every refusal meanwhile was coded; none was a crash, a reset or an internal error.
    const refused = outcomes.filter((outcome) => outcome.status !== 201);
    const uncoded = refused.filter((outcome) => !(outcome.status === 503 && outcome.code === 'unavailable') && !(outcome.status === 429 && outcome.code === 'rate_limited'));
    assert.deepEqual(uncoded, [], 'only 503 unavailable (or 429) while the database is away');
    const during = refused.filter((outcome) => outcome.at >= stoppedAt && outcome.status === 503);
    assert.ok(during.length > 0, 'requests while the database was down were refused with 503 unavailable');
    for (const server of servers) {
      assert.doesNotThrow(() => process.kill(server.pid, 0), `server ${server.name} is still running`);
      assert.equal((await server.client.health()).ok, true);
    }

    // Nothing acknowledged was lost, nothing written twice.
    const acknowledged = outcomes.filter((outcome) => outcome.status === 201).map((outcome) => outcome.id!);
    const direct = new pg.Client({ connectionString: cluster.url });
    await direct.connect();
    try {
      const rows = (await direct.query<{ id: string; title: string }>(`SELECT id, title FROM todos WHERE queue = 'load'`)).rows;
      const stored = new Set(rows.map((row) => row.id));
      assert.deepEqual(acknowledged.filter((id) => !stored.has(id)), [], 'every acknowledged todo is stored');
      assert.equal(new Set(rows.map((row) => row.title)).size, rows.length, 'no todo written twice');
    } finally {
      await direct.end();
    }

    // The change relay listens again: a change through B reaches A's SSE.
    const [a, b] = servers as [(typeof servers)[number], (typeof servers)[number]];
    const heard = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('A never heard B\'s change after the restart')), 20_000);
      let done = false;
      const stream = a.client.openEventStream({
        onOpen: async () => {
          // Keep changing through B until A hears one (its listener may still be backing off).
          while (!done) {
            await b.client.createTodo({ queue: 'after-restart', title: `ping-${Date.now()}` }).catch(() => undefined);
            await new Promise((wake) => setTimeout(wake, 250));
          }
        },
        onEvent: (event) => {
          if (event.data.includes('after-restart')) {
            done = true;
            clearTimeout(timer);
            stream.close();
            resolve();
          }
        },
        onEnd: () => undefined,
      });
    });
    await heard;
    const recovered = servers.map((server) => {
      const first = outcomes.find((outcome) => outcome.server === server.name && outcome.status === 201 && outcome.at > restartedAt)!;
      return `${server.name} ${first.at - restartedAt} ms`;
    });
    const slowest = Math.max(...outcomes.map((outcome) => outcome.tookMs));
    console.log(
      `      ${acknowledged.length} writes acknowledged, ${refused.length} refused (${during.length} with 503 while PostgreSQL was down); ` +
        `first write after the restart: ${recovered.join(', ')}; slowest request ${slowest} ms`,
    );
  });
});
