// `npm pack` gives a tarball that `npm install -g` turns into a working `leasehold` on Node
// 22.19+: installed into a temp prefix (offline: the CLI, server and hook are bundles and need no
// dependency), its `leasehold serve` starts and answers the CLI, and the hook command that
// `hooks install` would write runs from the install and reaches that server.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** npm's own script, run on this test's Node: next to it, or the system's. */
const npmCli = [path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'), '/usr/lib/node_modules/npm/bin/npm-cli.js', '/usr/local/lib/node_modules/npm/bin/npm-cli.js'].find((candidate) => existsSync(candidate)) ?? '';

function npm(args: string[], cwd: string): string {
  return execFileSync(process.execPath, [npmCli, ...args], { cwd, encoding: 'utf8', timeout: 240_000, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
}

describe('npm pack → npm install -g: a working `leasehold` outside VS Code (real processes)', function () {
  this.timeout(300_000);
  let root: string;
  let bin: string;
  let serve: ReturnType<typeof spawn> | undefined;
  const env = () => ({ ...process.env, LEASEHOLD_RUNTIME_DIR: path.join(root, 'run'), LEASEHOLD_DATA_DIR: path.join(root, 'data'), LEASEHOLD_URL: '', LEASEHOLD_TOKEN: '' });

  before(function () {
    assert.ok(npmCli, 'npm is installed');
    root = mkdtempSync(path.join(tmpdir(), 'leasehold-pack-'));
    // --ignore-scripts: the suite already built dist/ (scripts/test.sh); `npm pack` as a user runs
    // it does the same through the prepack script, checked below, without this test rebuilding
    // the bundles other tests run.
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string>; dependencies?: object };
    assert.match(manifest.scripts.prepack ?? '', /scripts\/build\.mjs/);
    assert.equal(manifest.dependencies, undefined, 'the bundles need no dependency at runtime');
    const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', root], repoRoot)) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((file) => file.path);
    assert.ok(files.includes('bin/leasehold.cjs') && files.includes('dist/cli/leasehold.js') && files.includes('dist/cli/hook.js'), files.join(', '));
    assert.ok(!files.some((file) => file.startsWith('src/') || file.startsWith('test/') || file.startsWith('node_modules/')), 'only what runs');
    npm(['install', '-g', '--offline', '--prefix', path.join(root, 'prefix'), path.join(root, packed[0]!.filename)], root);
    bin = path.join(root, 'prefix', 'bin', 'leasehold');
  });

  after(async () => {
    if (serve && serve.exitCode === null) {
      const exited = new Promise((resolve) => serve!.once('exit', resolve));
      serve.kill('SIGTERM');
      await exited;
    }
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('`leasehold serve` from the install starts, the installed CLI talks to it, and the installed hook reaches it', async () => {
    assert.ok(existsSync(bin), `${bin} exists`);
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8', env: env() });
    assert.equal(version.status, 0, version.stderr);
    serve = spawn(bin, ['serve'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 30_000);
      const seen = (chunk: Buffer) => {
        output += chunk;
        if (/http:\/\/127\.0\.0\.1:\d+/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      serve!.stdout!.on('data', seen);
      serve!.stderr!.on('data', (chunk: Buffer) => (output += chunk));
      serve!.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
    });
    const registered = spawnSync(bin, ['pane', 'register', 'packed-pane'], { encoding: 'utf8', env: env() });
    assert.equal(registered.status, 0, registered.stderr);
    // The hook command `hooks install` writes points into the install, and runs from there.
    const status = JSON.parse(spawnSync(bin, ['hooks', 'status', '--scope', 'local', '--project-dir', root, '--json'], { encoding: 'utf8', env: env() }).stdout) as { hook_command: string };
    assert.ok(status.hook_command.includes(path.join(root, 'prefix')), status.hook_command);
    const input = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'claude-hooks', 'session-start.json'), 'utf8');
    const hook = spawnSync('sh', ['-c', `${status.hook_command} SessionStart`], { input, encoding: 'utf8', env: { ...env(), LEASEHOLD_PANE: 'packed-pane' }, timeout: 30_000 });
    assert.equal(hook.status, 0, hook.stderr);
    const session = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'claude-hooks', 'session-start.json'), 'utf8')).session_id as string;
    const pane = spawnSync(bin, ['pane', 'list', '--json'], { encoding: 'utf8', env: env() });
    const panes = JSON.parse(pane.stdout) as { name: string; sessions?: string[] }[];
    assert.deepEqual(panes.find((item) => item.name === 'packed-pane')?.sessions, [session], 'the installed hook bound the session to the pane on the installed server');
  });
});
