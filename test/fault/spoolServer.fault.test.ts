// Fault suite, delivery spool seen from the server: a poisoned spool never makes a direct hook
// event fail (before, every direct event answered 500 and was spooled too, never applied), the
// entries behind the poison are applied, and GET /api/v1/status and `leasehold status` say
// what was set aside, where, and why.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newEventId, spoolEvent } from '../../src/runtime/spool.ts';
import { runCli } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { sqliteTarget } from '../support/storage.ts';
import type { ServerStatus } from '../../src/core/wire/status.ts';

describe('fault: a poisoned spool, seen from the server', function () {
  this.timeout(30_000);
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer(sqliteTarget, { hookReplayIntervalMs: 0 });
  });
  afterEach(() => t.stop());

  const bind = (session: string, pane: string) => ({ op: 'bind_session', session_id: session, pane_hint: { env_pane: pane, ancestry: [] } });

  it('a direct event succeeds, the spooled events behind the poison are applied, and status reports it', async () => {
    const spool = join(t.runtimeDir, 'spool');
    spoolEvent(spool, { id: newEventId(), ops: [bind('s-before', 'p-before')] });
    mkdirSync(join(spool, `${newEventId()}.json`));
    writeFileSync(join(spool, `${newEventId()}.json`), '{"id": "x", "ops": "not ops"}');
    spoolEvent(spool, { id: newEventId(), ops: [bind('s-after', 'p-after')] });

    const direct = await t.client.call<{ duplicate: boolean; results: Array<{ ok: boolean }> }>('POST', '/api/v1/hook-events', { body: { id: newEventId(), ops: [bind('s-direct', 'p-direct')] } });
    assert.deepEqual(direct.results.map((result) => result.ok), [true]);
    for (const [session, pane] of [['s-before', 'p-before'], ['s-after', 'p-after'], ['s-direct', 'p-direct']]) {
      assert.equal((await t.client.getSession(session!)).pane, pane);
    }

    const status = await t.client.status();
    assert.equal(status.spool.pending, 0);
    assert.equal(status.spool.quarantined, 2);
    assert.equal(status.spool.last_replay?.applied, 2);
    assert.match(status.spool.last_error?.message ?? '', /quarantine.*not a valid hook event/);

    const cli = await runCli(['status', '--server', t.server.url], { env: { LEASEHOLD_TOKEN: t.server.token } });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /hook spool: 0 pending, 2 quarantined/);
    assert.match(cli.stdout, /last error .*quarantined .*quarantine/);
    const json = JSON.parse((await runCli(['status', '--json', '--server', t.server.url], { env: { LEASEHOLD_TOKEN: t.server.token } })).stdout) as ServerStatus;
    assert.equal(json.spool.quarantined, 2);
  });
});
