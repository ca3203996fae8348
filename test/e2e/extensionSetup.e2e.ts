// First run and an update, in real code-server workbenches: with Claude Code present (a
// ~/.claude folder in this run's HOME) and no hooks installed, the extension offers once to
// install them; the user accepts for this workspace. Then the extension is "updated": version
// 0.1.0's folder is gone and 0.1.1 is installed from another folder, as an update moves it.
// The installed hook commands named the old folder; activation repairs them, and the repaired
// command runs. Screenshots under test-artifacts/e2e/.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { artifactsDir, openWorkbench } from './harness/browser.ts';
import { repoRoot, startCodeServer } from './harness/codeServer.ts';

/** A copy of what the .vsix holds (package.json at `version`, dist/, bin/, media/), as an install unpacks it. */
function unpackedExtension(parent: string, version: string): string {
  const dir = path.join(parent, `leasehold-${version}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const part of ['dist', 'bin', 'media']) fs.cpSync(path.join(repoRoot, part), path.join(dir, part), { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  manifest.version = version;
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

function leaseholdCommands(settingsFile: string): string[] {
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as { hooks?: Record<string, { hooks: { command: string }[] }[]> };
  return Object.values(settings.hooks ?? {}).flatMap((groups) => groups.flatMap((group) => group.hooks.map((hook) => hook.command))).filter((command) => command.includes('# leasehold hook'));
}

describe('Leasehold extension: first-run hooks offer and hooks that survive an update (code-server)', function () {
  this.timeout(420_000);

  it('10. offers the hooks once; accepting installs them; the next version repairs the commands on activation', async () => {
    if (process.env.LEASEHOLD_E2E_SKIP_BUILD !== '1') execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot, stdio: 'inherit' });
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-e2e-setup-'));
    const home = path.join(root, 'home');
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    const workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    const runtimeDir = path.join(root, 'run');
    fs.mkdirSync(runtimeDir, { mode: 0o700 });
    const env = { HOME: home, LEASEHOLD_RUNTIME_DIR: runtimeDir, LEASEHOLD_DATA_DIR: path.join(root, 'data') };
    const settingsFile = path.join(workspace, '.claude', 'settings.local.json');
    try {
      // Version 0.1.0: the first run.
      const v1 = unpackedExtension(path.join(root, 'ext-a'), '0.1.0');
      let server = await startCodeServer({ extensions: [v1], workspace, env });
      let workbench = await openWorkbench(server, { timeoutMs: 90_000, loadTimeoutMs: 120_000 });
      try {
        const offer = await workbench.waitForNotification(/Leasehold's hooks are not/);
        assert.match(offer, /Claude Code is installed/);
        await workbench.screenshot('extension-10-first-run-hooks-offer');
        assert.ok(!fs.existsSync(settingsFile), 'nothing is written before the user accepts');
        await workbench.step('accept "Install for This Workspace"', async () => {
          const toast = workbench.page.locator('.notification-toast').filter({ hasText: /Leasehold's hooks are not/ }).first();
          await toast.hover();
          await toast.locator('.monaco-button', { hasText: 'Install for This Workspace' }).first().click();
        });
        await workbench.waitForNotification(/Installed Claude Code hooks \(local scope\)/);
        await workbench.screenshot('extension-10-hooks-installed');
      } finally {
        await workbench.close();
        server.collectLogs(path.join(artifactsDir(), 'extension-setup-v1-logs'));
        await server.stop();
      }
      const before = leaseholdCommands(settingsFile);
      assert.ok(before.length >= 5, `hook entries written: ${before.length}`);
      assert.ok(before.every((command) => command.includes('/dist/cli/hook.js')), before[0]);
      const oldFolder = /"([^"]*)\/dist\/cli\/hook\.js"/.exec(before[0]!)![1]!;

      // The update: the old folder is gone, 0.1.1 lives elsewhere. Every old command now fails.
      fs.rmSync(path.join(root, 'ext-a'), { recursive: true, force: true });
      const broken = spawnSync('sh', ['-c', before[0]!.replace(/ # leasehold hook$/, '')], { input: '{}', encoding: 'utf8', env: { ...process.env, ...env } });
      assert.notEqual(broken.status, 0, 'the old command no longer runs');
      const v2 = unpackedExtension(path.join(root, 'ext-b'), '0.1.1');
      server = await startCodeServer({ extensions: [v2], workspace, env });
      workbench = await openWorkbench(server, { timeoutMs: 90_000, loadTimeoutMs: 120_000 });
      try {
        const after = await workbench.step('activation repairs the hook commands', () =>
          workbench.waitFor('settings.local.json to name the new extension folder', async () => {
            const commands = leaseholdCommands(settingsFile);
            return commands.length === before.length && commands.every((command) => !command.includes(oldFolder)) ? commands : undefined;
          }, 60_000),
        );
        await workbench.screenshot('extension-10-after-update');
        // The repaired command runs: a SessionStart for a session nobody knows exits 0 (the hook
        // never fails Claude Code) and the hook log says it ran.
        const input = fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'claude-hooks', 'session-start.json'), 'utf8');
        const repaired = spawnSync('sh', ['-c', after.find((command) => command.includes(' SessionStart '))!], { input, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
        assert.equal(repaired.status, 0, `${repaired.stderr}`);
        assert.doesNotMatch(repaired.stderr, /Cannot find module|ENOENT/);
      } finally {
        await workbench.close();
        server.collectLogs(path.join(artifactsDir(), 'extension-setup-v2-logs'));
        await server.stop();
      }
    } finally {
      if (process.env.LEASEHOLD_E2E_KEEP !== '1') fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
