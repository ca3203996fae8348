// In-extension-host figures for the e2e run's bench section: the extension's own activation
// time (what activate() measured and exports) and how long until the lease server answered.
// Writes them as JSON to LEASEHOLD_E2E_FIGURES_FILE when set (test/e2e/extension.e2e.ts reads it).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { LeaseholdExtensionApi } from '../../src/extension/extension.ts';

describe('Leasehold extension figures (in the extension host)', function () {
  this.timeout(60_000);

  it('reports the activation time and the time until the server is running', async () => {
    const extension = vscode.extensions.getExtension<LeaseholdExtensionApi>('leasehold.leasehold');
    assert.ok(extension, 'leasehold.leasehold is installed');
    const started = performance.now();
    const api = extension.isActive ? extension.exports : await extension.activate();
    await api.whenServer((state) => state.kind === 'running', 45_000);
    const figures = {
      activationMs: api.activationMs,
      serverRunningAfterTestStartMs: Math.round(performance.now() - started),
      serverUrl: api.serverUrl(),
    };
    assert.equal(typeof figures.activationMs, 'number');
    const file = process.env.LEASEHOLD_E2E_FIGURES_FILE;
    if (file) fs.writeFileSync(file, JSON.stringify(figures, null, 2));
  });
});
