// The real Claude Code CLI (pinned 2.1.332) as an MCP worker of a real lease server (real
// HTTP, real SQLite), set up by the real `leasehold mcp-config --write --approve`. The model is
// the scripted stand-in (test/claude/support/modelStandIn.ts), the ONLY fake here: it does what
// a real model must, loading the deferred MCP tools through ToolSearch before calling them,
// and it records every request body, so these tests assert on what the model was shown:
// the session instructions, the tool descriptions, and each tool result's text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '../../src/core/clock.ts';
import { makeClaudeHome, runClaudeHeadless, type ClaudeHome } from './support/claudeCode.ts';
import { startModelStandIn, text, toolUse, turn, type MessagesRequest, type ModelStandIn, type Turn } from './support/modelStandIn.ts';
import { runCli } from '../support/cli.ts';
import { sqliteTarget } from '../support/storage.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const SERVER = 'leasehold-reviewer';
const tool = (name: string) => `mcp__${SERVER}__${name}`;

/** All text of a request (system, messages, tools), as the model would read it. */
const shown = (request: MessagesRequest) => JSON.stringify([request.system, request.messages, request.tools]);

/** The text of the newest tool_result in a request: what the model just read. */
function lastToolResult(request: MessagesRequest): { text: string; isError: boolean } {
  for (const message of [...(request.messages ?? [])].reverse()) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    const result = [...(message.content as Array<Record<string, unknown>>)].reverse().find((block) => block.type === 'tool_result');
    if (!result) continue;
    const content = result.content;
    const text = typeof content === 'string' ? content : (content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('\n');
    return { text, isError: result.is_error === true };
  }
  throw new Error('no tool_result in this request');
}

const lastJson = (request: MessagesRequest) => JSON.parse(lastToolResult(request).text) as Record<string, any>;

/** What a real model does with deferred tools: find their names in the deferred list, load them. */
function loadLeaseholdTools(): Turn {
  return (request) => {
    const names = [...new Set(shown(request).match(new RegExp(`mcp__${SERVER}__[a-z_]+`, 'g')) ?? [])];
    // Not listed yet (the MCP connection may still be starting): search by keyword instead.
    if (names.length === 0) return turn([toolUse('ToolSearch', { query: `+${SERVER}`, max_results: 20 })]);
    return turn([toolUse('ToolSearch', { query: `select:${names.join(',')}` })]);
  };
}

/** One MCP call; args may depend on what the model has read so far. */
function call(name: string, args: Record<string, unknown> | ((request: MessagesRequest) => Record<string, unknown>)): Turn {
  return (request) => turn([toolUse(tool(name), typeof args === 'function' ? args(request) : args)]);
}

describe('real Claude Code as an MCP worker (stand-in model API)', function () {
  this.timeout(180_000);
  let t: TestServer;
  let model: ModelStandIn;
  let home: ClaudeHome;
  let sessionClock: ManualClock;
  let token: string;

  beforeEach(async () => {
    sessionClock = new ManualClock(0);
    t = await startTestServer(sqliteTarget, { mcpSessions: { clock: sessionClock, sweepIntervalMs: 3_600_000 } });
    model = await startModelStandIn();
    home = makeClaudeHome();
    ({ token } = await t.client.vendEndpoint({ slug: 'reviewer', default_lease_ttl_seconds: 2700 }));
    // Set up as a user would: the real CLI writes .mcp.json and, with consent, the approval and
    // permission rule, so `claude -p` below gets no --allowedTools for the MCP tools at all.
    const config = await runCli(['mcp-config', 'reviewer', '--url', `${t.server.url}/mcp`, '--write', '--approve', '--project-dir', home.workDir], {
      env: { LEASEHOLD_ENDPOINT_TOKEN: token },
    });
    assert.equal(config.code, 0, config.stderr);
  });
  afterEach(async () => {
    await model.close();
    home.cleanup();
    await t.stop();
  });

  it('what the model reads: instructions, descriptions, and every result after a vend, an outside edit, its own set_default_lease, a long claim + bare heartbeat, and each refusal', async () => {
    const first = await t.client.createTodo({ queue: 'reviews', title: 'Review PR 552' });
    const second = await t.client.createTodo({ queue: 'reviews', title: 'Review PR 553' });
    let firstEpoch = 0;
    let secondEpoch = 0;
    model.script(
      loadLeaseholdTools(),
      call('claim_next', { queue: 'reviews' }),
      // The human edits the endpoint's default from outside while the agent works.
      async (request) => {
        firstEpoch = lastJson(request).claim_epoch;
        await t.client.editEndpoint('reviewer', { default_lease_ttl_seconds: 7200 });
        return call('heartbeat', { todo_id: first.id, claim_epoch: firstEpoch });
      },
      call('set_default_lease', { default_lease_ttl_seconds: 600 }),
      call('claim', { todo_id: second.id, lease_ttl_seconds: 7200 }),
      (request) => {
        secondEpoch = lastJson(request).claim_epoch;
        return call('heartbeat', { todo_id: second.id, claim_epoch: secondEpoch });
      },
      // The case: complete with a wrong epoch while still holding the todo.
      () => call('complete', { todo_id: first.id, claim_epoch: firstEpoch + 7 }),
      () => call('release', { todo_id: first.id, claim_epoch: firstEpoch }),
      () => call('heartbeat', { todo_id: first.id, claim_epoch: firstEpoch }),
      call('set_default_lease', { default_lease_ttl_seconds: 59 }),
      text('All done.'),
    );
    const run = await runClaudeHeadless({ home, model, prompt: 'Work the reviews queue.', timeoutMs: 150_000 });
    assert.equal(run.code, 0, `${run.stderr}\n${run.stdout}`);
    const turns = model.turnRequests();
    assert.equal(turns.length, 11, `every scripted turn was played; the model last read: ${turns.length > 1 ? lastToolResult(turns.at(-1)!).text : run.stdout}`);

    // Claude Code 2.1.332 defers MCP tools: the first request lists them by name only.
    const opening = turns[0]!;
    assert.ok(!(opening.tools ?? []).some((candidate) => candidate.name.startsWith(`mcp__${SERVER}__`)), 'MCP tools are deferred');
    // Instructions (fixed at initialize) state the number as of session start and where the current one is.
    // (Under load the first request may come while the server is still connecting; then the
    // model is told to search, and the instructions reach it from the next request on.)
    const instructed = turns.find((request) => /MCP Server Instructions/.test(shown(request)));
    assert.ok(instructed, 'the session instructions reached the model');
    assert.match(shown(instructed), /As of the start of this session, a claim or heartbeat without lease_ttl_seconds lasts 2700 seconds \(45m, this endpoint's default\)/);
    assert.match(shown(instructed), /every claim, claim_next and heartbeat result states the lease it applied/);
    // Descriptions, once loaded through ToolSearch, state the endpoint's number and the bare-heartbeat rule.
    const loaded = shown(turns[1]!);
    assert.match(loaded, /2700 seconds \(45m, this endpoint's default\) as of when these tools were listed/);
    assert.match(loaded, /even when that is shorter than the lease you hold/);
    assert.doesNotMatch(loaded, /never by less/);

    // After a vend: the claim says what it applied and from where.
    const claimed = lastToolResult(turns[2]!);
    assert.equal(claimed.isError, false);
    assert.match(claimed.text, /Lease granted 2700 seconds \(45m\) from now, from this endpoint's default/);
    // After an outside edit: the next result states the new lease and that the default changed, from what to what.
    const beat = lastToolResult(turns[3]!).text;
    assert.match(beat, /Lease extended: it now runs 7200 seconds \(2h\) from now, from this endpoint's default/);
    assert.match(beat, /changed since this session started: from 2700 seconds \(45m, this endpoint's default\) to 7200 seconds \(2h, this endpoint's default\)/);
    // After its own set_default_lease.
    assert.match(lastToolResult(turns[4]!).text, /"effective_lease_ttl_seconds": ?600/);
    // A long per-call claim, then a bare heartbeat: the result warns that it shortened the lease.
    const perCall = lastToolResult(turns[5]!).text;
    assert.match(perCall, /Lease granted 7200 seconds \(2h\) from now, from the lease_ttl_seconds you passed/);
    assert.match(perCall, /from 2700 seconds \(45m, this endpoint's default\) to 600 seconds \(10m, this endpoint's default\)/);
    const shortened = lastToolResult(turns[6]!).text;
    assert.match(shortened, /"lease_ttl_seconds": ?600/);
    assert.match(shortened, /This heartbeat SHORTENED your lease: it had 2h left and now has 10m/);
    // Each refusal says what happened, in the envelope.
    const wrong = lastToolResult(turns[7]!);
    assert.equal(wrong.isError, true);
    assert.match(wrong.text, /"code":"wrong_claim_epoch"/);
    assert.match(wrong.text, new RegExp(`this endpoint still holds it under claim_epoch ${firstEpoch}`));
    assert.match(wrong.text, /"holds_todo":true/);
    assert.equal(lastToolResult(turns[8]!).isError, false, 'release with the real epoch works: the agent still held it');
    const ended = lastToolResult(turns[9]!);
    assert.match(ended.text, /"code":"claim_ended"/);
    assert.match(ended.text, /you released it/);
    const argument = lastToolResult(turns[10]!);
    assert.equal(argument.isError, true);
    assert.match(argument.text, /"code":"invalid_argument"/);
    assert.match(argument.text, /"field":"default_lease_ttl_seconds"/);
    assert.match(argument.text, /refused, not clamped \(received 59\)/);
    assert.match(argument.text, /"received":59/);
    assert.doesNotMatch(argument.text, /MCP error -32602|Input validation error/);
    assert.equal((await t.client.getEndpoint('reviewer')).default_lease_ttl_seconds, 600, 'the refused value changed nothing');
    // Claude Code's tools/call requests are what the server answers without the SDK's transport
    // (mcp/directToolCall.ts): all nine of this run, not one left to the slower path.
    assert.equal(t.server.mcp.directCalls, 9);
  });

  it('a client whose session expired re-initializes cleanly and its next call works', async () => {
    model.script(
      loadLeaseholdTools(),
      call('get_default_lease', {}),
      async () => {
        // Idle past the timeout (on the gateway's injected clock): the server ends the session.
        sessionClock.advance(16 * 60_000);
        assert.equal(t.server.mcp.sweepIdle(), 1);
        assert.equal(t.server.mcp.sessionCount, 0);
        return call('get_default_lease', {});
      },
      text('Done.'),
    );
    const run = await runClaudeHeadless({ home, model, prompt: 'Read the lease.', timeoutMs: 120_000 });
    assert.equal(run.code, 0, `${run.stderr}\n${run.stdout}`);
    const turns = model.turnRequests();
    assert.equal(turns.length, 4);
    const before = lastToolResult(turns[2]!);
    const after = lastToolResult(turns[3]!);
    assert.equal(before.isError, false, before.text);
    assert.equal(after.isError, false, `the call after expiry works: ${after.text}`);
    assert.match(after.text, /"effective_lease_ttl_seconds": ?2700/);
    assert.ok(t.server.mcp.sessionCount >= 1, 'Claude Code initialized a new session');
  });

  it('without the approval, mcp-config says what is missing and Claude Code cannot call the tools', async () => {
    fs.rmSync(path.join(home.workDir, '.claude', 'settings.local.json'));
    const advice = await runCli(['mcp-config', 'reviewer', '--url', `${t.server.url}/mcp`, '--write', '--project-dir', home.workDir], { env: { LEASEHOLD_ENDPOINT_TOKEN: token } });
    assert.match(advice.stdout, /"Pending approval".*--allowedTools 'mcp__leasehold-reviewer__\*'/s);
    const todo = await t.client.createTodo({ queue: 'reviews', title: 'Review PR 552' });
    model.script(loadLeaseholdTools(), call('claim_next', { queue: 'reviews' }), text('Done.'));
    const run = await runClaudeHeadless({ home, model, prompt: 'Work the reviews queue.', timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stderr);
    const refused = lastToolResult(model.turnRequests()[2]!);
    assert.match(refused.text, /requested permissions to use mcp__leasehold-reviewer__claim_next, but you haven't granted it/);
    assert.equal(refused.isError, true, refused.text);
    assert.equal((await t.client.listTodos({ queue: 'reviews' }))[0]?.state, 'queued', 'nothing was claimed');
    void todo;
  });
});
