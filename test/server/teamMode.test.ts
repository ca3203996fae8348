// Team mode: several lease servers share one PostgreSQL database. Concurrent claim_next calls
// through different servers never hand one todo to two workers, and reapers running at once
// requeue each lapse exactly once. Runs when LEASEHOLD_TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { ManualClock } from '../../src/core/clock.ts';
import { silentLogger, startLeaseServer, type LeaseServer } from '../../src/server/app.ts';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import { postgresTarget, tempDir } from '../support/storage.ts';
import { vendWorker } from '../support/server.ts';

const url = process.env.LEASEHOLD_TEST_DATABASE_URL;

(url ? describe : describe.skip)('team mode: two servers, one PostgreSQL database', () => {
  let servers: LeaseServer[] = [];
  let cleanup: () => Promise<void>;
  const clock = new ManualClock();
  const runtimeDirs: string[] = [];

  beforeEach(async () => {
    const created = await postgresTarget(url!).create();
    cleanup = created.cleanup;
    servers = [];
    for (let index = 0; index < 2; index++) {
      const runtimeDir = tempDir('team-runtime');
      runtimeDirs.push(runtimeDir);
      const server = await startLeaseServer({ storage: created.config, runtimeDir, logger: silentLogger, clock, identity: `dev${index}` });
      await server.reaper.stop();
      servers.push(server);
    }
  });
  afterEach(async () => {
    for (const server of servers) await server.close();
    await cleanup();
    for (const dir of runtimeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('never hands one todo to two workers, and reaps each lapse once', async () => {
    const [a, b] = servers as [LeaseServer, LeaseServer];
    const workers: Array<{ server: LeaseServer; endpoint: EndpointRecord }> = [];
    for (const [index, server] of [a, a, a, b, b, b].entries()) {
      workers.push({ server, endpoint: await vendWorker(server, { slug: `w${index}` }) });
    }
    for (let index = 0; index < 120; index++) await a.claims.createTodo(a.human, { queue: 'shared', title: `t${index}` });

    const claimedBy = new Map<string, string>();
    await Promise.all(
      workers.map(async ({ server, endpoint }) => {
        for (;;) {
          const claim = await server.claims.claimNext(endpoint, 'shared', 30);
          if (!claim) return;
          assert.equal(claimedBy.has(claim.todo_id), false, `todo ${claim.todo_id} claimed twice`);
          claimedBy.set(claim.todo_id, endpoint.id);
        }
      }),
    );
    assert.equal(claimedBy.size, 120);

    clock.advance(30_000);
    const [reapedByA, reapedByB] = await Promise.all([a.reaper.runOnce(), b.reaper.runOnce()]);
    assert.equal(reapedByA + reapedByB, 120);
    const reapEvents = await a.db.all<{ count: number }>(`SELECT COUNT(*)::int AS count FROM claim_events WHERE kind = 'reaped'`);
    assert.equal(reapEvents[0]?.count, 120);
  });

  it("each server's human sees only their own endpoints", async () => {
    const [a, b] = servers as [LeaseServer, LeaseServer];
    await a.claims.vendEndpoint(a.human, { slug: 'mine' });
    assert.deepEqual((await b.claims.listEndpoints(b.human)).map((endpoint) => endpoint.slug), []);
    await assert.rejects(b.claims.getEndpoint(b.human, 'mine'), /no endpoint "mine"/);
  });
});
