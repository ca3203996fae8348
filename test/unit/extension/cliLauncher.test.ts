// The `leasehold` launcher the extension puts on its terminals' PATH: written as the extension
// writes it and run as a real process (sh), with awkward paths and arguments.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliLauncherScript, shellWord } from '../../../src/extension/model/cliLauncher.ts';

const builtCli = fileURLToPath(new URL('../../../dist/cli/leasehold.js', import.meta.url));

describe('extension: the leasehold command in terminals', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "leasehold-launcher-it's "))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const install = (script: string) => {
    const file = join(dir, 'bin', 'leasehold');
    mkdirSync(join(dir, 'bin'));
    writeFileSync(file, script);
    chmodSync(file, 0o700);
    return file;
  };

  it('passes arguments and the runtime env through unchanged, whatever the quoting in paths and arguments', () => {
    const probe = join(dir, "probe's.cjs");
    writeFileSync(probe, 'process.stdout.write(JSON.stringify({ args: process.argv.slice(2), env: process.env.ELECTRON_RUN_AS_NODE }))');
    const file = install(cliLauncherScript({ command: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } }, probe, 'linux')!);
    const args = ['run', '--id', "it's a job", '--', 'echo', '$HOME', '"x"', ''];
    const out = JSON.parse(execFileSync(file, args, { encoding: 'utf8' })) as { args: string[]; env: string };
    assert.deepEqual(out.args, args);
    assert.equal(out.env, '1');
  });

  it('runs the bundled CLI', function () {
    if (!existsSync(builtCli)) this.skip(); // npm test builds dist/ before the suites
    const file = install(cliLauncherScript({ command: process.execPath, env: {} }, builtCli, 'linux')!);
    assert.match(execFileSync(file, ['--version'], { encoding: 'utf8' }), /^\d+\.\d+\.\d+/);
  });

  it('is not written where a POSIX script cannot run; a name that is not an env name is left out', () => {
    assert.equal(cliLauncherScript({ command: 'node', env: {} }, 'cli.js', 'win32'), undefined);
    assert.doesNotMatch(cliLauncherScript({ command: 'node', env: { 'A;rm -rf /': 'x' } }, 'cli.js', 'linux')!, /rm -rf/);
    assert.equal(shellWord("a'b"), `'a'"'"'b'`);
  });
});
