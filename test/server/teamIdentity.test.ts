// Team mode identities and device tokens (issue 9 item 1): two (and three) real lease-server
// processes on one PostgreSQL database, each in its own pid namespace with its own runtime dir
// (so its own machine id) and a distinct boot id (a TEST SEAM, see teamServerProcess.ts).
// One human on two machines has two device tokens; restarting servers in any order never
// invalidates the other machine's token; a device is listed and revoked one at a time; a
// default identity never silently joins another machine's human; SQLite stays zero-config.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import { postgresTarget, sqliteTarget, tempDir } from '../support/storage.ts';
import { runCli, startServeProcess } from '../support/cli.ts';
import { startTeamProcess, useTeamDatabase, type TeamProcess } from '../support/teamProcesses.ts';

interface DeviceView {
  id: string;
  machine_id: string;
  state: string;
  current: boolean;
}

async function status(machine: TeamProcess, token: string): Promise<number> {
  const response = await fetch(`${machine.url}/api/v1/endpoints`, { headers: { authorization: `Bearer ${token}` } });
  await response.text();
  return response.status;
}

describe('team mode: identities and device tokens (separate processes)', function () {
  this.timeout(90_000);
  const team = useTeamDatabase();
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** One "machine": a runtime dir kept across restarts (its machine id and token file live there). */
  const machineDir = () => {
    const dir = tempDir('team-identity');
    dirs.push(dir);
    return dir;
  };
  const start = async (runtimeDir: string, bootId: string, identity?: string) => {
    const machine = await startTeamProcess({ dbUrl: team.url, schema: team.schema, bootId, identity, runtimeDir });
    team.machines.push(machine);
    return machine;
  };
  const restart = async (machine: TeamProcess, bootId: string, identity?: string) => {
    await machine.kill9();
    team.machines = team.machines.filter((candidate) => candidate !== machine);
    return start(machine.runtimeDir, bootId, identity);
  };

  it('one human on two machines: restarts in any order never invalidate the other machine\'s token', async () => {
    const dirA = machineDir();
    const dirB = machineDir();
    let a = await start(dirA, 'boot-A', 'alice');
    let b = await start(dirB, 'boot-B', 'alice');
    const tokenA = a.token;
    const tokenB = b.token;
    assert.notEqual(tokenA, tokenB, 'each machine has its own device token');
    assert.equal(a.human.id, b.human.id, 'the same identity on two machines is one human');
    for (const order of [['A', 'B'], ['B', 'A'], ['A', 'A'], ['B', 'B']]) {
      for (const which of order) {
        if (which === 'A') a = await restart(a, 'boot-A', 'alice');
        else b = await restart(b, 'boot-B', 'alice');
        for (const server of [a, b]) {
          assert.equal(await status(server, tokenA), 200, `A's token after restarting ${order.join(',')} (asked ${which === 'A' ? 'A' : 'B'})`);
          assert.equal(await status(server, tokenB), 200, `B's token after restarting ${order.join(',')}`);
        }
      }
    }
    assert.equal(a.token, tokenA, 'a restart keeps its own machine\'s token');
    assert.equal(b.token, tokenB);
    // No identity given: the machine keeps the identity it used last.
    a = await restart(a, 'boot-A');
    assert.equal(a.human.name, 'alice');
    assert.equal(a.token, tokenA);
    assert.match(String(a.notice), /acting as identity "alice"/);
  });

  it('devices are listed per machine and revoked one at a time; another human\'s device is 404', async () => {
    const a = await start(machineDir(), 'boot-A', 'alice');
    let b = await start(machineDir(), 'boot-B', 'alice');
    const c = await start(machineDir(), 'boot-C', 'carol');
    const listed = await a.api<{ devices: DeviceView[] }>('GET', '/api/v1/devices');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.devices.map((device) => device.machine_id).sort(), [a.machine, b.machine].sort());
    assert.ok(listed.body.devices.every((device) => device.state === 'active'));
    assert.deepEqual(listed.body.devices.filter((device) => device.current).map((device) => device.machine_id), [a.machine]);
    const deviceB = listed.body.devices.find((device) => device.machine_id === b.machine)!;

    // Carol cannot see or revoke Alice's devices: the same 404 as a device that does not exist.
    const foreign = await c.api<{ error: { code: string; field: string } }>('POST', `/api/v1/devices/${deviceB.id}/revoke`);
    const missing = await c.api<{ error: { code: string; field: string } }>('POST', '/api/v1/devices/dv_nosuchdevice/revoke');
    assert.equal(foreign.status, 404);
    assert.deepEqual({ ...foreign.body.error, message: undefined }, { ...missing.body.error, message: undefined });
    assert.equal((await c.api<{ devices: DeviceView[] }>('GET', '/api/v1/devices')).body.devices.length, 1);

    // The CLI, as Alice through A, revokes B's device: B's token stops, A's keeps working.
    const revoked = await runCli(['--server', a.url, '--json', 'device', 'revoke', deviceB.id], { env: { LEASEHOLD_TOKEN: a.token } });
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((JSON.parse(revoked.stdout) as DeviceView).state, 'revoked');
    assert.equal(await status(a, b.token), 401);
    assert.equal(await status(b, b.token), 401);
    assert.equal(await status(b, a.token), 200);
    const again = await a.api<{ error: { code: string } }>('POST', `/api/v1/devices/${deviceB.id}/revoke`);
    assert.equal(again.status, 409);
    // B's server restarts: a new device token for B, still Alice; A's token untouched.
    b = await restart(b, 'boot-B');
    assert.equal(b.human.name, 'alice');
    assert.equal(await status(b, b.token), 200);
    assert.equal(await status(b, a.token), 200);
    const list = await runCli(['--server', a.url, 'device', 'list'], { env: { LEASEHOLD_TOKEN: a.token } });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /\(this one\)/);
    assert.equal(list.stdout.match(/ revoked /g)?.length, 1, list.stdout);
  });

  it('a default identity is user@host, is announced with how to choose another, and never joins another machine\'s human', async () => {
    const first = await start(machineDir(), 'boot-A');
    const notice = String(first.notice);
    const expected = `${userInfo().username}@${hostname()}`.replace(/[^A-Za-z0-9._@+-]/g, '-');
    assert.equal(first.human.name, expected);
    assert.match(notice, new RegExp(`acting as identity "${expected.replace(/[.+]/g, '\\$&')}" \\(new human; the default, user@host\\)`));
    assert.match(notice, /--identity NAME or LEASEHOLD_IDENTITY=NAME/);
    // Another machine with the same user and host name (a devcontainer's `vscode`): not the same human.
    const second = await start(machineDir(), 'boot-B');
    assert.notEqual(second.human.id, first.human.id);
    assert.match(second.human.name, new RegExp(`^${expected.replace(/[.+]/g, '\\$&')}-[0-9a-f]{8}$`));
    assert.match(String(second.notice), /was taken by a human with no history on this machine/);
  });
});

describe('identities: what `leasehold serve` says on a shared database', function () {
  this.timeout(30_000);
  const url = process.env.LEASEHOLD_TEST_DATABASE_URL;
  before(function () {
    if (!url) this.skip();
  });

  it('prints exactly which identity it acts as and how to choose another, on stdout before its URL', async () => {
    const { config, cleanup } = await postgresTarget(url!).create();
    const runtimeDir = tempDir('identity-serve');
    const schema = (config as { schema: string }).schema;
    const databaseUrl = `${url}${url!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    try {
      const server = await startServeProcess(['--identity', 'carol'], { LEASEHOLD_DATABASE_URL: databaseUrl, LEASEHOLD_RUNTIME_DIR: runtimeDir });
      try {
        assert.match(server.output(), /^team mode: acting as identity "carol" \(new human; chosen with --identity or LEASEHOLD_IDENTITY\), device dv_\w+ on machine .+\. To act as another identity, restart with --identity NAME or LEASEHOLD_IDENTITY=NAME/m);
      } finally {
        await server.stop();
      }
      const again = await startServeProcess([], { LEASEHOLD_DATABASE_URL: databaseUrl, LEASEHOLD_RUNTIME_DIR: runtimeDir });
      try {
        assert.match(again.output(), /acting as identity "carol" \(existing human; this machine's identity\)/);
      } finally {
        await again.stop();
      }
    } finally {
      await cleanup();
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });
});

describe('identities: refusals and the single-machine default', () => {
  it('an identity the rule refuses is a 4xx naming the field (server) and a usage error naming the flag or env (CLI)', async () => {
    const { config, cleanup } = await sqliteTarget.create();
    const runtimeDir = tempDir('identity-bad');
    try {
      await assert.rejects(startLeaseServer({ storage: config, runtimeDir, logger: silentLogger, identity: 'has space' }), (error: Error & { code?: string; field?: string }) => {
        assert.equal(error.code, 'invalid_argument');
        assert.equal(error.field, 'identity');
        return true;
      });
      const flag = await runCli(['serve', '--identity', 'bad/name', '--data-dir', config.kind === 'sqlite' ? config.dataDir : '', '--runtime-dir', runtimeDir]);
      assert.equal(flag.code, 2, flag.stderr);
      assert.match(flag.stderr, /--identity: must be 1-100 characters/);
      const env = await runCli(['serve', '--runtime-dir', runtimeDir], { env: { LEASEHOLD_IDENTITY: 'a b', LEASEHOLD_DATA_DIR: config.kind === 'sqlite' ? config.dataDir : '' } });
      assert.equal(env.code, 2, env.stderr);
      assert.match(env.stderr, /LEASEHOLD_IDENTITY: must be 1-100 characters/);
    } finally {
      await cleanup();
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });

  it('SQLite needs no configuration: the OS user, no notice, and the token survives restarts', async () => {
    const { config, cleanup } = await sqliteTarget.create();
    const runtimeDir = tempDir('identity-sqlite');
    try {
      const first = await startLeaseServer({ storage: config, runtimeDir, logger: silentLogger });
      assert.equal(first.human.name, userInfo().username);
      assert.equal(first.identityNotice, null);
      const token = first.token;
      await first.close();
      const second = await startLeaseServer({ storage: config, runtimeDir, logger: silentLogger });
      assert.equal(second.token, token);
      assert.equal(second.human.id, first.human.id);
      await second.close();
    } finally {
      await cleanup();
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });
});
