// The CLI as a user runs it: duration conversion, reset, LEASE column, refusals and usage errors.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tempDir } from '../support/storage.ts';
import { runCli, startServeProcess } from '../support/cli.ts';
import { connectMcp } from '../support/mcp.ts';

describe('leasehold endpoint / todo (real processes)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let runtimeDir: string;
  let server: Awaited<ReturnType<typeof startServeProcess>>;
  const env = () => ({ LEASEHOLD_RUNTIME_DIR: runtimeDir });

  before(async () => {
    dataDir = tempDir('data');
    runtimeDir = tempDir('runtime');
    server = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
  });
  after(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  it('converts --lease-ttl durations and shows them in the LEASE column', async () => {
    for (const [slug, duration, seconds] of [
      ['a60s', '60s', 60],
      ['a90s', '90s', 90],
      ['b15m', '15m', 900],
      ['c1h', '1h', 3600],
      ['d86400', '86400', 86_400],
    ] as const) {
      const vend = await runCli(['endpoint', 'vend', slug, '--lease-ttl', duration, '--json'], { env: env() });
      assert.equal(vend.code, 0, vend.stderr);
      assert.equal(JSON.parse(vend.stdout).endpoint.default_lease_ttl_seconds, seconds);
    }
    const plain = await runCli(['endpoint', 'vend', 'plain'], { env: env() });
    assert.equal(plain.code, 0);
    assert.match(plain.stdout, /Token \(shown once\): lhe_/);
    const list = await runCli(['endpoint', 'list'], { env: env() });
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^SLUG\s+ID\s+STATE\s+LEASE/m);
    assert.match(list.stdout, /b15m .*15m \(this endpoint's default\)/);
    assert.match(list.stdout, /c1h .*1h \(this endpoint's default\)/);
    assert.match(list.stdout, /plain .*5m \(server default\)/);
  });

  it('edit --lease-ttl default resets; out of range is refused with the rule and exit 1', async () => {
    await runCli(['endpoint', 'vend', 'editme', '--lease-ttl', '45m'], { env: env() });
    const reset = await runCli(['endpoint', 'edit', 'editme', '--lease-ttl', 'default'], { env: env() });
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /5m \(server default\)/);
    for (const bad of ['59s', '86401', '25h']) {
      const refused = await runCli(['endpoint', 'edit', 'editme', '--lease-ttl', bad], { env: env() });
      assert.equal(refused.code, 1, bad);
      assert.match(refused.stderr, /between 60 and 86400 seconds/);
      assert.match(refused.stderr, /not clamped/);
    }
    const shown = await runCli(['endpoint', 'show', 'editme', '--json'], { env: env() });
    assert.equal(JSON.parse(shown.stdout).default_lease_ttl_seconds, null, 'refusals changed nothing');
  });

  it('usage errors exit 2 with a message naming the option', async () => {
    const badDuration = await runCli(['endpoint', 'edit', 'editme', '--lease-ttl', 'soon'], { env: env() });
    assert.equal(badDuration.code, 2);
    assert.match(badDuration.stderr, /--lease-ttl: "soon" is not a duration/);
    const missing = await runCli(['endpoint', 'edit', 'editme'], { env: env() });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--lease-ttl/);
    const unknownCommand = await runCli(['endpoint', 'frobnicate'], { env: env() });
    assert.equal(unknownCommand.code, 2);
    const badScope = await runCli(['endpoint', 'vend', 'x', '--scope', 'claim,teleport'], { env: env() });
    assert.equal(badScope.code, 2);
    assert.match(badScope.stderr, /teleport/);
  });

  it('unknown endpoints are refused (exit 1); no discovery file is a usage hint (2); an unreachable server is exit 3', async () => {
    const unknown = await runCli(['endpoint', 'edit', 'nobody', '--lease-ttl', '1h'], { env: env() });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no endpoint "nobody" \(not_found\)/);
    const nowhere = await runCli(['endpoint', 'list'], { env: { LEASEHOLD_RUNTIME_DIR: tempDir('empty-runtime') } });
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.stderr, /no lease server found/);
    const emptyVariables = await runCli(['endpoint', 'list'], { env: { ...env(), LEASEHOLD_URL: '', LEASEHOLD_TOKEN: '' } });
    assert.equal(emptyVariables.code, 0, 'an empty LEASEHOLD_URL means unset: server.json is used');
    const down = await runCli(['endpoint', 'list', '--server', 'http://127.0.0.1:9'], { env: env() });
    assert.equal(down.code, 3);
    assert.match(down.stderr, /cannot reach the lease server/);
  });

  it('todo add and list show queue, state and holder', async () => {
    const added = await runCli(['todo', 'add', 'reviews', 'Review PR 552', '--payload', '{"pr":552}', '--json'], { env: env() });
    assert.equal(added.code, 0, added.stderr);
    assert.equal(JSON.parse(added.stdout).payload.pr, 552);
    const list = await runCli(['todo', 'list', '--queue', 'reviews'], { env: env() });
    assert.match(list.stdout, /reviews\s+queued\s+0\s+Review PR 552/);
    const badPayload = await runCli(['todo', 'add', 'reviews', 'x', '--payload', '{nope'], { env: env() });
    assert.equal(badPayload.code, 2);
    assert.match(badPayload.stderr, /--payload/);
  });

  it('todo requeue hands a claimed todo back and fences its holder', async () => {
    const vend = JSON.parse((await runCli(['endpoint', 'vend', 'requeue-worker', '--json'], { env: env() })).stdout);
    const added = JSON.parse((await runCli(['todo', 'add', 'requeues', 'Long job', '--json'], { env: env() })).stdout);
    const mcp = await connectMcp(server.url, vend.token);
    try {
      const claim = await mcp.call('claim', { todo_id: added.id });
      assert.equal(claim.isError, false);
      const requeued = await runCli(['todo', 'requeue', added.id], { env: env() });
      assert.equal(requeued.code, 0, requeued.stderr);
      assert.match(requeued.stdout, new RegExp(`Requeued ${added.id} on requeues`));
      assert.match((await runCli(['todo', 'list', '--queue', 'requeues'], { env: env() })).stdout, /requeues\s+queued/);
      const complete = await mcp.call('complete', { todo_id: added.id, claim_epoch: claim.value.claim_epoch });
      assert.equal(complete.isError, true);
      assert.match(JSON.stringify(complete.value), /claim_ended.*a human handed the todo back/);
      const again = await runCli(['todo', 'requeue', added.id], { env: env() });
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /only a claimed todo can be requeued/);
    } finally {
      await mcp.close();
    }
  });
});
