// Panes and wait-leases belong to one human (issue 9 item 5): another human's pane, lease,
// session or ledger row is the same 404 (or absence) as a missing one on every surface (REST,
// MCP, CLI), and each human names panes in a namespace of their own. Queues stay shared.
import assert from 'node:assert/strict';
import { LeaseholdClient, type LeaseholdApiError } from '../../src/client/client.ts';
import { hashToken } from '../../src/server/auth/tokens.ts';
import { storageTargets } from '../support/storage.ts';
import { connectMcp } from '../support/mcp.ts';
import { runCli } from '../support/cli.ts';
import { rejection, startTestServer, type TestServer } from '../support/server.ts';

const OTHER_TOKEN = 'lhh_other-human-token';

/** A refusal's code and field, and its message with the name it was about replaced. */
async function notFound(promise: Promise<unknown>, name: string): Promise<{ status: unknown; code: unknown; field: unknown; message: string }> {
  const error = (await rejection(promise)) as unknown as LeaseholdApiError;
  return { status: error.status, code: error.code, field: error.field, message: error.message.split(name).join('<name>') };
}

for (const target of storageTargets) {
  describe(`ownership of panes and wait-leases on ${target.name}`, function () {
    this.timeout(30_000);
    let t: TestServer;
    let other: LeaseholdClient;

    beforeEach(async () => {
      t = await startTestServer(target);
      await t.server.claimStore.insertHuman({ id: 'hu_other', name: 'other', created_at: 0, token_hash: hashToken(OTHER_TOKEN) });
      other = new LeaseholdClient({ baseUrl: t.server.url, token: OTHER_TOKEN });
    });
    afterEach(async () => t.stop());

    it('REST: another human\'s pane, lease, session and ledger rows are exactly as absent as missing ones', async () => {
      await t.client.registerPane({ name: 'build', source: 'cli' });
      const lease = await t.client.acquireWaitLease({ pane: 'build', job_ref: 'gen-42', ttl_ms: 600_000, description: 'secret job' });
      await t.client.bindSession('build', 'sess-mine');

      // Panes: not listed; every verb on "build" answers as for a pane that never existed.
      assert.deepEqual((await other.listPanes()).map((pane) => pane.name), []);
      const missingPane = await notFound(other.getPane('nope'), 'nope');
      for (const [verb, call] of [
        ['get', () => other.getPane('build')],
        ['close', () => other.closePane('build')],
        ['display', () => other.setPaneDisplay('build', 'working')],
        ['verdict', () => other.paneVerdict('build')],
        ['bind', () => other.bindSession('build', 'sess-theirs')],
      ] as const) {
        const foreign = await notFound(call(), 'build');
        assert.deepEqual({ ...foreign, message: foreign.status === 404 ? missingPane.message : foreign.message }, missingPane, `${verb}: ${foreign.message}`);
        assert.equal(foreign.code, 'not_found', verb);
      }
      const teardown = await notFound(other.teardownCheck({ pane: 'build', job_ref: 'gen-42', job_heartbeat_age_ms: null, heartbeat_stale_after_ms: 1000, quiet_for_ms: 0, policy_floor_ms: 0 }), 'build');
      assert.equal(teardown.code, 'not_found');

      // Leases: not listed, not readable, not releasable, not renewable even with its token.
      assert.deepEqual(await other.listWaitLeases(), []);
      assert.deepEqual(await other.listWaitLeases({ pane: 'build' }), []);
      const missingLease = await notFound(other.getWaitLease('wl_missing'), 'wl_missing');
      for (const [verb, call] of [
        ['get', () => other.getWaitLease(lease.lease_id)],
        ['release-by-owner', () => other.releaseWaitLeaseByOwner(lease.lease_id, 'not yours')],
        ['release', () => other.releaseWaitLease(lease.lease_id, lease.token, 'not yours')],
        ['renew', () => other.renewWaitLease(lease.lease_id, { token: lease.token, ttl_ms: 60_000, evidence: { pid: process.pid } })],
        ['notice', () => other.consumeExpiredNotice(lease.lease_id)],
      ] as const) {
        assert.deepEqual(await notFound(call(), lease.lease_id), missingLease, verb);
      }
      assert.deepEqual(await other.ledger(), []);

      // Sessions: another human's binding is not found, and release-all through it ends nothing.
      assert.equal((await notFound(other.getSession('sess-mine'), 'sess-mine')).code, 'not_found');
      assert.deepEqual(await other.releaseSession('sess-mine', 'not yours'), { released: [] });

      // Their own "build" is theirs alone: mine keeps its generation and its live lease.
      const theirs = await other.registerPane({ name: 'build', source: 'cli' });
      assert.equal(theirs.generation, 1);
      assert.deepEqual(theirs.leases, []);
      const mine = await t.client.getPane('build');
      assert.equal(mine.generation, 1);
      assert.equal((await t.client.getWaitLease(lease.lease_id)).state, 'active');
      assert.equal((await t.client.ledger()).length, 1);
      assert.equal((await t.client.getSession('sess-mine')).pane, 'build');
    });

    it('TTL suggestions: another human\'s measured durations are not counted', async () => {
      await t.client.registerPane({ name: 'build', source: 'cli' });
      const measured = await t.client.acquireWaitLease({ pane: 'build', job_ref: 'timed', job_type: 'test', ttl_ms: 600_000 });
      await t.client.releaseWaitLease(measured.lease_id, measured.token, 'exit 0');
      assert.equal((await t.client.ledgerSuggestions({ min_samples: 1 })).find((row) => row.job_type === 'test')?.samples, 1);
      assert.deepEqual(await other.ledgerSuggestions({ min_samples: 1 }), []);
    });

    it('MCP: an endpoint reaches only its own human\'s panes and leases', async () => {
      const lease = await t.client.acquireWaitLease({ pane: 'build', job_ref: 'gen-42', ttl_ms: 600_000, description: 'secret job' });
      const vended = await t.server.claims.vendEndpoint({ id: 'hu_other', name: 'other', created_at: 0 }, { slug: 'their-agent' });
      const mcp = await connectMcp(t.server.url, vended.token);
      try {
        const listed = await mcp.call('wait_lease_list', {});
        assert.equal(listed.isError, false);
        assert.deepEqual(listed.value.leases, []);
        const verdict = await mcp.call('pane_verdict', { pane: 'build' });
        assert.equal(verdict.isError, true);
        assert.equal(verdict.value.error?.code ?? verdict.value.code, 'not_found', JSON.stringify(verdict.value));
        const release = await mcp.call('wait_lease_release', { lease_id: lease.lease_id, token: lease.token, reason: 'not yours' });
        assert.equal(release.isError, true);
        assert.match(JSON.stringify(release.value), /not_found/);
        assert.equal((await t.client.getWaitLease(lease.lease_id)).state, 'active');
        // Its own acquire lands in its human's namespace, not on my pane.
        const acquired = await mcp.call('wait_lease_acquire', { pane: 'build', job_ref: 'theirs', ttl_ms: 60_000 });
        assert.equal(acquired.isError, false, JSON.stringify(acquired.value));
        assert.deepEqual((await t.client.listWaitLeases({ pane: 'build' })).map((view) => view.job_ref), ['gen-42']);
        assert.deepEqual((await other.listWaitLeases({ pane: 'build' })).map((view) => view.job_ref), ['theirs']);
      } finally {
        await mcp.close();
      }
    });

    it('CLI: another human\'s pane and lease are "not found" like missing ones', async () => {
      const lease = await t.client.acquireWaitLease({ pane: 'build', job_ref: 'gen-42', ttl_ms: 600_000 });
      const env = { LEASEHOLD_TOKEN: OTHER_TOKEN };
      const as = (args: string[]) => runCli(['--server', t.server.url, ...args], { env });
      const panes = await as(['--json', 'pane', 'list']);
      assert.equal(panes.code, 0, panes.stderr);
      assert.deepEqual(JSON.parse(panes.stdout), []);
      const leases = await as(['--json', 'pane', 'wait-lease', 'list']);
      assert.deepEqual(JSON.parse(leases.stdout), []);
      for (const args of [['verdict', 'build'], ['pane', 'close', 'build']]) {
        const foreign = await as(args);
        const missing = await as(args.map((arg) => (arg === 'build' ? 'nope' : arg)));
        assert.equal(foreign.code, 1, args.join(' '));
        assert.equal(foreign.code, missing.code);
        assert.equal(foreign.stderr.replace('build', 'nope'), missing.stderr, args.join(' '));
      }
      const release = await as(['pane', 'wait-lease', 'release', '--lease', lease.lease_id, '--reason', 'not yours']);
      const releaseMissing = await as(['pane', 'wait-lease', 'release', '--lease', 'wl_missing', '--reason', 'not yours']);
      assert.equal(release.code, 1);
      assert.equal(release.stderr.replace(lease.lease_id, 'wl_missing'), releaseMissing.stderr);
      assert.equal((await t.client.getWaitLease(lease.lease_id)).state, 'active');
    });
  });
}
