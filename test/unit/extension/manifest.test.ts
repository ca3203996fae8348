// package.json `contributes` against the lists: every command in the palette under the
// "Leasehold" category, settings with descriptions, menus naming only contributed commands and
// the context values the tree models set, the welcome view's vend button, engines.vscode.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVsix } from '../../../scripts/packageVsix.ts';
import { TODO_CONTEXT } from '../../../src/extension/model/todos.ts';
import { ENDPOINT_CONTEXT } from '../../../src/extension/model/treeModels.ts';

const root = new URL('../../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const contributes = manifest.contributes;

interface MenuEntry {
  command: string;
  when?: string;
  group?: string;
}

const PALETTE_COMMANDS: Record<string, string> = {
  vendEndpoint: 'Vend Endpoint…',
  editEndpointLeaseTtl: 'Edit Endpoint Lease TTL…',
  resetEndpointLeaseTtl: 'Reset Endpoint Lease TTL to Server Default',
  revokeEndpoint: 'Revoke Endpoint',
  copyMcpConfig: 'Copy MCP Config',
  addTodo: 'Add Todo…',
  installHooks: 'Install Claude Code Hooks…',
  uninstallHooks: 'Uninstall Claude Code Hooks…',
  releaseWaitLease: 'Release Wait-Lease…',
  showLedger: 'Show Lease Ledger',
  showLog: 'Show Log',
  restartServer: 'Restart Server',
};

describe('extension: package.json contributes', () => {
  const commands = new Map<string, { title: string; category?: string }>(contributes.commands.map((command: { command: string }) => [command.command, command]));
  const hidden = new Set((contributes.menus.commandPalette ?? []).filter((entry: MenuEntry) => entry.when === 'false').map((entry: MenuEntry) => entry.command));

  it('every listed command is in the palette with the "Leasehold" category', () => {
    for (const [id, title] of Object.entries(PALETTE_COMMANDS)) {
      const command = commands.get(`leasehold.${id}`);
      assert.ok(command, `leasehold.${id} is contributed`);
      assert.equal(command.title, title);
      assert.ok(!hidden.has(`leasehold.${id}`), `leasehold.${id} is not hidden from the palette`);
    }
    for (const [id, command] of commands) assert.equal(command.category, 'Leasehold', `${id} has the Leasehold category`);
  });

  it('menus name contributed commands and the context values the tree models set', () => {
    const contextValues = new Set<string>([...Object.values(ENDPOINT_CONTEXT), ...Object.values(TODO_CONTEXT), 'lease-live', 'lease-ended', 'claim', 'queue']);
    for (const [menu, entries] of Object.entries(contributes.menus) as [string, MenuEntry[]][]) {
      for (const entry of entries) {
        assert.ok(commands.has(entry.command), `${menu}: ${entry.command} is contributed`);
        for (const [, value] of (entry.when ?? '').matchAll(/viewItem == ([\w-]+)/g)) assert.ok(contextValues.has(value!), `${menu}: viewItem ${value} is set by a tree model`);
      }
    }
    const endpointItem = (contributes.menus['view/item/context'] as MenuEntry[]).filter((entry) => entry.when?.includes('view == leasehold.endpoints'));
    for (const id of ['editEndpointLeaseTtl', 'resetEndpointLeaseTtl', 'copyMcpConfig', 'revokeEndpoint']) {
      assert.ok(endpointItem.some((entry) => entry.command === `leasehold.${id}` && entry.group?.startsWith('inline')), `${id} is an inline action`);
      assert.ok(endpointItem.some((entry) => entry.command === `leasehold.${id}` && !entry.group?.startsWith('inline')), `${id} is a context action`);
    }
    const titles = (contributes.menus['view/title'] as MenuEntry[]).filter((entry) => entry.when === 'view == leasehold.endpoints').map((entry) => entry.command);
    assert.ok(titles.includes('leasehold.vendEndpoint') && titles.includes('leasehold.refresh'));
  });

  it('an activity-bar container "Leasehold" with its three views, and a welcome view that vends', () => {
    assert.deepEqual(contributes.viewsContainers.activitybar.map((c: { title: string }) => c.title), ['Leasehold']);
    assert.ok(existsSync(fileURLToPath(new URL(contributes.viewsContainers.activitybar[0].icon, root))), 'the activity-bar icon is in media/');
    assert.deepEqual(contributes.views.leasehold.map((view: { id: string }) => view.id), ['leasehold.endpoints', 'leasehold.todos', 'leasehold.panes']);
    const panesWelcome = contributes.viewsWelcome.filter((welcome: { view: string }) => welcome.view === 'leasehold.panes') as { contents: string; when: string }[];
    assert.ok(panesWelcome.filter((welcome) => welcome.contents.includes('command:leasehold.installHooks')).every((welcome) => welcome.when.includes('leasehold.hooks != installed')), 'the install link is offered only while the hooks are missing');
    assert.ok(contributes.viewsWelcome.some((welcome: { view: string; contents: string }) => welcome.view === 'leasehold.endpoints' && welcome.contents.includes('(command:leasehold.vendEndpoint)')));
  });

  it('settings under leasehold.* each have a description', () => {
    const properties = contributes.configuration.properties as Record<string, { description?: string; markdownDescription?: string }>;
    for (const key of ['notifications', 'hardMaxTtl', 'hookTtl.shell', 'hookTtl.subagent', 'hookTtl.monitor', 'hookTtl.workflow', 'dataDir', 'databaseUrl', 'serverRuntime']) assert.ok(properties[`leasehold.${key}`], `leasehold.${key}`);
    for (const [key, property] of Object.entries(properties)) {
      assert.match(key, /^leasehold\./);
      assert.ok((property.markdownDescription ?? property.description ?? '').length > 20, `${key} has a description`);
    }
  });

  it('packaging: engines.vscode, the bundled entry point, activation on startup finished', () => {
    assert.match(manifest.engines.vscode, /^\^1\.\d+\.\d+$/);
    assert.equal(manifest.main, './dist/extension.cjs');
    assert.deepEqual(manifest.activationEvents, ['onStartupFinished']);
    assert.match(readFileSync(new URL('.vscodeignore', root), 'utf8'), /^!dist\/extension\.cjs$/m);
  });

  it('npm run package builds a .vsix of only what runs, although package.json lists files for npm pack', function () {
    this.timeout(120_000);
    // vsce refuses `files` together with .vscodeignore; scripts/packageVsix.ts stages a manifest without it.
    assert.ok(Array.isArray(manifest.files), 'package.json keeps `files` for npm pack');
    const vsix = packageVsix();
    try {
      assert.ok(vsix.files.includes('extension/dist/extension.cjs') || vsix.files.includes('dist/extension.cjs'), vsix.files.join(', '));
      assert.ok(!vsix.files.some((file) => /(^|\/)(src|node_modules|test)\//.test(file)), `only what runs: ${vsix.files.join(', ')}`);
      assert.ok(vsix.bytes > 0);
    } finally {
      rmSync(path.dirname(vsix.file), { recursive: true, force: true });
    }
  });
});
