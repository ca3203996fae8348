import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseServerRuntime, cliInvocation, nodeVersionRunsServer, type RuntimeProbe } from '../../../src/extension/server/runtime.ts';

/** The bundled CLI the extension runs (Ctx.cliScript), next to the hook bundle it installs. */
const CLI_BUNDLE = fileURLToPath(new URL('../../../dist/cli/leasehold.js', import.meta.url));
const HOOK_BUNDLE = fileURLToPath(new URL('../../../dist/cli/hook.js', import.meta.url));
/** Electron keeps process.versions.electron when run as Node: a node that reports one stands in for it. */
const AS_ELECTRON = ['--import', 'data:text/javascript,Object.defineProperty(process.versions,"electron",{value:"37.2.0",enumerable:true})'];

function probe(overrides: Partial<RuntimeProbe> = {}): RuntimeProbe {
  return {
    execPath: '/opt/vscode/code',
    nodeVersion: '22.20.0',
    isElectron: true,
    setting: '',
    versionOf: async () => undefined,
    findNodeOnPath: async () => undefined,
    ...overrides,
  };
}

describe('extension: server runtime choice', () => {
  it('knows which Node has node:sqlite', () => {
    assert.equal(nodeVersionRunsServer('22.12.0'), false);
    // node:sqlite came in 22.13, but the bundled undici 8 fails to load before 22.19.
    assert.equal(nodeVersionRunsServer('22.18.0'), false);
    assert.equal(nodeVersionRunsServer('22.19.0'), true);
    assert.equal(nodeVersionRunsServer('v24.1.0'), true);
    assert.equal(nodeVersionRunsServer('20.18.0'), false);
  });

  it('a host whose Node version is new enough but lacks node:sqlite falls back, and the message says so', async () => {
    const choice = await chooseServerRuntime(probe({ nodeVersion: '22.20.0', hostHasSqlite: false, findNodeOnPath: async () => undefined }));
    assert.equal(choice.ok, false);
    assert.match((choice as { message: string }).message, /Node 22\.20\.0 built without node:sqlite\. There is no node on PATH\. Install Node\.js 22\.19\+/);
    const fallback = await chooseServerRuntime(probe({ nodeVersion: '22.20.0', hostHasSqlite: false, findNodeOnPath: async () => '/usr/bin/node', versionOf: async () => '24.2.0' }));
    assert.equal(fallback.ok && fallback.runtime.source, 'path');
  });
  it("prefers VS Code's own runtime with ELECTRON_RUN_AS_NODE", async () => {
    const choice = await chooseServerRuntime(probe());
    assert.ok(choice.ok);
    assert.deepEqual(choice.runtime, { command: '/opt/vscode/code', env: { ELECTRON_RUN_AS_NODE: '1' }, nodeVersion: '22.20.0', source: 'vscode' });
  });
  it('falls back to node on PATH when the host is too old', async () => {
    const choice = await chooseServerRuntime(probe({ nodeVersion: '20.18.1', findNodeOnPath: async () => '/usr/bin/node', versionOf: async () => '24.2.0' }));
    assert.ok(choice.ok);
    assert.equal(choice.runtime.source, 'path');
    assert.deepEqual(choice.runtime.env, {});
  });
  it('says exactly what to install when nothing fits', async () => {
    const choice = await chooseServerRuntime(probe({ nodeVersion: '20.18.1', findNodeOnPath: async () => '/usr/bin/node', versionOf: async () => '20.1.0' }));
    assert.equal(choice.ok, false);
    if (choice.ok) return;
    assert.match(choice.message, /Node\.js 22\.19 or later.*VS Code runs Node 20\.18\.1.*\/usr\/bin\/node\) is Node 20\.1\.0.*leasehold\.serverRuntime/);
  });
  it('the setting wins, and a bad one is named', async () => {
    const good = await chooseServerRuntime(probe({ setting: '/opt/node24/bin/node', versionOf: async () => '24.0.0' }));
    assert.ok(good.ok && good.runtime.source === 'setting');
    const bad = await chooseServerRuntime(probe({ setting: '/opt/node18/bin/node', versionOf: async () => '18.0.0' }));
    assert.ok(!bad.ok && /serverRuntime names \/opt\/node18\/bin\/node, which is Node 18\.0\.0/.test(bad.message));
  });

  describe('running the CLI (Install Claude Code Hooks)', function () {
    this.timeout(30_000);
    let scratch: string;
    beforeEach(function () {
      if (!existsSync(HOOK_BUNDLE) || !existsSync(CLI_BUNDLE)) this.skip(); // dist/cli: node scripts/build.mjs
      scratch = mkdtempSync(join(tmpdir(), 'leasehold-ext-cli-'));
    });
    afterEach(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    /** What "Install Claude Code Hooks" (local scope) runs, as the extension builds it; returns one installed command. */
    function installWith(runtime: { command: string; env: Record<string, string> }, nodeArgs: string[]): string {
      const project = join(scratch, 'project');
      const cli = cliInvocation(runtime, CLI_BUNDLE, ['hooks', 'install', '--scope', 'local', '--project-dir', project, '--json'], { PATH: process.env.PATH, HOME: scratch }, join(scratch, 'run'));
      const run = spawnSync(cli.command, [...nodeArgs, ...cli.args], { env: cli.env, encoding: 'utf8', timeout: 20_000 });
      assert.equal(run.status, 0, run.stderr);
      const settings = JSON.parse(readFileSync(join(project, '.claude', 'settings.local.json'), 'utf8'));
      return settings.hooks.UserPromptSubmit[0].hooks[0].command as string;
    }

    /** Runs an installed command as Claude Code does: sh, no ELECTRON_RUN_AS_NODE in its env. */
    function runInstalled(command: string) {
      return spawnSync('/bin/sh', ['-c', command], {
        env: { HOME: scratch, LEASEHOLD_RUNTIME_DIR: join(scratch, 'run') },
        input: JSON.stringify({ session_id: 's1', hook_event_name: 'UserPromptSubmit', prompt: 'hi' }),
        encoding: 'utf8',
        timeout: 20_000,
      });
    }

    it("on VS Code's Electron runtime: the CLI runs as Node and writes hook commands that set ELECTRON_RUN_AS_NODE=1", async () => {
      const choice = await chooseServerRuntime(probe({ execPath: process.execPath, nodeVersion: process.versions.node, isElectron: true }));
      assert.ok(choice.ok && choice.runtime.source === 'vscode');
      assert.equal(cliInvocation(choice.runtime, CLI_BUNDLE, [], {}, '/run').env.ELECTRON_RUN_AS_NODE, '1');
      const command = installWith(choice.runtime, AS_ELECTRON);
      assert.ok(command.startsWith(`ELECTRON_RUN_AS_NODE=1 "${process.execPath}" "${HOOK_BUNDLE}" hook UserPromptSubmit`), command);
      const hook = runInstalled(command);
      assert.equal(hook.status, 0, hook.stderr);
      assert.equal(hook.stdout, '');
    });

    it('on a real node (the fallback runtime): no ELECTRON_RUN_AS_NODE anywhere', async () => {
      const choice = await chooseServerRuntime(probe({ nodeVersion: '20.18.1', findNodeOnPath: async () => process.execPath, versionOf: async () => process.versions.node }));
      assert.ok(choice.ok && choice.runtime.source === 'path');
      const command = installWith(choice.runtime, []);
      assert.ok(command.startsWith(`"${process.execPath}" "${HOOK_BUNDLE}" hook UserPromptSubmit`), command);
      assert.equal(runInstalled(command).status, 0);
    });
  });
});
