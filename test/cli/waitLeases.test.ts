// `leasehold pane ...`, `verdict`, `teardown-check` and `ledger` as a user runs them, against a
// real `leasehold serve` child (with --hard-max-ttl).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tempDir } from '../support/storage.ts';
import { runCli, startServeProcess } from '../support/cli.ts';

describe('leasehold pane / verdict / teardown-check / ledger (real processes)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let runtimeDir: string;
  let server: Awaited<ReturnType<typeof startServeProcess>>;
  const env = (extra: Record<string, string> = {}) => ({ LEASEHOLD_RUNTIME_DIR: runtimeDir, ...extra });
  const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: env(extra) });

  before(async () => {
    dataDir = tempDir('data');
    runtimeDir = tempDir('runtime');
    server = await startServeProcess(['--hard-max-ttl', '30m'], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
  });
  after(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  it('register, display, acquire (prints id and token), list, release', async () => {
    const registered = await cli(['pane', 'register', 'term-1']);
    assert.equal(registered.code, 0, registered.stderr);
    assert.match(registered.stdout, /generation 1/);
    assert.equal((await cli(['pane', 'display', 'term-1', 'idle'])).code, 0);
    const acquired = await cli(['pane', 'wait-lease', 'acquire', '--id', 'npm-test', '--ttl', '2h', '--description', 'npm test'], { LEASEHOLD_PANE: 'term-1' });
    assert.equal(acquired.code, 0, acquired.stderr);
    const leaseId = /LEASEHOLD_LEASE_ID=(\S+)/.exec(acquired.stdout)![1]!;
    const token = /LEASEHOLD_LEASE_TOKEN=(wlt_\S+)/.exec(acquired.stdout)![1]!;
    assert.match(acquired.stderr, /30m of authority \(clamped by hard_max\)/, 'the server setting --hard-max-ttl applies');
    const list = await cli(['pane', 'list']);
    assert.match(list.stdout, /^PANE\s+GEN\s+SOURCE\s+DISPLAY\s+LEASES\s+ANNOTATION/m);
    assert.match(list.stdout, /term-1 .*idle · awaiting npm-test \(npm test\), 30m left/);
    const leases = await cli(['pane', 'wait-lease', 'list', '--pane', 'term-1', '--json']);
    assert.equal(JSON.parse(leases.stdout)[0].lease_id, leaseId);
    const bare = await cli(['pane', 'wait-lease', 'renew', '--lease', leaseId, '--lease-token', token, '--ttl', '10m']);
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /EVIDENCE_MISSING/);
    const released = await cli(['pane', 'wait-lease', 'release', '--lease', leaseId, '--lease-token', token, '--reason', 'done']);
    assert.equal(released.code, 0, released.stderr);
  });

  // Issue 8, evidence rule 1: renewal evidence is about the lease's own target, never the
  // renewer's word. A live process that is not the pinned target renews nothing, nor does a
  // provider job the CLI merely names (it no longer stamps observed_at itself).
  it("renew: only the lease's pinned process renews it; --pid of another live process and --provider-job renew nothing", async () => {
    const acquired = await cli(['pane', 'wait-lease', 'acquire', '--pane', 'term-3', '--id', 'made-up', '--ttl', '10m', '--json']);
    const declared = JSON.parse(acquired.stdout) as { lease_id: string; token: string };
    for (const evidence of [['--pid', String(process.pid)], ['--pid', String(server.pid)], ['--provider-job', 'made-up'], ['--provider-job', 'anything']]) {
      const refusedRenew = await cli(['pane', 'wait-lease', 'renew', '--lease', declared.lease_id, '--lease-token', declared.token, '--ttl', '10m', ...evidence]);
      assert.equal(refusedRenew.code, 1, evidence.join(' '));
      assert.match(refusedRenew.stderr, /EVIDENCE_MISSING/, evidence.join(' '));
    }
    const heldOut = await cli(['pane', 'wait-lease', 'hold', '--pane', 'term-3', '--id', 'serve', '--ttl', '20m', '--pid', String(server.pid), '--json']);
    assert.equal(heldOut.code, 0, heldOut.stderr);
    const hold = JSON.parse(heldOut.stdout) as { lease_id: string; token: string };
    const self = await cli(['pane', 'wait-lease', 'renew', '--lease', hold.lease_id, '--lease-token', hold.token, '--ttl', '10m', '--pid', String(process.pid)]);
    assert.equal(self.code, 1);
    assert.match(self.stderr, /not this lease's target/);
    const renewed = await cli(['pane', 'wait-lease', 'renew', '--pane', 'term-3', '--id', 'serve', '--ttl', '10m', '--pid', String(server.pid)], { LEASEHOLD_LEASE_TOKEN: hold.token });
    assert.equal(renewed.code, 0, renewed.stderr);
    assert.match(renewed.stdout, /10m left/);
    const leases = JSON.parse((await cli(['pane', 'wait-lease', 'list', '--pane', 'term-3', '--json'])).stdout) as Array<{ lease_id: string; renew_count: number }>;
    assert.equal(leases.find((lease) => lease.lease_id === declared.lease_id)!.renew_count, 0);
    await cli(['pane', 'wait-lease', 'release', '--lease', hold.lease_id, '--lease-token', hold.token]);
  });

  it('pane list shows "lease expired N ago" once, not on every read', async () => {
    await cli(['pane', 'register', 'expiring']);
    await cli(['pane', 'display', 'expiring', 'idle']);
    const acquired = await cli(['pane', 'wait-lease', 'acquire', '--pane', 'expiring', '--id', 'short', '--ttl-ms', '1000']);
    assert.equal(acquired.code, 0, acquired.stderr);
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const first = await cli(['pane', 'list']);
    assert.match(first.stdout, /expiring .*idle · lease expired \d+s ago/);
    const second = await cli(['pane', 'list']);
    assert.match(second.stdout, /expiring /);
    assert.doesNotMatch(second.stdout, /expiring .*expired/, 'the second read does not repeat the notice');
  });

  it('the TTL is mandatory', async () => {
    const missing = await cli(['pane', 'wait-lease', 'acquire', '--pane', 'term-1', '--id', 'x']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /TTL is required/);
  });

  it('hold on a pid, then release by owner (no token)', async () => {
    const held = await cli(['pane', 'wait-lease', 'hold', '--pane', 'term-2', '--id', 'server', '--ttl-ms', '600000', '--pid', String(server.pid), '--json']);
    assert.equal(held.code, 0, held.stderr);
    const grant = JSON.parse(held.stdout);
    const released = await cli(['pane', 'wait-lease', 'release', '--pane', 'term-2', '--id', 'server']);
    assert.equal(released.code, 0, released.stderr);
    assert.match(released.stdout, new RegExp(`Released ${grant.lease_id}`));
  });

  it('verdict names the reading and disposition', async () => {
    await cli(['pane', 'register', 'quiet']);
    await cli(['pane', 'display', 'quiet', 'idle']);
    const verdict = await cli(['verdict', 'quiet']);
    assert.equal(verdict.code, 0, verdict.stderr);
    assert.match(verdict.stdout, /reading UNKNOWN/);
    assert.match(verdict.stdout, /page if_unresolved/);
    assert.doesNotMatch(verdict.stdout, /safe to kill/i);
  });

  it('teardown-check exits 0 only for yes and names each unmet condition', async () => {
    await cli(['pane', 'register', 'gpu']);
    const base = ['teardown-check', '--pane', 'gpu', '--job-ref', 'render', '--heartbeat-stale-after', '5m', '--floor', '15m'];
    const yes = await cli([...base, '--heartbeat-age', '10m', '--quiet-for', '20m']);
    assert.equal(yes.code, 0, yes.stderr);
    assert.match(yes.stdout, /^yes \(lease absent\)/);
    const noHeartbeat = await cli([...base, '--quiet-for', '20m']);
    assert.equal(noHeartbeat.code, 1);
    assert.match(noHeartbeat.stdout, /unmet: job_heartbeat_unknown/);
    await cli(['pane', 'wait-lease', 'acquire', '--pane', 'gpu', '--id', 'render', '--ttl', '10m']);
    const leased = await cli([...base, '--heartbeat-age', '1m', '--quiet-for', '1m']);
    assert.equal(leased.code, 1);
    for (const name of ['lease_not_ended', 'job_heartbeat_fresh', 'policy_floor_not_passed']) assert.match(leased.stdout, new RegExp(`unmet: ${name}`));
  });

  it('ledger prints a table and JSON with filters', async () => {
    const table = await cli(['ledger']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^GRANTED\s+PANE\s+JOB\s+TYPE\s+KIND\s+DECLARED_TTL\s+END\s+CENSORING\s+MEASURED\s+NOTE/m);
    assert.match(table.stdout, /npm-test .*2h\s+released\s+exact .*done/);
    const json = JSON.parse((await cli(['ledger', '--end-reason', 'released', '--json'])).stdout);
    assert.ok(json.length >= 2 && json.every((row: { censoring: string }) => row.censoring === 'exact'));
  });
});
