import assert from 'node:assert/strict';
import { parseScopeStatus, planHookSetup, type ScopeStatus } from '../../../src/extension/model/hookSetup.ts';

const status = (scope: ScopeStatus['scope'], parts: Partial<ScopeStatus> = {}): ScopeStatus => ({ scope, file: `/x/${scope}.json`, installed: [], missing: ['SessionStart'], outdated: [], ...parts });

describe('extension: hook setup on activation', () => {
  it('offers once when Claude Code is present and no scope has the hooks; never when absent or offered before', () => {
    const none = [status('user'), status('local')];
    assert.deepEqual(planHookSetup(none, { claudePresent: true, offeredBefore: false }), { state: 'missing', repair: [], offer: true });
    assert.equal(planHookSetup(none, { claudePresent: false, offeredBefore: false }).offer, false);
    assert.equal(planHookSetup(none, { claudePresent: true, offeredBefore: true }).offer, false);
  });

  it('installed anywhere: no offer, and the welcome stops offering them', () => {
    const plan = planHookSetup([status('user', { installed: ['SessionStart'], missing: [] }), status('local')], { claudePresent: true, offeredBefore: false });
    assert.deepEqual(plan, { state: 'installed', repair: [], offer: false });
  });

  it('entries an update left pointing at the old extension folder are repaired in their own scope only', () => {
    const plan = planHookSetup([status('user'), status('local', { outdated: ['SessionStart', 'Stop'], missing: [] })], { claudePresent: true, offeredBefore: false });
    assert.deepEqual(plan, { state: 'installed', repair: ['local'], offer: false });
  });

  it('reads `leasehold hooks status --json`', () => {
    assert.deepEqual(parseScopeStatus('user', JSON.stringify({ file: '/h/.claude/settings.json', exists: true, installed: ['Stop'], missing: [], outdated: ['SessionStart'] })), {
      scope: 'user', file: '/h/.claude/settings.json', installed: ['Stop'], missing: [], outdated: ['SessionStart'],
    });
    assert.equal(parseScopeStatus('user', 'not json'), undefined);
  });
});
