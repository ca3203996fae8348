// The wait-lease verbs over MCP (real SDK client): present only when scope grants them; the
// acquire → list → verdict → release round trip; an endpoint cannot make the server run a command.
import assert from 'node:assert/strict';
import { storageTargets, tempDir } from '../support/storage.ts';
import { rejection, startTestServer, type TestServer } from '../support/server.ts';
import { connectMcp, type McpTestClient } from '../support/mcp.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LeaseholdError } from '../../src/core/errors.ts';

const WAIT_TOOLS = ['pane_verdict', 'wait_lease_acquire', 'wait_lease_hold', 'wait_lease_list', 'wait_lease_release', 'wait_lease_renew'];

for (const target of storageTargets) {
  describe(`wait-lease MCP tools on ${target.name}`, () => {
    let t: TestServer;
    const clients: McpTestClient[] = [];
    beforeEach(async () => {
      t = await startTestServer(target);
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      await t.stop();
    });

    it('tools follow scope', async () => {
      const all = await connectMcp(t.server.url, (await t.client.vendEndpoint({ slug: 'all' })).token);
      const claimOnly = await connectMcp(t.server.url, (await t.client.vendEndpoint({ slug: 'drain', scope: ['claim', 'wait_lease_list'] })).token);
      clients.push(all, claimOnly);
      const names = (await all.client.listTools()).tools.map((tool) => tool.name);
      for (const name of WAIT_TOOLS) assert.ok(names.includes(name), name);
      const limited = (await claimOnly.client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(limited, ['claim', 'wait_lease_list']);
    });

    it('acquire, list, verdict, release', async () => {
      const mcp = await connectMcp(t.server.url, (await t.client.vendEndpoint({ slug: 'agent' })).token);
      clients.push(mcp);
      await t.client.registerPane({ name: 'P', source: 'vscode' });
      await t.client.setPaneDisplay('P', 'idle');
      const acquired = await mcp.call('wait_lease_acquire', { pane: 'P', job_ref: 'bg-1', ttl_ms: 600_000, job_type: 'shell' });
      assert.equal(acquired.isError, false, JSON.stringify(acquired.value));
      assert.match(acquired.value.token, /^wlt_/);
      const listed = await mcp.call('wait_lease_list', { pane: 'P' });
      assert.equal(listed.value.leases[0].job_ref, 'bg-1');
      const verdict = await mcp.call('pane_verdict', { pane: 'P' });
      assert.equal(verdict.value.reading, 'waiting');
      const missing = await mcp.call('wait_lease_renew', { lease_id: acquired.value.lease_id, token: acquired.value.token, ttl_ms: 1000, evidence: { alive: true } });
      assert.equal(missing.isError, true);
      assert.equal(missing.value.error.code, 'EVIDENCE_MISSING');
      const released = await mcp.call('wait_lease_release', { lease_id: acquired.value.lease_id, token: acquired.value.token, reason: 'task ended' });
      assert.deepEqual(released.value, { lease_id: acquired.value.lease_id, end_reason: 'released' });
      const noTtl = await mcp.call('wait_lease_acquire', { pane: 'P', job_ref: 'bg-2' });
      assert.equal(noTtl.isError, true, 'ttl_ms is mandatory over MCP too');
    });

    it('an endpoint may not have the server run a provider command', async () => {
      const mcp = await connectMcp(t.server.url, (await t.client.vendEndpoint({ slug: 'agent' })).token);
      clients.push(mcp);
      const held = await mcp.call('wait_lease_hold', { pane: 'P', job_ref: 'x', ttl_ms: 60_000, target: { provider_job: { id: 'x', command: ['true'] } } });
      assert.equal(held.isError, true);
      assert.equal(held.value.error.code, 'forbidden');
      assert.equal(held.value.error.field, 'target.provider_job.command');
      const url = await mcp.call('wait_lease_hold', { pane: 'P', job_ref: 'y', ttl_ms: 60_000, target: { provider_job: { id: 'y', url: 'http://169.254.169.254/latest' } } });
      assert.equal(url.isError, true, 'an endpoint may only name a loopback URL');
      assert.equal(url.value.error.field, 'target.provider_job.url');
      assert.deepEqual(await t.client.listWaitLeases({ pane: 'P' }), [], 'nothing was stored');
    });

    it('a caller that does not say it is the human API cannot have a command run (safe default), and nothing runs', async () => {
      const marker = join(tempDir('observer'), 'ran');
      const request = { pane: 'P', job_ref: 'z', ttl_ms: 60_000, target: { provider_job: { id: 'z', command: ['touch', marker] } } };
      for (const options of [undefined, {}, { allowCommand: false }]) {
        const error = (await rejection(t.server.waitLeases.forHuman(t.server.human.id).hold(request, options))) as unknown as LeaseholdError;
        assert.equal(error.code, 'forbidden', JSON.stringify(options));
      }
      assert.equal(existsSync(marker), false, 'the command never ran');
    });

    it('provider_job.url must be loopback however it is spelled', async () => {
      for (const url of ['http://127.0.0.1@example.com/job', 'http://localhost.example.com/job', 'http://10.0.0.1/job', 'file:///etc/passwd', 'ftp://127.0.0.1/job']) {
        const error = (await rejection(
          t.server.waitLeases.forHuman(t.server.human.id).hold({ pane: 'P', job_ref: 'u', ttl_ms: 60_000, target: { provider_job: { id: 'u', url } } }, { allowCommand: true }),
        )) as unknown as LeaseholdError;
        assert.equal(error.code, 'invalid_argument', url);
        assert.equal(error.field, 'target.provider_job.url', url);
      }
    });
  });
}
