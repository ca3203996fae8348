// Server down → the hook spools → the server replays once after start: 200 concurrent
// `leasehold hook` processes, nothing lost, nothing applied twice.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LeaseholdClient } from '../../src/client/client.ts';
import { startServeProcess } from '../support/cli.ts';
import { hookFixture, runHook } from '../support/hook.ts';
import { tempDir } from '../support/storage.ts';

const SESSIONS = 200;

async function inBatches<T>(count: number, run: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => run(index)));
}

describe('leasehold hook: spool while the server is down, replay once after start', function () {
  this.timeout(600_000);
  let dataDir: string;
  let runtimeDir: string;

  before(() => {
    dataDir = tempDir('data');
    runtimeDir = tempDir('runtime');
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  it(`${SESSIONS} concurrent hook processes per phase: all spooled, all applied in order exactly once`, async () => {
    // A crashed server left its discovery file behind: the hooks try it, retry, then spool.
    mkdirSync(runtimeDir, { recursive: true });
    writeFileSync(join(runtimeDir, 'server.json'), JSON.stringify({ pid: 999_999, port: 9, url: 'http://127.0.0.1:9', version: '0', storage: 'sqlite', data_dir: dataDir, started_at: 0 }));
    writeFileSync(join(runtimeDir, 'token'), 'stale-token\n');
    const env = (index: number) => ({ LEASEHOLD_RUNTIME_DIR: runtimeDir, LEASEHOLD_PANE: `pane-${index}` });
    const session = (index: number) => `spool-session-${index}`;

    // Phase 1: every session starts (binds its pane); phase 2: every session launches a background task.
    const phase1 = await inBatches(SESSIONS, (index) => runHook('SessionStart', hookFixture('session-start', { session_id: session(index) }), env(index), 240_000));
    const phase2 = await inBatches(SESSIONS, (index) =>
      runHook('PostToolUse', hookFixture('post-tool-use-bash-background', { session_id: session(index), tool_response: { backgroundTaskId: `task-${index}` } }), env(index), 240_000),
    );
    for (const result of [...phase1, ...phase2]) {
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, '');
    }
    const spoolDir = join(runtimeDir, 'spool');
    const spooled = readdirSync(spoolDir).filter((name) => name.endsWith('.json')).sort();
    assert.equal(spooled.length, SESSIONS * 2, 'every event was spooled, none lost');
    assert.equal(readdirSync(spoolDir).filter((name) => name.startsWith('.tmp-')).length, 0, 'no partial file');
    // Keep one event aside to replay it a second time later.
    const again = join(runtimeDir, 'again.json');
    copyFileSync(join(spoolDir, spooled[SESSIONS + 7]!), again);

    const server = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
    try {
      const client = new LeaseholdClient({ baseUrl: server.url, token: readFileSync(join(runtimeDir, 'token'), 'utf8').trim() });
      type Lease = { session_id: string | null; job_ref: string; state: string };
      const activeLeases = async () => (await client.call<{ leases: Lease[] }>('GET', '/api/v1/wait-leases', { query: { state: 'active' } })).leases;
      const deadline = Date.now() + 60_000;
      while (readdirSync(spoolDir).some((name) => name.endsWith('.json')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(readdirSync(spoolDir).filter((name) => name.endsWith('.json')), [], 'the spool was drained at start');

      const check = async () => {
        const leases = await activeLeases();
        assert.equal(leases.length, SESSIONS, 'one lease per launch: none lost, none doubled');
        for (let index = 0; index < SESSIONS; index++) {
          const own = leases.filter((lease) => lease.session_id === session(index));
          assert.deepEqual(own.map((lease) => lease.job_ref), [`task-${index}`], `session ${index}`);
          const bound = await client.call<{ pane: string }>('GET', `/api/v1/sessions/${session(index)}`);
          assert.equal(bound.pane, `pane-${index}`);
        }
      };
      await check();

      // A replay of an id already applied changes nothing (a crash after apply, before delete).
      copyFileSync(again, join(spoolDir, spooled[SESSIONS + 7]!));
      const event = JSON.parse(readFileSync(again, 'utf8'));
      const direct = await client.call<{ duplicate: boolean }>('POST', '/api/v1/hook-events', { body: event });
      assert.equal(direct.duplicate, true);
      assert.deepEqual(readdirSync(spoolDir).filter((name) => name.endsWith('.json')), [], 'a direct event drains the spool first');
      await check();
    } finally {
      await server.stop();
    }
  });
});
