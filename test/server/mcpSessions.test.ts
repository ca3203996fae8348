// MCP sessions are bounded (issue 10 item 4, issue 13 item 7): idle expiry on an injected
// clock, DELETE, per-endpoint and global caps; and /mcp answers JSON-RPC with JSON-RPC
// (Claude Code's server/discover probe). Real HTTP and the real MCP SDK client.
import assert from 'node:assert/strict';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../src/core/clock.ts';
import { sqliteTarget } from '../support/storage.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { connectMcp, type McpTestClient } from '../support/mcp.ts';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

describe('MCP sessions and JSON-RPC answers on /mcp', () => {
  let t: TestServer;
  let sessionClock: ManualClock;
  const clients: McpTestClient[] = [];
  const open = async (token: string) => {
    const client = await connectMcp(t.server.url, token);
    clients.push(client);
    return client;
  };
  const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  beforeEach(async () => {
    sessionClock = new ManualClock(0);
    t = await startTestServer(sqliteTarget, {
      mcpSessions: { idleTimeoutMs: 60_000, maxSessions: 5, maxSessionsPerEndpoint: 3, clock: sessionClock, sweepIntervalMs: 3_600_000 },
    });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await t.stop();
  });

  it('an idle session expires; its next call is told "Session not found" (404, -32001) and a new session works', async () => {
    const vended = await t.client.vendEndpoint({ slug: 'worker' });
    const session = await open(vended.token);
    const sessionId = session.client.transport!.sessionId!;
    sessionClock.advance(59_000);
    assert.equal(t.server.mcp.sweepIdle(), 0, 'not idle long enough');
    await session.call('get_default_lease');
    sessionClock.advance(59_000);
    assert.equal(t.server.mcp.sweepIdle(), 0, 'a call keeps the session alive');
    sessionClock.advance(61_000);
    assert.equal(t.server.mcp.sweepIdle(), 1);
    assert.equal(t.server.mcp.sessionCount, 0);
    const stale = await post(vended.token, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
    assert.equal(stale.status, 404);
    const body = (await stale.json()) as any;
    assert.deepEqual([body.jsonrpc, body.id, body.error.code], ['2.0', 7, -32001]);
    assert.match(body.error.message, /^Session not found/);
    const fresh = await open(vended.token);
    assert.equal((await fresh.call('get_default_lease')).isError, false);
  });

  it('DELETE ends a session', async () => {
    const vended = await t.client.vendEndpoint({ slug: 'worker' });
    const session = await open(vended.token);
    assert.equal(t.server.mcp.sessionCount, 1);
    await (session.client.transport as StreamableHTTPClientTransport).terminateSession();
    assert.equal(t.server.mcp.sessionCount, 0);
  });

  it('past the per-endpoint and global caps the least recently used session ends', async () => {
    const a = await t.client.vendEndpoint({ slug: 'a' });
    const b = await t.client.vendEndpoint({ slug: 'b' });
    const [a1, a2, a3] = [await open(a.token), await open(a.token), await open(a.token)];
    await a1.call('get_default_lease'); // a1 is now fresher than a2
    await open(a.token);
    assert.equal(t.server.mcp.sessionCount, 3, 'per-endpoint cap 3');
    assert.equal((await a1.call('get_default_lease')).isError, false, 'the recently used session lives');
    await assert.rejects(a2.call('get_default_lease'), /404|Session not found/, 'the least recently used one ended');
    await a3.call('get_default_lease');
    await open(b.token);
    await open(b.token);
    assert.equal(t.server.mcp.sessionCount, 5);
    await open(b.token);
    assert.equal(t.server.mcp.sessionCount, 5, 'global cap 5');
  });

  it("another endpoint's session id is as unknown as an expired one", async () => {
    const mine = await t.client.vendEndpoint({ slug: 'mine' });
    const yours = await t.client.vendEndpoint({ slug: 'yours' });
    const session = await open(mine.token);
    const response = await post(yours.token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session.client.transport!.sessionId! });
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as any).error.code, -32001);
  });

  it('server/discover gets a JSON-RPC method-not-found, and initialize then works', async () => {
    const vended = await t.client.vendEndpoint({ slug: 'worker' });
    const probe = await post(vended.token, { jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} });
    assert.equal(probe.status, 200);
    const answer = (await probe.json()) as any;
    assert.deepEqual([answer.jsonrpc, answer.id, answer.error.code], ['2.0', 0, -32601]);
    const other = await post(vended.token, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.equal(other.status, 400);
    const otherBody = (await other.json()) as any;
    assert.deepEqual([otherBody.id, otherBody.error.code, otherBody.error.data.error.code], [3, -32600, 'invalid_argument']);
    const init = await post(vended.token, INIT);
    assert.equal(init.status, 200);
    assert.ok(init.headers.get('mcp-session-id'));
  });
});
