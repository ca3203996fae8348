// The CLI and `leasehold serve` as real processes, on trust and bad flags (issue 10 items
// 12-14): an unsafe runtime dir is refused with the fix; the human token never goes to a
// server.json that names no live server of this user; secrets on argv are warned about and
// have env / 0600-file alternatives; every flag error names the flag and the rule.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { runCli, startServeProcess } from '../support/cli.ts';
import { tempDir } from '../support/storage.ts';

describe('leasehold CLI: trust and flag errors', function () {
  this.timeout(60_000);
  let dataDir: string;
  let runtimeDir: string;
  beforeEach(() => {
    dataDir = tempDir('data');
    runtimeDir = tempDir('runtime');
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });
  const env = () => ({ LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir, LEASEHOLD_URL: '', LEASEHOLD_TOKEN: '' });

  it('serve and the CLI refuse a group/world-writable runtime dir, with the fix', async () => {
    chmodSync(runtimeDir, 0o777);
    const serve = await runCli(['serve'], { env: env() });
    assert.notEqual(serve.code, 0);
    assert.match(serve.stderr, /runtime dir .* has mode 777: other users could replace its server.json.*chmod 700/);
    const cli = await runCli(['endpoint', 'list'], { env: env() });
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /has mode 777.*chmod 700/);
  });

  it('never sends the token to a server.json naming a dead pid, and tells a damaged server.json from a missing one', async () => {
    writeFileSync(join(runtimeDir, 'server.json'), JSON.stringify({ pid: 999_999_999, port: 9, url: 'http://127.0.0.1:9', version: '0', storage: 'sqlite', data_dir: null, started_at: 0 }), { mode: 0o600 });
    const stale = await runCli(['endpoint', 'list'], { env: env() });
    assert.equal(stale.code, 2);
    assert.match(stale.stderr, /no lease server of yours is running: server.json names pid 999999999, which is not running/);
    writeFileSync(join(runtimeDir, 'server.json'), '{not json');
    const damaged = await runCli(['endpoint', 'list'], { env: env() });
    assert.match(damaged.stderr, /server.json is damaged/);
    rmSync(join(runtimeDir, 'server.json'));
    const missing = await runCli(['endpoint', 'list'], { env: env() });
    assert.match(missing.stderr, /does not exist/);
  });

  it('--token on the command line warns; --token-file must be 0600', async () => {
    const server = await startServeProcess([], env());
    try {
      const token = readFileSync(join(runtimeDir, 'token'), 'utf8').trim();
      const onArgv = await runCli(['endpoint', 'list', '--token', token], { env: env() });
      assert.equal(onArgv.code, 0, onArgv.stderr);
      assert.match(onArgv.stderr, /warning: --token on the command line is visible to every user.*LEASEHOLD_TOKEN or --token-file/);
      const file = join(runtimeDir, 'my-token');
      writeFileSync(file, `${token}\n`, { mode: 0o644 });
      chmodSync(file, 0o644);
      const loose = await runCli(['endpoint', 'list', '--token-file', file], { env: env() });
      assert.equal(loose.code, 2);
      assert.match(loose.stderr, /--token-file: .* has mode 644; a secret file must be readable by you alone. Fix: chmod 600/);
      chmodSync(file, 0o600);
      const good = await runCli(['endpoint', 'list', '--token-file', file], { env: env() });
      assert.equal(good.code, 0, good.stderr);
      assert.equal(good.stderr, '');
      const help = await runCli(['--help'], { env: env() });
      assert.match(help.stdout, /--token-file/);
      assert.match(help.stdout, /LEASEHOLD_TOKEN/);
    } finally {
      await server.stop();
    }
  });

  it('flag errors name the flag and the rule', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--port', 'abc'], /--port: must be a whole number/],
      [['serve', '--port', '70000'], /--port: must be a whole number 0-65535/],
      [['serve', '--database-url', 'not a url'], /--database-url: must be a PostgreSQL URL such as postgres:\/\//],
      [['ledger', '--since', '-1'], /--since: must be epoch milliseconds, an ISO date or \+DURATION/],
    ];
    for (const [args, expected] of cases) {
      const result = await runCli(args, { env: env() });
      assert.notEqual(result.code, 0, args.join(' '));
      assert.match(result.stderr, expected, args.join(' '));
      assert.doesNotMatch(result.stderr, /options\.port|ENOTFOUND/);
    }
  });

  const databaseUrl = process.env.LEASEHOLD_TEST_DATABASE_URL;
  (databaseUrl ? it : it.skip)('serve --database-url with a password warns and takes it out of ps (PostgreSQL)', async () => {
    const schema = `lh_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      // The shared test cluster trusts loopback, so any password connects; the point is where it shows.
      const url = new URL(databaseUrl!);
      url.password = 'pw-visible-in-ps';
      url.searchParams.set('options', `-c search_path=${schema}`);
      const server = await startServeProcess(['--database-url', url.toString()], { ...env(), LEASEHOLD_DATABASE_URL: '' });
      try {
        const cmdline = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8');
        assert.doesNotMatch(cmdline, /pw-visible-in-ps/);
      } finally {
        await server.stop();
      }
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
