// The MCP endpoint through the real SDK client: tools by scope, the text agents read, the
// re-registration after an edit from REST, and the endpoint's own default-lease verbs.
import assert from 'node:assert/strict';
import { storageTargets } from '../support/storage.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { connectMcp, type McpTestClient } from '../support/mcp.ts';

for (const target of storageTargets) {
  describe(`MCP /mcp on ${target.name}`, () => {
    let t: TestServer;
    const clients: McpTestClient[] = [];
    const open = async (token: string) => {
      const client = await connectMcp(t.server.url, token);
      clients.push(client);
      return client;
    };

    beforeEach(async () => {
      t = await startTestServer(target);
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      await t.stop();
    });

    it('instructions and the claim, claim_next, heartbeat descriptions state the effective default and whose', async () => {
      const configured = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 2700 });
      const unconfigured = await t.client.vendEndpoint({ slug: 'triage' });
      const reviewer = await open(configured.token);
      const triage = await open(unconfigured.token);

      assert.match(reviewer.client.getInstructions() ?? '', /2700 seconds \(45m, this endpoint's default\)/);
      assert.match(triage.client.getInstructions() ?? '', /300 seconds \(5m, the server default\)/);
      for (const [session, phrase] of [
        [reviewer, "2700 seconds (45m, this endpoint's default)"],
        [triage, '300 seconds (5m, the server default)'],
      ] as const) {
        const { tools } = await session.client.listTools();
        for (const name of ['claim', 'claim_next', 'heartbeat']) {
          const tool = tools.find((candidate) => candidate.name === name)!;
          assert.ok(tool.description?.includes(phrase), `${name}: ${tool.description}`);
          const schemaText = JSON.stringify((tool.inputSchema.properties as Record<string, unknown>).lease_ttl_seconds);
          assert.match(schemaText, /capped at 86400/);
          assert.doesNotMatch(schemaText, /2700|300 seconds/, 'the schema text states only the cap');
        }
      }
    });

    it('a PATCH from REST re-registers the lease tools on every live session of that endpoint only', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer' });
      const bystander = await t.client.vendEndpoint({ slug: 'bystander' });
      const first = await open(vended.token);
      const second = await open(vended.token);
      const other = await open(bystander.token);
      await t.client.editEndpoint('reviewer', { default_lease_ttl_seconds: 900 });
      await first.waitForListChanged(1);
      await second.waitForListChanged(1);
      const { tools } = await second.client.listTools();
      assert.ok(tools.find((tool) => tool.name === 'heartbeat')?.description?.includes("900 seconds (15m, this endpoint's default)"));
      assert.match(second.client.getInstructions() ?? '', /300 seconds/, 'instructions keep the number the session started with');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(other.listChangedCount(), 0, "another endpoint's session is not told");
      // A new session starts with the new number in its instructions.
      const third = await open(vended.token);
      assert.match(third.client.getInstructions() ?? '', /900 seconds/);
    });

    it('an edit from REST applies to the next claim and heartbeat on a live session; granted leases keep their expiry', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer' });
      const first = await t.client.createTodo({ queue: 'reviews', title: 'one' });
      const second = await t.client.createTodo({ queue: 'reviews', title: 'two' });
      const session = await open(vended.token);
      const before = await session.call('claim', { todo_id: first.id });
      assert.deepEqual([before.value.lease_ttl_seconds, before.value.lease_source], [300, 'server']);
      await t.client.editEndpoint('reviewer', { default_lease_ttl_seconds: 5400 });
      const [held] = await t.client.listTodos({ queue: 'reviews', state: 'claimed' });
      assert.equal(held?.lease_expires_at, before.value.lease_expires_at, 'the granted lease keeps its expiry');
      const after = await session.call('claim', { todo_id: second.id });
      assert.deepEqual([after.value.lease_ttl_seconds, after.value.lease_source], [5400, 'endpoint']);
      const beat = await session.call('heartbeat', { todo_id: first.id, claim_epoch: before.value.claim_epoch });
      assert.deepEqual([beat.value.lease_ttl_seconds, beat.value.lease_source], [5400, 'endpoint']);
    });

    it('set_default_lease accepts the bounds themselves (60 and 86400)', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'bounds' });
      const session = await open(vended.token);
      for (const value of [60, 86_400]) {
        const set = await session.call('set_default_lease', { default_lease_ttl_seconds: value });
        assert.equal(set.isError, false, String(value));
        assert.equal((await t.client.getEndpoint('bounds')).default_lease_ttl_seconds, value);
      }
    });

    it('tools are present only when the scope grants them', async () => {
      const narrow = await t.client.vendEndpoint({ slug: 'narrow', scope: ['claim_next', 'heartbeat', 'complete'] });
      const session = await open(narrow.token);
      const names = (await session.client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, ['claim_next', 'complete', 'heartbeat']);
      const full = await open((await t.client.vendEndpoint({ slug: 'full' })).token);
      const fullNames = (await full.client.listTools()).tools.map((tool) => tool.name);
      for (const verb of ['claim', 'claim_next', 'heartbeat', 'release', 'complete', 'get_default_lease', 'set_default_lease']) {
        assert.ok(fullNames.includes(verb), verb);
      }
    });

    it('claim_next → heartbeat → complete over MCP, with the lease the endpoint default gives', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 1800 });
      const todo = await t.client.createTodo({ queue: 'reviews', title: 'Review PR 552' });
      const session = await open(vended.token);
      const claimed = await session.call('claim_next', { queue: 'reviews' });
      assert.equal(claimed.isError, false);
      assert.equal(claimed.value.todo_id, todo.id);
      assert.equal(claimed.value.lease_ttl_seconds, 1800);
      assert.equal(claimed.value.lease_source, 'endpoint');
      const beat = await session.call('heartbeat', { todo_id: todo.id, claim_epoch: claimed.value.claim_epoch });
      assert.equal(beat.value.lease_ttl_seconds, 1800);
      const stale = await session.call('complete', { todo_id: todo.id, claim_epoch: claimed.value.claim_epoch + 1 });
      assert.equal(stale.isError, true);
      assert.equal(stale.value.error.code, 'wrong_claim_epoch');
      assert.equal(stale.value.error.details.holds_todo, true);
      const done = await session.call('complete', { todo_id: todo.id, claim_epoch: claimed.value.claim_epoch });
      assert.equal(done.value.state, 'done');
      const empty = await session.call('claim_next', { queue: 'reviews' });
      assert.deepEqual(empty.value, { claimed: false, queue: 'reviews' });
    });

    it('set_default_lease touches only the caller, refuses an endpoint argument, and keeps the bounds', async () => {
      const mine = await t.client.vendEndpoint({ slug: 'mine' });
      const yours = await t.client.vendEndpoint({ slug: 'yours', default_lease_ttl_seconds: 600 });
      const session = await open(mine.token);
      const set = await session.call('set_default_lease', { default_lease_ttl_seconds: 3600 });
      assert.equal(set.isError, false);
      assert.deepEqual([set.value.effective_lease_ttl_seconds, set.value.whose], [3600, "this endpoint's default"]);
      assert.equal((await t.client.getEndpoint('mine')).default_lease_ttl_seconds, 3600);
      assert.equal((await t.client.getEndpoint('yours')).default_lease_ttl_seconds, 600);

      const targeted = await session.call('set_default_lease', { default_lease_ttl_seconds: 120, endpoint: yours.endpoint.id });
      assert.equal(targeted.isError, true);
      assert.match(JSON.stringify(targeted.value), /endpoint/);
      for (const value of [59, 86_401]) {
        const refused = await session.call('set_default_lease', { default_lease_ttl_seconds: value });
        assert.equal(refused.isError, true, `${value} refused`);
      }
      assert.equal((await t.client.getEndpoint('mine')).default_lease_ttl_seconds, 3600, 'refusals changed nothing');
      assert.equal((await t.client.getEndpoint('yours')).default_lease_ttl_seconds, 600);

      const reset = await session.call('set_default_lease', { default_lease_ttl_seconds: null });
      assert.deepEqual([reset.value.effective_lease_ttl_seconds, reset.value.whose], [300, 'the server default']);
      const read = await session.call('get_default_lease');
      assert.deepEqual(read.value.bounds, { min_seconds: 60, max_seconds: 86_400, server_default_seconds: 300 });
      const readWithArgument = await session.call('get_default_lease', { endpoint: yours.endpoint.id });
      assert.equal(readWithArgument.isError, true);
    });

    it('set_default_lease from one session re-registers tools on the same endpoint’s other sessions', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer' });
      const setter = await open(vended.token);
      const watcher = await open(vended.token);
      await setter.call('set_default_lease', { default_lease_ttl_seconds: 1200 });
      await watcher.waitForListChanged(1);
      const { tools } = await watcher.client.listTools();
      assert.ok(tools.find((tool) => tool.name === 'claim')?.description?.includes('1200 seconds'));
    });

    it('each lease result states the lease applied, from where, and a default changed since the session began', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 2700 });
      const [first, second] = [await t.client.createTodo({ queue: 'reviews', title: 'one' }), await t.client.createTodo({ queue: 'reviews', title: 'two' })];
      const session = await open(vended.token);
      const claimed = await session.call('claim_next', { queue: 'reviews' });
      assert.match(claimed.value.lease_note, /^Lease granted 2700 seconds \(45m\) from now, from this endpoint's default; it expires in 45m/);
      assert.equal(claimed.value.default_changed, undefined, 'nothing changed yet');
      await t.client.editEndpoint('reviewer', { default_lease_ttl_seconds: 7200 });
      const beat = await session.call('heartbeat', { todo_id: first.id, claim_epoch: claimed.value.claim_epoch });
      assert.match(beat.value.lease_note, /runs 7200 seconds \(2h\) from now, from this endpoint's default/);
      assert.match(beat.value.default_changed, /changed since this session started: from 2700 seconds \(45m, this endpoint's default\) to 7200 seconds \(2h, this endpoint's default\)/);
      await session.call('set_default_lease', { default_lease_ttl_seconds: null });
      const perCall = await session.call('claim', { todo_id: second.id, lease_ttl_seconds: 90_000 });
      assert.match(perCall.value.lease_note, /Lease granted 86400 seconds \(1d\) from now, from the lease_ttl_seconds you passed \(capped at 86400\)/);
      assert.match(perCall.value.lease_note, /A call without lease_ttl_seconds now gets 300 seconds \(5m, the server default\)/);
      assert.match(perCall.value.default_changed, /to 300 seconds \(5m, the server default\)/);
    });

    it('a bare heartbeat after a long per-call claim warns that it shortened the lease; the description says so up front', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 2700 });
      const todo = await t.client.createTodo({ queue: 'reviews', title: 'long' });
      const session = await open(vended.token);
      const heartbeat = (await session.client.listTools()).tools.find((tool) => tool.name === 'heartbeat')!;
      assert.doesNotMatch(heartbeat.description ?? '', /never by less/);
      assert.match(heartbeat.description ?? '', /even when that is shorter than the lease you hold/);
      const claimed = await session.call('claim', { todo_id: todo.id, lease_ttl_seconds: 7200 });
      t.clock.advance(60_000);
      const bare = await session.call('heartbeat', { todo_id: todo.id, claim_epoch: claimed.value.claim_epoch });
      assert.equal(bare.isError, false);
      assert.equal(bare.value.lease_ttl_seconds, 2700, 'the endpoint default applies (ADR-0043 precedence)');
      assert.match(bare.value.warning, /SHORTENED your lease: it had 1h59m left and now has 45m/);
      const kept = await session.call('heartbeat', { todo_id: todo.id, claim_epoch: claimed.value.claim_epoch, lease_ttl_seconds: 7200 });
      assert.equal(kept.value.warning, undefined, 'a per-call heartbeat is the agent asking; no warning');
      const longer = await session.call('heartbeat', { todo_id: todo.id, claim_epoch: claimed.value.claim_epoch });
      assert.match(longer.value.warning, /SHORTENED/);
      const again = await session.call('heartbeat', { todo_id: todo.id, claim_epoch: claimed.value.claim_epoch });
      assert.equal(again.value.warning, undefined, 'a bare heartbeat that does not shorten says nothing');
    });

    it('argument refusals carry the envelope: invalid_argument, the field, the value received, the rule; nothing changes', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'strict', default_lease_ttl_seconds: 600 });
      const session = await open(vended.token);
      const low = await session.call('set_default_lease', { default_lease_ttl_seconds: 59 });
      assert.equal(low.isError, true);
      assert.equal(low.value.error.code, 'invalid_argument');
      assert.equal(low.value.error.field, 'default_lease_ttl_seconds');
      assert.equal(low.value.error.details.received, 59);
      assert.match(low.value.error.message, /between 60 and 86400 seconds inclusive; out-of-range values are refused, not clamped \(received 59\)/);
      assert.doesNotMatch(low.value.error.message, /MCP error|-32602/);
      const cases: Array<[string, Record<string, unknown>, string, unknown]> = [
        ['claim', { todo_id: 'x', lease_ttl_seconds: 'long' }, 'lease_ttl_seconds', 'long'],
        ['claim_next', { queue: 'Bad Queue' }, 'queue', 'Bad Queue'],
        ['heartbeat', { todo_id: 'x', claim_epoch: 1.5 }, 'claim_epoch', 1.5],
        ['complete', { todo_id: 'x' }, 'claim_epoch', null],
        ['get_default_lease', { endpoint: 'other' }, 'endpoint', 'other'],
      ];
      for (const [tool, args, field, received] of cases) {
        const refused = await session.call(tool, args);
        assert.equal(refused.isError, true, tool);
        assert.deepEqual([refused.value.error.code, refused.value.error.field, refused.value.error.details.received], ['invalid_argument', field, received], tool);
      }
      const unknown = await session.call('merge_pr', {});
      assert.deepEqual([unknown.value.error.code, unknown.value.error.field], ['not_found', 'name']);
      assert.equal((await t.client.getEndpoint('strict')).default_lease_ttl_seconds, 600, 'refusals changed nothing');
    });

    it('an internal failure is logged and reaches the agent without driver text', async () => {
      const vended = await t.client.vendEndpoint({ slug: 'broken' });
      const session = await open(vended.token);
      const store = t.server.claimStore;
      const original = store.claimNext.bind(store);
      store.claimNext = async () => {
        throw new Error('SQLITE_CORRUPT: database disk image is malformed at /secret/path');
      };
      try {
        const failed = await session.call('claim_next', { queue: 'reviews' });
        assert.equal(failed.value.error.code, 'internal');
        assert.doesNotMatch(JSON.stringify(failed.value), /SQLITE|secret/);
      } finally {
        store.claimNext = original;
      }
    });

    it('refuses bad or revoked endpoint tokens', async () => {
      await assert.rejects(connectMcp(t.server.url, 'lhe_not-a-token'));
      const vended = await t.client.vendEndpoint({ slug: 'gone' });
      await t.client.revokeEndpoint('gone');
      await assert.rejects(connectMcp(t.server.url, vended.token));
    });
  });
}
