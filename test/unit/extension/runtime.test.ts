import assert from 'node:assert/strict';
import { chooseServerRuntime, nodeVersionSupportsSqlite, type RuntimeProbe } from '../../../src/extension/server/runtime.ts';

function probe(overrides: Partial<RuntimeProbe> = {}): RuntimeProbe {
  return {
    execPath: '/opt/vscode/code',
    nodeVersion: '22.15.1',
    isElectron: true,
    setting: '',
    versionOf: async () => undefined,
    findNodeOnPath: async () => undefined,
    ...overrides,
  };
}

describe('extension: server runtime choice', () => {
  it('knows which Node has node:sqlite', () => {
    assert.equal(nodeVersionSupportsSqlite('22.12.0'), false);
    assert.equal(nodeVersionSupportsSqlite('22.13.0'), true);
    assert.equal(nodeVersionSupportsSqlite('v24.1.0'), true);
    assert.equal(nodeVersionSupportsSqlite('20.18.0'), false);
  });
  it("prefers VS Code's own runtime with ELECTRON_RUN_AS_NODE", async () => {
    const choice = await chooseServerRuntime(probe());
    assert.ok(choice.ok);
    assert.deepEqual(choice.runtime, { command: '/opt/vscode/code', env: { ELECTRON_RUN_AS_NODE: '1' }, nodeVersion: '22.15.1', source: 'vscode' });
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
    assert.match(choice.message, /Node\.js 22\.13 or later.*VS Code runs Node 20\.18\.1.*\/usr\/bin\/node\) is Node 20\.1\.0.*leasehold\.serverRuntime/);
  });
  it('the setting wins, and a bad one is named', async () => {
    const good = await chooseServerRuntime(probe({ setting: '/opt/node24/bin/node', versionOf: async () => '24.0.0' }));
    assert.ok(good.ok && good.runtime.source === 'setting');
    const bad = await chooseServerRuntime(probe({ setting: '/opt/node18/bin/node', versionOf: async () => '18.0.0' }));
    assert.ok(!bad.ok && /serverRuntime names \/opt\/node18\/bin\/node, which is Node 18\.0\.0/.test(bad.message));
  });
});
