// In-extension-host suite: the extension's commands against a real lease server, run inside
// VS Code's extension host (code-server via test/e2e/harness/hostSuite.ts runHostSuite, or a
// desktop VS Code via test/e2e/host/runDesktop.ts). Commands are called with arguments, so no
// UI is needed; each returns its result or {error}.
//
// The host's env decides which server: set LEASEHOLD_RUNTIME_DIR (and LEASEHOLD_DATA_DIR) to
// a test folder; the extension adopts a server running there or spawns one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LeaseholdExtensionApi } from '../../src/extension/extension.ts';
import { runtimeFiles } from '../../src/runtime/paths.ts';

const EXTENSION_ID = 'leasehold.leasehold';

async function api(): Promise<LeaseholdExtensionApi> {
  const extension = vscode.extensions.getExtension<LeaseholdExtensionApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed`);
  return extension.isActive ? extension.exports : await extension.activate();
}

async function until<T>(description: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Result = Record<string, unknown> & { error?: { code: string; message: string } };
const run = (command: string, ...args: unknown[]) => vscode.commands.executeCommand<Result>(command, ...args);

describe('Leasehold extension (in the extension host)', function () {
  this.timeout(60_000);
  const slug = `eh-${Date.now().toString(36)}`;
  let leasehold: LeaseholdExtensionApi;

  before(async () => {
    leasehold = await api();
    await leasehold.whenServer((state) => state.kind === 'running', 45_000);
  });

  it('activates without blocking and finds or starts the lease server', () => {
    assert.ok(leasehold.activationMs < 500, `activation took ${leasehold.activationMs} ms`);
    assert.match(leasehold.serverUrl() ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('contributes every command', async () => {
    const all = await vscode.commands.getCommands(true);
    for (const id of ['vendEndpoint', 'editEndpointLeaseTtl', 'resetEndpointLeaseTtl', 'revokeEndpoint', 'copyMcpConfig', 'addTodo', 'installHooks', 'uninstallHooks', 'releaseWaitLease', 'showLedger', 'showLog', 'restartServer']) {
      assert.ok(all.includes(`leasehold.${id}`), `leasehold.${id} is registered`);
    }
  });

  it('vends an endpoint with a 15m default lease', async () => {
    const result = await run('leasehold.vendEndpoint', { slug, leaseTtl: '15m' });
    assert.equal(result.error, undefined, result.error?.message);
    const endpoint = result.endpoint as { slug: string; effective_lease_ttl_seconds: number; effective_lease_source: string };
    assert.equal(endpoint.slug, slug);
    assert.equal(endpoint.effective_lease_ttl_seconds, 900);
    assert.equal(endpoint.effective_lease_source, 'endpoint');
  });

  it('refuses a 59s lease TTL with the rule and leaves the endpoint unchanged', async () => {
    const result = await run('leasehold.editEndpointLeaseTtl', { endpoint: slug, ttl: '59s' });
    assert.equal(result.error?.code, 'invalid_ttl');
    assert.match(result.error?.message ?? '', /between 1m \(60 s\) and 1d \(86400 s\)/);
  });

  it('edits the lease TTL to 1h, then resets it to the server default', async () => {
    const edited = await run('leasehold.editEndpointLeaseTtl', { endpoint: slug, ttl: '1h' });
    assert.equal(edited.effective_lease_ttl_seconds, 3600);
    const reset = await run('leasehold.resetEndpointLeaseTtl', { endpoint: slug });
    assert.equal(reset.effective_lease_source, 'server');
    assert.equal(reset.default_lease_ttl_seconds, null);
  });

  it('copies an MCP config with the token kept at vend', async () => {
    const result = await run('leasehold.copyMcpConfig', { endpoint: slug });
    assert.equal(result.error, undefined, result.error?.message);
    assert.match(String(result.copied), new RegExp(`leasehold-${slug}`));
    assert.match(String(result.copied), /Bearer /);
  });

  it('adds a todo', async () => {
    const todo = await run('leasehold.addTodo', { queue: 'eh-queue', title: 'from the extension host' });
    assert.equal(todo.queue, 'eh-queue');
  });

  it('registers an integrated terminal as a pane and closes it with the terminal', async () => {
    const terminal = vscode.window.createTerminal({ name: 'leasehold-eh' });
    terminal.show();
    const name = await until('pane name', () => leasehold.paneNameOf(terminal));
    assert.match(name, /^vscode-[a-z0-9]+-\d+$/);
    await until('the status item for the pane', async () => {
      await leasehold.refresh();
      return leasehold.paneStatusText();
    });
    // No Claude Code session in it: a plain shell, not an agent state.
    assert.equal(leasehold.paneStatusText(), 'shell');
    terminal.dispose();
  });

  it('revokes the endpoint (confirmation skipped by argument); copy then says the token is gone', async () => {
    const revoked = await run('leasehold.revokeEndpoint', { endpoint: slug, confirmed: true });
    assert.equal(revoked.state, 'revoked');
    const copy = await run('leasehold.copyMcpConfig', { endpoint: slug });
    assert.ok(copy.error);
  });

  it('installs the Claude Code hooks (local scope) with a command that runs on this runtime, and uninstalls them', async function () {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder) this.skip();
    const file = path.join(folder, '.claude', 'settings.local.json');
    const installed = await run('leasehold.installHooks', { scope: 'local' });
    assert.equal(installed.error, undefined, installed.error?.message);
    assert.match(String(installed.summary), /^Installed Claude Code hooks \(local scope\) in .*settings\.local\.json/);
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    const command: string = settings.hooks.PostToolUse[0].hooks[0].command;
    // On VS Code's own runtime under Electron (desktop) the command must run it as Node; a real
    // node (code-server, or the fallback runtime) needs no such variable.
    const onHostRuntime = command.includes(`"${process.execPath}" `);
    assert.equal(command.startsWith('ELECTRON_RUN_AS_NODE=1 '), onHostRuntime && process.versions.electron !== undefined, command);
    // As Claude Code runs it: sh, a foreground Bash that carries nothing; exits 0 at once, silent.
    const hook = spawnSync('/bin/sh', ['-c', command], {
      env: { HOME: process.env.HOME ?? '', LEASEHOLD_RUNTIME_DIR: leasehold.runtimeDir },
      input: JSON.stringify({ session_id: 'eh', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: '' } }),
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(hook.status, 0, `${command}: ${hook.stderr || hook.error?.message}`);
    assert.equal(hook.stdout, '');
    const removed = await run('leasehold.uninstallHooks', { scope: 'local' });
    assert.equal(removed.error, undefined, removed.error?.message);
    assert.match(String(removed.summary), /^Removed Leasehold hooks \(local scope\)/);
    assert.ok(!fs.existsSync(file) || !fs.readFileSync(file, 'utf8').includes('# leasehold hook'), 'no Leasehold entry left');
  });

  it("a changed leasehold.hookTtl.shell is rewritten into the window's hook settings file at once (0600; the hook's reading of it is test/unit/claude/hookSettings.test.ts)", async () => {
    const config = vscode.workspace.getConfiguration('leasehold');
    const file = runtimeFiles.windowHookSettings(leasehold.runtimeDir, leasehold.windowSession);
    const read = () => {
      try {
        return JSON.parse(fs.readFileSync(file, 'utf8')) as { ttl: Record<string, string> };
      } catch {
        return undefined;
      }
    };
    try {
      await config.update('hookTtl.shell', '7m', vscode.ConfigurationTarget.Global);
      const written = await until('the window file with shell 420s', () => (read()?.ttl.shell === '420s' ? read() : undefined));
      assert.equal(written.ttl.subagent, '3600s');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    } finally {
      await config.update('hookTtl.shell', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('the window file back at 1800s', () => read()?.ttl.shell === '1800s');
  });

  it('shows the lease ledger as a read-only markdown document', async () => {
    const result = await run('leasehold.showLedger');
    assert.equal(result.error, undefined, result.error?.message);
    // The ledger opens as a rendered Markdown preview (a webview, not a text editor): its source
    // is the read-only leasehold-ledger document the preview renders.
    const document = vscode.workspace.textDocuments.find((candidate) => candidate.uri.scheme === 'leasehold-ledger');
    assert.equal(document?.uri.scheme, 'leasehold-ledger');
    assert.match(document?.getText() ?? '', /Leasehold wait-lease ledger/);
  });
});
