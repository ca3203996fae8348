// Delivery policy with a stand-in for HTTP (the real thing is test/cli/hook*.test.ts).
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deliverHookEvent } from '../../../src/claude/hookDelivery.ts';
import type { HttpAnswer } from '../../../src/claude/hookDelivery.ts';
import { newEventId, readSpool } from '../../../src/claude/spool.ts';
import type { HookEvent } from '../../../src/core/wire/hookOps.ts';

describe('hook delivery: retry with backoff, then the spool', () => {
  let dir: string;
  let event: HookEvent;
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-delivery-'));
    // The test process stands in for a live server of this user (the posts below are scripted).
    writeFileSync(join(dir, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: process.pid }));
    writeFileSync(join(dir, 'token'), 'tok\n');
    event = { id: newEventId(), ops: [{ op: 'release_session', session_id: 's1' }] };
    sleeps.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sends the same id and body on every attempt, with the token, and stops at the first success', async () => {
    const seen: Array<{ url: string; token?: string; body: string; timeout: number }> = [];
    const answers: Array<HttpAnswer | Error> = [new Error('ECONNREFUSED'), { status: 503, text: 'starting' }, { status: 200, text: '{}' }];
    const outcome = await deliverHookEvent(event, {
      runtimeDir: dir,
      sleep,
      post: async (url, token, body, timeout) => {
        seen.push({ url, token, body, timeout });
        const answer = answers.shift()!;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    assert.equal(outcome.kind, 'delivered');
    assert.equal(outcome.attempts, 3);
    assert.deepEqual(sleeps, [100, 200]);
    assert.ok(seen.every((call) => call.body === JSON.stringify(event) && call.token === 'tok' && call.url === 'http://127.0.0.1:9/api/v1/hook-events'));
    assert.deepEqual(readSpool(join(dir, 'spool')), []);
  });

  it('spools the event under its id when every attempt fails, within about 1.5 s of deadlines and pauses', async () => {
    const timeouts: number[] = [];
    const outcome = await deliverHookEvent(event, {
      runtimeDir: dir,
      sleep,
      post: async (_url, _token, _body, timeout) => {
        timeouts.push(timeout);
        throw new Error('ECONNREFUSED');
      },
    });
    assert.equal(outcome.kind, 'spooled');
    assert.ok(timeouts.reduce((a, b) => a + b, 0) + sleeps.reduce((a, b) => a + b, 0) <= 1_600);
    assert.deepEqual(readSpool(join(dir, 'spool')).map((entry) => entry.event), [event]);
  });

  for (const [what, prepare] of [
    ['server.json names a pid that is not running', () => writeFileSync(join(dir, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: 999_999_999 }))],
    ['server.json names a non-loopback URL', () => writeFileSync(join(dir, 'server.json'), JSON.stringify({ url: 'http://evil.example:80', pid: process.pid }))],
    ['the runtime dir is world-writable', () => chmodSync(dir, 0o777)],
  ] as const) {
    it(`never sends the token when ${what}: spools instead`, async () => {
      prepare();
      const outcome = await deliverHookEvent(event, { runtimeDir: dir, sleep, post: async () => assert.fail('the token must not be sent') });
      assert.equal(outcome.kind, 'spooled');
    });
  }

  it('spools at once when no server has published server.json', async () => {
    rmSync(join(dir, 'server.json'));
    const outcome = await deliverHookEvent(event, { runtimeDir: dir, sleep, post: async () => assert.fail('no server to call') });
    assert.equal(outcome.kind, 'spooled');
    assert.deepEqual(sleeps, []);
    assert.equal(readSpool(join(dir, 'spool')).length, 1);
  });

  it('does not retry or spool an event the server refused as invalid', async () => {
    let calls = 0;
    const outcome = await deliverHookEvent(event, {
      runtimeDir: dir,
      sleep,
      post: async () => {
        calls++;
        return { status: 400, text: '{"error":{}}' };
      },
    });
    assert.equal(outcome.kind, 'refused');
    assert.equal(calls, 1);
    assert.deepEqual(readSpool(join(dir, 'spool')), []);
  });
});
