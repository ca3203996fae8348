// One view of change across servers (issue 9 item 4): two lease servers on one PostgreSQL
// database; a change made through B reaches A's MCP sessions (tools/list_changed, through the
// real @modelcontextprotocol/sdk client) and A's SSE clients, by LISTEN/NOTIFY.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { LeaseholdClient } from '../../src/client/client.ts';
import { hashToken } from '../../src/server/auth/tokens.ts';
import type { SseEvent } from '../../src/client/eventStream.ts';
import { silentLogger, startLeaseServer, type LeaseServer } from '../../src/server/app.ts';
import { connectMcp } from '../support/mcp.ts';
import pg from 'pg';
import { changeChannel } from '../../src/server/team/changeRelay.ts';
import { postgresTarget, tempDir } from '../support/storage.ts';

const url = process.env.LEASEHOLD_TEST_DATABASE_URL;

/** Follows a server's SSE stream, collecting events; `next` waits for one that matches. */
function follow(client: LeaseholdClient) {
  const events: Array<{ event: SseEvent; at: number }> = [];
  let wake: (() => void) | undefined;
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const handle = client.openEventStream({
    onOpen: () => opened(),
    onEvent: (event) => {
      events.push({ event, at: performance.now() });
      wake?.();
    },
    onEnd: () => undefined,
  });
  return {
    open,
    async next(match: (data: Record<string, unknown>, type: string) => boolean, timeoutMs = 5_000): Promise<{ data: Record<string, unknown>; at: number }> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex(({ event }) => match(JSON.parse(event.data) as Record<string, unknown>, event.event ?? ''));
        if (index >= 0) {
          const [found] = events.splice(0, index + 1).slice(-1);
          return { data: JSON.parse(found!.event.data) as Record<string, unknown>, at: found!.at };
        }
        if (Date.now() > deadline) throw new Error(`no matching event within ${timeoutMs} ms; saw ${events.map(({ event }) => event.data).join(' | ')}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
    close: () => handle.close(),
  };
}

(url ? describe : describe.skip)('team mode: one view of change across servers (LISTEN/NOTIFY)', function () {
  this.timeout(60_000);
  let servers: LeaseServer[] = [];
  let cleanup: () => Promise<void>;
  let schema = '';
  const dirs: string[] = [];

  beforeEach(async () => {
    const created = await postgresTarget(url!).create();
    cleanup = created.cleanup;
    schema = (created.config as { schema: string }).schema;
    servers = [];
    for (let index = 0; index < 2; index++) {
      const runtimeDir = tempDir('team-changes');
      dirs.push(runtimeDir);
      servers.push(await startLeaseServer({ storage: created.config, runtimeDir, logger: silentLogger, identity: 'alice', writeRateLimit: { capacity: 10_000, refillPerSecond: 10_000 } }));
    }
  });
  afterEach(async () => {
    for (const server of servers) await server.close();
    await cleanup();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a PATCH through B sends tools/list_changed to an MCP session on A within 1 s, every time', async () => {
    const [a, b] = servers as [LeaseServer, LeaseServer];
    const viaA = new LeaseholdClient({ baseUrl: a.url, token: a.token });
    const viaB = new LeaseholdClient({ baseUrl: b.url, token: b.token });
    const vended = await viaA.vendEndpoint({ slug: 'worker', default_lease_ttl_seconds: 600 });
    const session = await connectMcp(a.url, vended.token);
    try {
      const before = await session.call('get_default_lease');
      assert.equal(before.isError, false);
      const latencies: number[] = [];
      for (let round = 1; round <= 10; round++) {
        const heard = session.listChangedCount();
        const started = performance.now();
        await viaB.editEndpoint('worker', { default_lease_ttl_seconds: round % 2 ? 3600 : 600 });
        await session.waitForListChanged(heard + 1, 1_000);
        latencies.push(performance.now() - started);
      }
      // The session on A now states what applies (set through B), not what it started with.
      const after = await session.call('get_default_lease');
      assert.match(JSON.stringify(after.value), /600/);
      const { tools } = await session.client.listTools();
      assert.ok(tools.length > 0);
      latencies.sort((x, y) => x - y);
      assert.ok(latencies.at(-1)! < 1_000, `slowest of 10: ${latencies.at(-1)} ms`);
    } finally {
      await session.close();
    }
  });

  it('a listening connection the database drops reconnects by itself; an edit made meanwhile still reaches the MCP session', async () => {
    const [a, b] = servers as [LeaseServer, LeaseServer];
    const viaA = new LeaseholdClient({ baseUrl: a.url, token: a.token });
    const viaB = new LeaseholdClient({ baseUrl: b.url, token: b.token });
    const vended = await viaA.vendEndpoint({ slug: 'worker', default_lease_ttl_seconds: 600 });
    const session = await connectMcp(a.url, vended.token);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // Every listening connection of this schema's channel is terminated (as a database restart would).
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`, [`LISTEN "${changeChannel(schema)}"`]);
      assert.equal(killed.rowCount, 2, 'both servers were listening');
      await viaB.editEndpoint('worker', { default_lease_ttl_seconds: 3600 });
      await session.waitForListChanged(1, 5_000);
      const after = await session.call('get_default_lease');
      assert.match(JSON.stringify(after.value), /3600/);
      // And the relay carries changes again.
      const heard = session.listChangedCount();
      await viaB.editEndpoint('worker', { default_lease_ttl_seconds: 900 });
      await session.waitForListChanged(heard + 1, 5_000);
    } finally {
      await admin.end();
      await session.close();
    }
  });

  it('SSE on A hears B\'s changes (endpoint, todo, pane, lease), and only what its human may see', async () => {
    const [a, b] = servers as [LeaseServer, LeaseServer];
    const viaA = new LeaseholdClient({ baseUrl: a.url, token: a.token });
    const viaB = new LeaseholdClient({ baseUrl: b.url, token: b.token });
    await a.claimStore.insertHuman({ id: 'hu_bob', name: 'bob', created_at: 0, token_hash: hashToken('lhh_bob-token') });
    const stream = follow(viaA);
    const bob = follow(new LeaseholdClient({ baseUrl: a.url, token: 'lhh_bob-token' }));
    try {
      await stream.open;
      await bob.open;
      await viaB.vendEndpoint({ slug: 'from-b' });
      assert.equal((await stream.next((data) => data.type === 'endpoint.changed')).data.change, 'vended');
      const todo = await viaB.createTodo({ queue: 'shared', title: 'made on B' });
      assert.equal((await stream.next((data) => data.type === 'todo.changed' && data.todo_id === todo.id)).data.change, 'created');
      const lease = await viaB.acquireWaitLease({ pane: 'remote', job_ref: 'job-b', ttl_ms: 60_000 });
      const heard = await stream.next((data) => data.type === 'lease.changed' && data.lease_id === lease.lease_id);
      assert.equal(heard.data.change, 'acquired');
      // A reaches the lease B granted (same human; it reads it on B's clock once it has seen B's heartbeat).
      assert.equal((await viaA.getWaitLease(lease.lease_id)).lease_id, lease.lease_id);
      // Bob (another human, on A) hears of the shared queue, not of Alice's endpoint, pane or lease.
      assert.equal((await bob.next((data) => data.type === 'todo.changed')).data.endpoint_id, null);
      await assert.rejects(bob.next((data, type) => type !== 'todo.changed', 500), /no matching event/);
    } finally {
      stream.close();
      bob.close();
    }
  });
});
