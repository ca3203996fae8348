// The REST surface over real HTTP: vend/list/get/PATCH/revoke semantics, isolation, bounds
// on every write path, the error envelope, rate limit, body cap, Host/Origin checks and SSE.
import assert from 'node:assert/strict';
import { request } from 'undici';
import { LeaseholdClient, type LeaseholdApiError } from '../../src/client/client.ts';
import { hashToken } from '../../src/server/auth/tokens.ts';
import { storageTargets } from '../support/storage.ts';
import { rejection, startTestServer, type TestServer } from '../support/server.ts';

async function raw(t: TestServer, method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}) {
  const response = await request(`${t.server.url}${path}`, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${t.server.token}`, 'content-type': 'application/json', ...options.headers },
    body: options.body,
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

for (const target of storageTargets) {
  describe(`REST /api/v1 on ${target.name}`, () => {
    let t: TestServer;
    let otherHuman: LeaseholdClient;

    beforeEach(async () => {
      t = await startTestServer(target);
      // A second human on the same server, with a token of their own.
      await t.server.claimStore.insertHuman({ id: 'hu_other', name: 'other', created_at: 0, token_hash: hashToken('lhh_other-token') });
      otherHuman = new LeaseholdClient({ baseUrl: t.server.url, token: 'lhh_other-token' });
    });
    afterEach(async () => t.stop());

    it('vend returns the token once, stores only its hash, and GET shows default and effective lease', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 900 });
      assert.match(vended.token, /^lhe_/);
      assert.equal(vended.mcp_url, `${t.server.url}/mcp`);
      const stored = await t.server.db.all<{ token_hash: string }>('SELECT token_hash FROM endpoints');
      assert.equal(stored[0]?.token_hash, hashToken(vended.token));
      assert.notEqual(stored[0]?.token_hash, vended.token);
      await t.client.vendEndpoint({ slug: 'triage' });
      const listed = await t.client.listEndpoints();
      assert.deepEqual(
        listed.map((endpoint) => [endpoint.slug, endpoint.default_lease_ttl_seconds, endpoint.effective_lease_ttl_seconds, endpoint.effective_lease_source]),
        [
          ['reviewer', 900, 900, 'endpoint'],
          ['triage', null, 300, 'server'],
        ],
      );
      assert.equal((await t.client.getEndpoint(vended.endpoint.id)).slug, 'reviewer', 'reach by id');
      assert.equal((await t.client.getEndpoint('reviewer')).id, vended.endpoint.id, 'reach by slug');
    });

    for (const [value, accepted] of [
      [59, false],
      [60, true],
      [86_400, true],
      [86_401, false],
      [90.5, false],
    ] as const) {
      it(`default_lease_ttl_seconds ${value} is ${accepted ? 'accepted' : 'refused (never clamped)'} on POST and PATCH`, async () => {
        await t.client.vendEndpoint({ slug: 'existing', default_lease_ttl_seconds: 600 });
        const post = await raw(t, 'POST', '/api/v1/endpoints', { body: JSON.stringify({ slug: 'fresh', default_lease_ttl_seconds: value }) });
        const patch = await raw(t, 'PATCH', '/api/v1/endpoints/existing', { body: JSON.stringify({ default_lease_ttl_seconds: value }) });
        if (accepted) {
          assert.equal(post.status, 201);
          assert.equal(post.body.endpoint.default_lease_ttl_seconds, value);
          assert.equal(patch.status, 200);
          assert.equal(patch.body.endpoint.default_lease_ttl_seconds, value);
        } else {
          for (const response of [post, patch]) {
            assert.equal(response.status, 400);
            assert.equal(response.body.error.code, 'invalid_argument');
            assert.equal(response.body.error.field, 'default_lease_ttl_seconds');
            assert.match(response.body.error.message, /default_lease_ttl_seconds/);
          }
          assert.equal((await t.client.getEndpoint('existing')).default_lease_ttl_seconds, 600, 'nothing stored changed');
          assert.equal((await t.client.listEndpoints()).length, 1, 'nothing was vended');
        }
      });
    }

    it('PATCH null resets to the server default', async () => {
      await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 900 });
      const reset = await t.client.editEndpoint('reviewer', { default_lease_ttl_seconds: null });
      assert.deepEqual([reset.default_lease_ttl_seconds, reset.effective_lease_ttl_seconds, reset.effective_lease_source], [null, 300, 'server']);
    });

    it('PATCH requires the key and refuses any other key, so nobody believes they edited scope', async () => {
      await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 900 });
      const missing = await raw(t, 'PATCH', '/api/v1/endpoints/reviewer', { body: '{}' });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.field, 'default_lease_ttl_seconds');
      assert.match(missing.body.error.message, /required/);
      const extra = await raw(t, 'PATCH', '/api/v1/endpoints/reviewer', { body: JSON.stringify({ default_lease_ttl_seconds: 600, scope: ['claim'] }) });
      assert.equal(extra.status, 400);
      assert.equal(extra.body.error.code, 'invalid_argument');
      assert.equal(extra.body.error.field, 'scope');
      assert.match(extra.body.error.message, /unknown key/);
      const endpoint = await t.client.getEndpoint('reviewer');
      assert.equal(endpoint.default_lease_ttl_seconds, 900);
      assert.equal(endpoint.scope.length > 1, true, 'scope untouched');
    });

    it("another human's endpoint is the same 404 as an unknown one, on every route", async () => {
      const theirs = await otherHuman.vendEndpoint({ slug: 'theirs' });
      const routes: Array<[string, string, string | undefined]> = [
        ['GET', '/api/v1/endpoints/%s', undefined],
        ['PATCH', '/api/v1/endpoints/%s', JSON.stringify({ default_lease_ttl_seconds: 600 })],
        ['POST', '/api/v1/endpoints/%s/revoke', undefined],
        ['GET', '/api/v1/endpoints/%s/claims', undefined],
      ];
      for (const [method, path, body] of routes) {
        const foreign = await raw(t, method, path.replace('%s', theirs.endpoint.id), { body });
        const foreignSlug = await raw(t, method, path.replace('%s', 'theirs'), { body });
        const unknown = await raw(t, method, path.replace('%s', 'ep_doesnotexist'), { body });
        assert.equal(foreign.status, 404, `${method} ${path}`);
        assert.equal(foreignSlug.status, 404);
        assert.deepEqual(
          { ...foreign.body.error, message: foreign.body.error.message.replace(theirs.endpoint.id, 'X') },
          { ...unknown.body.error, message: unknown.body.error.message.replace('ep_doesnotexist', 'X') },
        );
      }
      assert.deepEqual((await t.client.listEndpoints()).map((endpoint) => endpoint.slug), [], 'not listed');
      assert.equal((await otherHuman.getEndpoint('theirs')).default_lease_ttl_seconds, null, 'unchanged');
    });

    it('writes to a revoked endpoint are 409 conflict with its state', async () => {
      await t.client.vendEndpoint({ slug: 'reviewer' });
      await t.client.revokeEndpoint('reviewer');
      const patch = await raw(t, 'PATCH', '/api/v1/endpoints/reviewer', { body: JSON.stringify({ default_lease_ttl_seconds: 600 }) });
      assert.equal(patch.status, 409);
      assert.equal(patch.body.error.code, 'conflict');
      assert.equal(patch.body.error.details.state, 'revoked');
      const again = await raw(t, 'POST', '/api/v1/endpoints/reviewer/revoke');
      assert.equal(again.status, 409);
    });

    it('friend endpoints cannot be granted the default-lease verbs; basic vend grants them', async () => {
      const basic = await t.client.vendEndpoint({ slug: 'basic' });
      assert.ok(basic.endpoint.scope.includes('get_default_lease') && basic.endpoint.scope.includes('set_default_lease'));
      const friend = await t.client.vendEndpoint({ slug: 'friend', friend: true });
      assert.ok(!friend.endpoint.scope.includes('set_default_lease') && !friend.endpoint.scope.includes('get_default_lease'));
      const error = (await rejection(t.client.vendEndpoint({ slug: 'friend2', friend: true, scope: ['claim', 'set_default_lease'] }))) as unknown as LeaseholdApiError;
      assert.equal(error.status, 400);
      assert.equal(error.field, 'scope');
    });

    it('todos: create, list by queue and state, see holder and lease remaining', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 900 });
      const todo = await t.client.createTodo({ queue: 'reviews', title: 'Review PR 552', payload: { pr: 552 } });
      await t.client.createTodo({ queue: 'triage', title: 'Triage' });
      const endpoint = (await t.server.claimStore.getEndpoint(vended.endpoint.id))!;
      await t.server.claims.claim(endpoint, todo.id);
      t.clock.advance(60_000);
      const claimed = await t.client.listTodos({ queue: 'reviews', state: 'claimed' });
      assert.equal(claimed.length, 1);
      assert.deepEqual(claimed[0]?.holder, { endpoint_id: vended.endpoint.id, slug: 'reviewer' });
      assert.equal(claimed[0]?.lease_remaining_ms, 840_000);
      assert.deepEqual(claimed[0]?.payload, { pr: 552 });
      // The other human sees that it is held, not by whom.
      const seenByOther = await otherHuman.listTodos({ queue: 'reviews' });
      assert.equal(seenByOther[0]?.holder, null);
      assert.equal(seenByOther[0]?.held_by_other, true);
      assert.equal((await t.client.listTodos({ state: 'queued' })).map((item) => item.queue).join(), 'triage');
      const badState = await raw(t, 'GET', '/api/v1/todos?state=lost');
      assert.equal(badState.status, 400);
      assert.equal(badState.body.error.field, 'state');
    });

    it("todo claim events: kind, epoch, lease and time, oldest first; another human's endpoint is not named", async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 900 });
      const todo = await t.client.createTodo({ queue: 'reviews', title: 'Review PR 553' });
      const endpoint = (await t.server.claimStore.getEndpoint(vended.endpoint.id))!;
      const claim = await t.server.claims.claim(endpoint, todo.id);
      t.clock.advance(1_000);
      await t.server.claims.complete(endpoint, todo.id, claim.claim_epoch);
      const events = await t.client.todoEvents(todo.id);
      assert.deepEqual(events.map((event) => [event.kind, event.claim_epoch, event.endpoint?.slug, event.by_other]), [['claimed', 1, 'reviewer', false], ['completed', 1, 'reviewer', false]]);
      assert.equal(events[0]!.lease_ttl_seconds, 900);
      assert.equal(events[0]!.lease_source, 'endpoint');
      assert.equal(events[1]!.at - events[0]!.at, 1_000);
      const theirs = await otherHuman.todoEvents(todo.id);
      assert.deepEqual(theirs.map((event) => [event.kind, event.endpoint, event.by_other]), [['claimed', null, true], ['completed', null, true]]);
      const unknown = await raw(t, 'GET', '/api/v1/todos/td_nope/events');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.field, 'todo_id');
    });

    it('errors share one envelope; unauthenticated requests are 401', async () => {
      const noToken = await request(`${t.server.url}/api/v1/endpoints`);
      assert.equal(noToken.statusCode, 401);
      const body = (await noToken.body.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'unauthenticated');
      const badJson = await raw(t, 'POST', '/api/v1/endpoints', { body: '{"slug":' });
      assert.equal(badJson.status, 400);
      assert.equal(badJson.body.error.field, 'body');
      const badSlug = await raw(t, 'POST', '/api/v1/endpoints', { body: JSON.stringify({ slug: 'Bad Slug!' }) });
      assert.equal(badSlug.body.error.field, 'slug');
      const unknownRoute = await raw(t, 'GET', '/api/v1/nothing');
      assert.equal(unknownRoute.status, 404);
    });

    it('request bodies over 64 KiB are refused with 413 and change nothing', async () => {
      const big = JSON.stringify({ queue: 'reviews', title: 'big', payload: 'x'.repeat(70 * 1024) });
      const response = await raw(t, 'POST', '/api/v1/todos', { body: big });
      assert.equal(response.status, 413);
      assert.equal(response.body.error.code, 'payload_too_large');
      assert.equal((await t.client.listTodos()).length, 0);
    });

    it('Host must be loopback (DNS rebinding) and a foreign Origin is refused', async () => {
      const rebound = await raw(t, 'GET', '/api/v1/endpoints', { headers: { host: 'evil.example:80' } });
      assert.equal(rebound.status, 403);
      assert.equal(rebound.body.error.field, 'Host');
      const foreignOrigin = await raw(t, 'GET', '/api/v1/endpoints', { headers: { origin: 'https://evil.example' } });
      assert.equal(foreignOrigin.status, 403);
      assert.equal(foreignOrigin.body.error.field, 'Origin');
      const localhost = await raw(t, 'GET', '/api/v1/endpoints', { headers: { host: `localhost:${t.server.port}`, origin: `http://localhost:${t.server.port}` } });
      assert.equal(localhost.status, 200);
      const mcp = await raw(t, 'POST', '/mcp', { headers: { host: 'evil.example' }, body: '{}' });
      assert.equal(mcp.status, 403, 'the MCP endpoint is guarded too');
    });

    it('the event stream tells a client when its endpoint changes, and nothing of another human\'s', async () => {
      await t.client.vendEndpoint({ slug: 'reviewer' });
      const events: Array<{ event: string; data: string }> = [];
      let opened: () => void = () => undefined;
      const open = new Promise<void>((resolve) => (opened = resolve));
      let sawEdit: () => void = () => undefined;
      const edited = new Promise<void>((resolve) => (sawEdit = resolve));
      const stream = t.client.openEventStream({
        onOpen: () => opened(),
        onEvent: (event) => {
          events.push(event);
          if (event.event === 'endpoint.changed' && JSON.parse(event.data).change === 'edited') sawEdit();
        },
        onEnd: () => undefined,
      });
      try {
        await open;
        await otherHuman.vendEndpoint({ slug: 'invisible' });
        await t.client.editEndpoint('reviewer', { default_lease_ttl_seconds: 600 });
        await edited;
      } finally {
        stream.close();
      }
      const endpointEvents = events.filter((event) => event.event === 'endpoint.changed').map((event) => JSON.parse(event.data).change);
      assert.deepEqual(endpointEvents, ['edited'], "the other human's vend was not streamed to this human");
    });
  });
}

describe('REST write rate limit', () => {
  it('answers 429 with Retry-After once the per-human write budget is spent', async () => {
    const t = await startTestServer(storageTargets[0]!, { writeRateLimit: { capacity: 3, refillPerSecond: 1 } });
    try {
      for (let index = 0; index < 3; index++) await t.client.createTodo({ queue: 'q', title: `t${index}` });
      const limited = await raw(t, 'POST', '/api/v1/todos', { body: JSON.stringify({ queue: 'q', title: 'one too many' }) });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'rate_limited');
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal((await t.client.listTodos()).length, 3, 'reads are not limited; the refused write stored nothing');
      t.clock.advance(1000);
      await t.client.createTodo({ queue: 'q', title: 'after the wait' });
    } finally {
      await t.stop();
    }
  });
});

describe('hook events have their own write budget', () => {
  it('a burst of hook events does not spend the budget of the human’s own edits', async () => {
    const t = await startTestServer(storageTargets[0]!, { writeRateLimit: { capacity: 2, refillPerSecond: 1 } });
    try {
      const hookEvent = (id: string) => raw(t, 'POST', '/api/v1/hook-events', { body: JSON.stringify({ id, ops: [] }) });
      assert.equal((await hookEvent('0000000000001-1-1-a')).status, 200);
      assert.equal((await hookEvent('0000000000001-1-2-a')).status, 200);
      assert.equal((await hookEvent('0000000000001-1-3-a')).status, 429, 'the hook budget is spent');
      await t.client.createTodo({ queue: 'q', title: 'still allowed' });
    } finally {
      await t.stop();
    }
  });
});
