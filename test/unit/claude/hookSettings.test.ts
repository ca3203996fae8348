import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_HOOK_SETTINGS, MAX_HOOK_TTL_MS } from '../../../src/claude/hookInput.ts';
import { loadHookSettings } from '../../../src/claude/hookSettings.ts';

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
});
