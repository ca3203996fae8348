// A session's plain tools/call is answered without the SDK's transport (directToolCall.ts). The
// answer must be the one the SDK gives: the same requests go to a server that answers them
// directly and to one that leaves every request to the SDK (mcpDirectToolCalls: false), both on
// the same manual clock, and status, content type, session header and JSON-RPC body must match
// (todo ids, random per server, aside). Requests the direct path must not take (odd headers,
// shapes the SDK refuses, task extensions) go to the SDK on both, and the counter says so.
import assert from 'node:assert/strict';
import { sqliteTarget } from '../support/storage.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { connectMcp } from '../support/mcp.ts';

const PROTOCOL = '2025-06-18';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL };

interface Answer {
  status: number;
  contentType: string | null;
  sessionHeader: boolean;
  body: unknown;
}

interface RawSession {
  send(body: unknown, headers?: Record<string, string | undefined>): Promise<Answer>;
}

/** An MCP session over plain fetch: initialize, the initialized notification, then whatever the test sends. */
async function rawSession(t: TestServer, token: string): Promise<RawSession> {
  const post = (body: unknown, headers: Record<string, string | undefined>) => {
    const sent = Object.fromEntries(Object.entries({ authorization: `Bearer ${token}`, ...HEADERS, ...headers }).filter(([, value]) => value !== undefined)) as Record<string, string>;
    return fetch(`${t.server.url}/mcp`, { method: 'POST', headers: sent, body: typeof body === 'string' ? body : JSON.stringify(body) });
  };
  const init = await post(
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
    {},
  );
  assert.equal(init.status, 200);
  const sessionId = init.headers.get('mcp-session-id')!;
  await init.text();
  assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId })).status, 202);
  return {
    async send(body, headers = {}) {
      const response = await post(body, { 'mcp-session-id': sessionId, ...headers });
      const text = await response.text();
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        sessionHeader: response.headers.get('mcp-session-id') === sessionId,
        // Todo ids are random per server; everything else is the same on the same clock.
        body: text ? JSON.parse(text.replace(/td_[0-9A-Za-z]+/g, 'td_ID')) : null,
      };
    },
  };
}

const call = (id: unknown, name: string, args?: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...extra },
});

describe('MCP tools/call answered directly is the answer the SDK gives', () => {
  let direct: TestServer;
  let sdk: TestServer;
  let sessions: { direct: RawSession; sdk: RawSession };

  beforeEach(async () => {
    direct = await startTestServer(sqliteTarget);
    sdk = await startTestServer(sqliteTarget, { mcpDirectToolCalls: false });
    const open = async (t: TestServer) => {
      const vended = await t.client.vendEndpoint({ slug: 'worker', default_lease_ttl_seconds: 900 });
      for (const title of ['one', 'two']) await t.client.createTodo({ queue: 'work', title });
      return rawSession(t, vended.token);
    };
    sessions = { direct: await open(direct), sdk: await open(sdk) };
  });
  afterEach(async () => {
    await direct.stop();
    await sdk.stop();
  });

  /**
   * Sends the same request to both servers (or, given a function, the request made from each
   * server's own claimed todo id); asserts the same answer and which path answered.
   */
  async function same(request: unknown, expect: 'direct' | 'sdk', headers: Record<string, string | undefined> = {}): Promise<Answer> {
    const bodyFor = async (t: TestServer) => {
      if (typeof request !== 'function') return request;
      const [claimed] = await t.client.listTodos({ queue: 'work', state: 'claimed' });
      return (request as (todoId: string) => unknown)(claimed!.id);
    };
    const bodies = { direct: await bodyFor(direct), sdk: await bodyFor(sdk) };
    const before = direct.server.mcp.directCalls;
    const answers = { direct: await sessions.direct.send(bodies.direct, headers), sdk: await sessions.sdk.send(bodies.sdk, headers) };
    assert.deepEqual(answers.direct, answers.sdk, `the same answer for ${JSON.stringify(bodies.direct)}`);
    assert.equal(direct.server.mcp.directCalls - before, expect === 'direct' ? 1 : 0, `answered by ${expect}`);
    assert.equal(sdk.server.mcp.directCalls, 0, 'with mcpDirectToolCalls false the SDK answers everything');
    return answers.direct;
  }

  it('claims, heartbeats, completes and refusals: the same answers, served directly', async () => {
    const claimed = await same(call(1, 'claim_next', { queue: 'work' }), 'direct');
    assert.equal(claimed.status, 200);
    assert.equal(claimed.contentType, 'application/json');
    assert.ok(claimed.sessionHeader);
    const result = (claimed.body as any).result;
    assert.equal(result.structuredContent.claimed, true);
    assert.equal(result.structuredContent.lease_ttl_seconds, 900);
    assert.match(result.content[0].text, /Lease granted 900 seconds/);
    const epoch = result.structuredContent.claim_epoch as number;
    direct.clock.advance(60_000);
    sdk.clock.advance(60_000);
    const beat = await same((todoId: string) => call('beat-1', 'heartbeat', { todo_id: todoId, claim_epoch: epoch }), 'direct');
    assert.equal((beat.body as any).id, 'beat-1', 'a string id comes back as sent');
    const stale = await same((todoId: string) => call(3, 'heartbeat', { todo_id: todoId, claim_epoch: epoch + 1 }), 'direct');
    assert.equal((stale.body as any).result.isError, true);
    assert.equal((stale.body as any).result.structuredContent.error.code, 'wrong_claim_epoch');
    await same((todoId: string) => call(4, 'complete', { todo_id: todoId, claim_epoch: epoch }), 'direct');

    const unknownTool = await same(call(5, 'drop_table', {}), 'direct');
    assert.equal((unknownTool.body as any).result.structuredContent.error.code, 'not_found');
    const badArgument = await same(call(6, 'claim_next', { queue: 'work', lease_ttl_seconds: 1.5 }), 'direct');
    assert.equal((badArgument.body as any).result.structuredContent.error.field, 'lease_ttl_seconds');
    await same(call(7, 'get_default_lease'), 'direct');
    await same(call(8, 'claim_next', { queue: 'work' }, { _meta: { progressToken: 'p1' } }), 'direct');
    await same(call(9, 'claim_next', { queue: 'empty' }), 'direct', { 'mcp-protocol-version': undefined });
    // Nothing the direct answers changed differs between the two stores.
    const states = async (t: TestServer) => (await t.client.listTodos({ queue: 'work' })).map((todo) => [todo.title, todo.state, todo.claim_epoch]);
    assert.deepEqual(await states(direct), await states(sdk));
  });

  it('requests the SDK must judge go to the SDK on both servers, with its answers', async () => {
    // Each with what the SDK makes of it: a JSON-RPC error (status 400 when it is no JSON-RPC
    // message at all), or a result.
    const others = [
      { body: call(10, 'claim_next', ['work']), why: 'arguments as a list', answer: [200, 'error'] },
      { body: call(11, 'claim_next', null), why: 'arguments null', answer: [200, 'error'] },
      { body: call(1.5, 'claim_next', { queue: 'work' }), why: 'a fractional id', answer: [400, 'error'] },
      { body: { ...call(12, 'claim_next', { queue: 'work' }), extra: true }, why: 'a key JSON-RPC does not have', answer: [400, 'error'] },
      { body: call(13, 'claim_next', { queue: 'work' }, { task: { ttl: 1000 } }), why: 'a task-augmented call', answer: [200, 'error'] },
      { body: call(14, 'claim_next', { queue: 'work' }, { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'x' } } }), why: 'a related task', answer: [200, 'result'] },
      { body: { jsonrpc: '2.0', id: 15, method: 'tools/call', params: { arguments: {} } }, why: 'no tool name', answer: [200, 'error'] },
      { body: [call(16, 'claim_next', { queue: 'empty' })], why: 'a batch', answer: [200, 'result'] },
      { body: { jsonrpc: '2.0', id: 17, method: 'tools/list' }, why: 'another method', answer: [200, 'result'] },
    ] as const;
    for (const { body, why, answer } of others) {
      const got = await same(body, 'sdk');
      assert.deepEqual([got.status, 'error' in (got.body as object) ? 'error' : 'result'], answer, why);
    }
    for (const [headers, status] of [
      [{ accept: 'application/json' }, 406],
      [{ 'content-type': 'text/plain' }, 415],
      [{ 'mcp-protocol-version': '1999-01-01' }, 400],
    ] as const) {
      const answer = await same(call(18, 'claim_next', { queue: 'empty' }), 'sdk', headers);
      assert.equal(answer.status, status, JSON.stringify(headers));
    }
    // The SDK client's own calls take the direct path; the list it reads is the SDK's.
    const vended = await direct.client.vendEndpoint({ slug: 'client' });
    const client = await connectMcp(direct.server.url, vended.token);
    try {
      const before = direct.server.mcp.directCalls;
      const claimed = await client.call('claim_next', { queue: 'work' });
      assert.equal(claimed.value.claimed, true);
      assert.equal(direct.server.mcp.directCalls - before, 1);
      assert.ok((await client.client.listTools()).tools.some((tool) => tool.name === 'claim_next'));
    } finally {
      await client.close();
    }
  });
});
