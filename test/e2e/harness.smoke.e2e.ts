// Proves the e2e harness on a real code-server workbench with a fixture extension: status
// bar, palette command and notification, inline input validation, a tree view, a terminal
// that received an environmentVariableCollection variable, and an in-extension-host mocha
// suite run through the test-runner fixture. Run with scripts/e2e/run.sh.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { artifactsDir, openWorkbench } from './harness/browser.ts';
import type { Workbench } from './harness/browser.ts';
import { repoRoot, startCodeServer } from './harness/codeServer.ts';
import type { CodeServer } from './harness/codeServer.ts';
import { runHostSuite } from './harness/hostSuite.ts';

const smokeExtension = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'smoke-extension');
const statusItem = { id: 'leasehold-e2e.smoke.leaseholdE2e.status' };
const timings: Record<string, number> = {};

function recordDuration(this: Mocha.Context) {
  const test = this.currentTest;
  if (test?.duration !== undefined) timings[`test: ${test.fullTitle()}`] = test.duration;
}

describe('e2e harness smoke: code-server workbench in Chromium', function () {
  this.timeout(180_000);
  const marker = `marker-${process.pid}-${Date.now().toString(36)}`;
  let server: CodeServer;
  let workbench: Workbench;

  before(async () => {
    const started = Date.now();
    server = await startCodeServer({ extensions: [smokeExtension], env: { LEASEHOLD_E2E_MARKER: marker } });
    workbench = await openWorkbench(server);
    timings['code-server spawn to /healthz'] = server.startMs;
    timings['navigation to workbench rendered'] = workbench.loadMs;
    timings['code-server spawn to workbench rendered'] = Date.now() - started;
    await workbench.waitForStatusBarText(statusItem, 'e2e fixture ready');
    timings['code-server spawn to extension status bar item'] = Date.now() - started;
  });

  afterEach(recordDuration);

  after(async () => {
    await workbench?.close();
    if (server) {
      server.collectLogs(path.join(artifactsDir(), 'harness-smoke-logs'));
      await server.stop();
    }
  });

  it('shows the extension status bar item', async () => {
    const text = await workbench.waitForStatusBarText(statusItem);
    assert.match(text, /e2e fixture ready/);
    assert.match(await workbench.statusBarAriaLabel(statusItem), /Leasehold e2e fixture/);
    await workbench.screenshot('harness-smoke-status-bar');
  });

  it('runs a command from the palette and shows its notification', async () => {
    await workbench.runCommand('Leasehold E2E: Say Hello');
    assert.equal(await workbench.waitForNotification('Hello from the Leasehold e2e fixture'), 'Hello from the Leasehold e2e fixture');
    await workbench.waitForStatusBarText(statusItem, 'e2e hello said');
    await workbench.screenshot('harness-smoke-notification');
  });

  it('reads an input box inline validation message', async () => {
    await workbench.runCommand('Ask Duration');
    await workbench.waitForInputBox();
    assert.match(await workbench.typeIntoInputBox('59'), /at least 60s \(got 59s\)/);
    await workbench.screenshot('harness-smoke-input-refused');
    await workbench.typeIntoInputBox('90');
    await workbench.waitForInputValidation(/^$/);
    await workbench.submitInputBox();
    await workbench.waitForStatusBarText(statusItem, 'ttl 90');
  });

  it('finds tree items in a view container', async () => {
    await workbench.waitForTreeItem('alpha endpoint', { container: 'Leasehold E2E' });
    await workbench.waitForTreeItem('beta endpoint');
    assert.deepEqual(await workbench.treeLabels(), ['alpha endpoint', 'beta endpoint']);
    await workbench.screenshot('harness-smoke-tree');
  });

  it('opens a terminal that has the environmentVariableCollection variable', async () => {
    await workbench.openTerminal();
    await workbench.typeInTerminal('echo "seen:${LEASEHOLD_E2E_FROM_COLLECTION:-unset}"');
    await workbench.waitForTerminalText(`seen:collection:${marker}`);
    await workbench.screenshot('harness-smoke-terminal');
  });
});

describe('e2e harness smoke: in-extension-host mocha suite via the test-runner fixture', function () {
  this.timeout(300_000);
  afterEach(recordDuration);

  it('runs the suite in the extension host and reports each test', async () => {
    const marker = `host-${process.pid}`;
    const started = Date.now();
    const outcome = await runHostSuite({
      files: [path.join(repoRoot, 'test', 'e2e', 'fixtures', 'host-suite', 'smoke.host.ts')],
      extensions: [smokeExtension],
      env: { LEASEHOLD_E2E_MARKER: marker },
      outDir: path.join(artifactsDir(), 'host-suite-smoke'),
      duringRun: async (workbench) => {
        await workbench.waitForStatusBarText(statusItem);
        await workbench.screenshot('harness-smoke-host-suite');
      },
    });
    timings['host suite: start to result'] = Date.now() - started;
    assert.equal(outcome.status, 'passed', outcome.error?.message);
    assert.ok(outcome.result);
    assert.deepEqual(
      { passed: outcome.result.passed, failed: outcome.result.failed, pending: outcome.result.pending },
      { passed: 3, failed: 0, pending: 1 },
    );
    assert.deepEqual(
      outcome.result.tests.map((t) => `${t.state}: ${t.title}`),
      [
        'passed: runs inside a VS Code extension host',
        'passed: activates the fixture extension and sees the env the harness passed',
        'passed: runs a contributed command',
        'pending: is reported as pending',
      ],
    );
  });

  it('reports a failing host test as a failure with its message', async () => {
    const failing = path.join(artifactsDir(), 'host-suite-failing', 'failing.host.ts');
    fs.mkdirSync(path.dirname(failing), { recursive: true });
    fs.writeFileSync(
      failing,
      "import * as assert from 'node:assert/strict';\n" +
        "import * as vscode from 'vscode';\n" +
        "describe('failing', () => { it('fails on purpose', () => { assert.equal(vscode.env.appName, 'not the app name'); }); });\n",
    );
    const outcome = await runHostSuite({ files: [failing], outDir: path.join(artifactsDir(), 'host-suite-failing') });
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.result?.failed, 1);
    assert.match(outcome.error?.message ?? '', /1 of 1 host tests failed:\nfailing fails on purpose: Expected values to be strictly equal/);
  });
});

after(() => {
  const file = path.join(artifactsDir(), 'timings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(timings, null, 2));
  console.log(`\n  e2e timings (ms), also in ${path.relative(repoRoot, file)}:`);
  for (const [name, ms] of Object.entries(timings)) console.log(`    ${String(ms).padStart(7)}  ${name}`);
});
