import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_HOOK_SETTINGS, MAX_HOOK_TTL_MS } from '../../../src/claude/hookInput.ts';
import { loadHookSettings } from '../../../src/claude/hookSettings.ts';
import { runtimeFiles, windowFileName } from '../../../src/runtime/paths.ts';

describe('hook settings (per-job-type TTLs)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'leasehold-hook-settings-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults when nothing is configured', () => {
    assert.deepEqual(loadHookSettings(dir, {}), { settings: DEFAULT_HOOK_SETTINGS, warnings: [] });
  });

  it('reads hook-settings.json, and the environment wins over it', () => {
    writeFileSync(join(dir, 'hook-settings.json'), JSON.stringify({ ttl: { shell: '45m', subagent: 120_000 }, stop_display_state: 'done' }));
    const { settings, warnings } = loadHookSettings(dir, { LEASEHOLD_HOOK_TTL_SHELL: '2h', LEASEHOLD_HOOK_TTL_MONITOR: '90s' });
    assert.deepEqual(warnings, []);
    assert.equal(settings.ttlMsByJobType.shell, 7_200_000);
    assert.equal(settings.ttlMsByJobType.subagent, 120_000);
    assert.equal(settings.ttlMsByJobType.monitor, 90_000);
    assert.equal(settings.ttlMsByJobType.workflow, DEFAULT_HOOK_SETTINGS.ttlMsByJobType.workflow);
    assert.equal(settings.stopDisplayState, 'done');
  });

  it('never unbounded: too long is cut to the cap, nonsense falls back to the default, each with a warning', () => {
    const { settings, warnings } = loadHookSettings(dir, { LEASEHOLD_HOOK_TTL_SHELL: '30d', LEASEHOLD_HOOK_TTL_SUBAGENT: 'forever', LEASEHOLD_HOOK_STOP_STATE: 'asleep' });
    assert.equal(settings.ttlMsByJobType.shell, MAX_HOOK_TTL_MS);
    assert.equal(settings.ttlMsByJobType.subagent, DEFAULT_HOOK_SETTINGS.ttlMsByJobType.subagent);
    assert.equal(settings.stopDisplayState, 'idle');
    assert.equal(warnings.length, 3);
  });

  it('ignores a settings file that is not JSON, with a warning', () => {
    writeFileSync(join(dir, 'hook-settings.json'), '{nope');
    const { settings, warnings } = loadHookSettings(dir, {});
    assert.deepEqual(settings, DEFAULT_HOOK_SETTINGS);
    assert.equal(warnings.length, 1);
  });

  it("the VS Code window's file (written from leasehold.hookTtl.*) overlays hook-settings.json; env still wins", () => {
    writeFileSync(join(dir, 'hook-settings.json'), JSON.stringify({ ttl: { shell: '45m', subagent: '2h' } }));
    const windowFile = runtimeFiles.windowHookSettings(dir, 'win-1');
    mkdirSync(join(dir, 'windows'));
    writeFileSync(windowFile, JSON.stringify({ ttl: { shell: '10m', monitor: '20m' } }));
    const inWindow = loadHookSettings(dir, { LEASEHOLD_VSCODE_WINDOW: 'win-1' }).settings.ttlMsByJobType;
    assert.deepEqual([inWindow.shell, inWindow.subagent, inWindow.monitor], [600_000, 7_200_000, 1_200_000]);
    // A changed setting rewrites the file: the next hook event of an open terminal sees it.
    writeFileSync(windowFile, JSON.stringify({ ttl: { shell: '5m' } }));
    assert.equal(loadHookSettings(dir, { LEASEHOLD_VSCODE_WINDOW: 'win-1' }).settings.ttlMsByJobType.shell, 300_000);
    assert.equal(loadHookSettings(dir, { LEASEHOLD_VSCODE_WINDOW: 'win-1', LEASEHOLD_HOOK_TTL_SHELL: '1h' }).settings.ttlMsByJobType.shell, 3_600_000);
    // Another window, or none, does not see it.
    assert.equal(loadHookSettings(dir, { LEASEHOLD_VSCODE_WINDOW: 'win-2' }).settings.ttlMsByJobType.shell, 2_700_000);
    assert.equal(loadHookSettings(dir, {}).settings.ttlMsByJobType.shell, 2_700_000);
  });

  it('a window id cannot name a file outside the windows folder', () => {
    assert.equal(windowFileName('../../etc/passwd'), '______etc_passwd');
    assert.equal(windowFileName(''), '_');
    assert.ok(runtimeFiles.windowHookSettings('/run/l', 'a/../../b').startsWith('/run/l/windows/'));
    assert.ok(windowFileName('x'.repeat(1000)).length <= 128);
  });
});
