import assert from 'node:assert/strict';
import { endpointRefOf, leaseIdOf, scopeArgOf, ttlArgOf } from '../../../src/extension/model/commandArgs.ts';
import { hooksSummaryText } from '../../../src/extension/model/hooksSummary.ts';
import { durationToSecond, ledgerMarkdown } from '../../../src/extension/model/ledger.ts';
import { serverStatusView } from '../../../src/extension/model/serverStatus.ts';
import { STALE_TERMINAL_ENV, resolveSettings, serverLaunchFrom, terminalEnvFrom, windowHookSettingsFrom } from '../../../src/extension/model/settings.ts';
import { SseParser } from '../../../src/client/eventStream.ts';
import { paneNameFor, processStartTime, windowSessionOf } from '../../../src/extension/terminals/processStart.ts';

describe('extension: command arguments', () => {
  it('reads endpoint refs, lease ids, TTLs and scopes from tree nodes, links and plain objects', () => {
    assert.equal(endpointRefOf({ kind: 'endpoint', endpoint: { id: 'ep_1', slug: 'x' } }), 'ep_1');
    assert.equal(endpointRefOf({ endpoint: 'reviewer' }), 'reviewer');
    assert.equal(endpointRefOf('reviewer'), 'reviewer');
    assert.equal(endpointRefOf(undefined), undefined);
    assert.equal(leaseIdOf({ kind: 'lease', leaseId: 'wl_1' }), 'wl_1');
    assert.equal(ttlArgOf({ ttl: null }), 'default');
    assert.equal(ttlArgOf({ ttl: 900 }), '900');
    assert.equal(ttlArgOf({}), undefined);
    assert.equal(scopeArgOf({ scope: 'local' }), 'local');
    assert.equal(scopeArgOf({ scope: 'global' }), undefined);
  });
});

describe('extension: settings', () => {
  it('turn into serve args and env (database URL by env only) and terminal env without a token', () => {
    const settings = resolveSettings((key) => ({ dataDir: '/d', databaseUrl: 'postgres://x', hardMaxTtl: '2h', 'hookTtl.shell': '45m' })[key]);
    assert.deepEqual(serverLaunchFrom(settings), { args: ['--data-dir', '/d'], env: { LEASEHOLD_DATABASE_URL: 'postgres://x', LEASEHOLD_HARD_MAX_TTL_MS: '7200000' } });
    // A terminal's env is fixed when it opens: it carries only where the server is and which
    // window; the TTLs go in the window's hook settings file, which open terminals read too.
    assert.deepEqual(terminalEnvFrom('/run/leasehold', 'session-1'), { LEASEHOLD_RUNTIME_DIR: '/run/leasehold', LEASEHOLD_VSCODE_WINDOW: 'session-1' });
    assert.deepEqual(windowHookSettingsFrom(settings), { ttl: { shell: '2700s', subagent: '3600s', monitor: '3600s', workflow: '3600s' } });
    assert.deepEqual(STALE_TERMINAL_ENV, ['LEASEHOLD_HOOK_TTL_SHELL', 'LEASEHOLD_HOOK_TTL_SUBAGENT', 'LEASEHOLD_HOOK_TTL_MONITOR', 'LEASEHOLD_HOOK_TTL_WORKFLOW']);
  });
  it('the team-mode identity reaches serve by env; one the rule refuses is dropped with a problem naming the setting', () => {
    assert.equal(serverLaunchFrom(resolveSettings((key) => ({ identity: ' alice ' })[key])).env.LEASEHOLD_IDENTITY, 'alice');
    const refused = resolveSettings((key) => ({ identity: 'has space' })[key]);
    assert.equal(refused.identity, '');
    assert.equal(serverLaunchFrom(refused).env.LEASEHOLD_IDENTITY, undefined);
    assert.match(refused.problems[0] ?? '', /^leasehold\.identity: must be 1-100 characters/);
  });
  it('a bad duration falls back with a problem named', () => {
    const settings = resolveSettings((key) => ({ hardMaxTtl: 'forever' })[key]);
    assert.equal(settings.hardMaxTtlMs, undefined);
    assert.match(settings.problems[0], /leasehold\.hardMaxTtl/);
  });
  it('per-job-type hard max TTLs reach serve by env; looser than the global cap, unknown types and bad durations are dropped with a problem', () => {
    const settings = resolveSettings(
      (key) => ({ hardMaxTtl: '2h', hardMaxTtlByJobType: { test: '30m', build: '3h', lint: '5m', shell: 'soon' } })[key],
    );
    assert.deepEqual(settings.hardMaxTtlMsByJobType, { test: 30 * 60_000 });
    assert.equal(serverLaunchFrom(settings).env.LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE, 'test=1800000ms');
    assert.equal(settings.problems.length, 3);
    assert.match(settings.problems.join('\n'), /build: longer than the global hard max TTL/);
  });
});

describe('extension: server status', () => {
  it('every failure says what to do', () => {
    const failed = serverStatusView({ kind: 'failed', message: 'crashed 5 times', action: 'openLog' });
    assert.equal(failed.command, 'leasehold.restartServer');
    assert.equal(failed.contextKey, 'down');
    assert.equal(serverStatusView({ kind: 'failed', message: 'no node', action: 'configureRuntime' }).command, 'leasehold.openRuntimeSetting');
    assert.match(serverStatusView({ kind: 'restarting', attempt: 2, delayMs: 2000, lastError: 'exit 1' }).tooltip, /attempt 2 in 2 s/);
  });
});

describe('extension: SSE parser', () => {
  it('parses events split across chunks, skips comments', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push('retry: 1000\n: connected\n\nid: 1\nevent: pane.chan'), []);
    assert.deepEqual(parser.push('ged\ndata: {"pane":"p"}\n\n'), [{ event: 'pane.changed', data: '{"pane":"p"}', id: '1' }]);
    assert.deepEqual(parser.push('event: lease.changed\r\ndata: a\r\ndata: b\r\n\r\n'), [{ event: 'lease.changed', data: 'a\nb', id: '1' }]);
  });
});

describe('extension: terminals', () => {
  it('pane names are stable per window session and counter', () => {
    assert.equal(paneNameFor('1f3a9c2e-77aa-4e1b-9c3d-aaaaaaaaaaaa1699999999999', 3), 'vscode-1f3a9c2e-3');
  });
  it("does not name panes after code-server's placeholder session id (the same in every window)", () => {
    const random = () => '5d0c7e21-0000-4000-8000-000000000000';
    assert.equal(windowSessionOf('someValue.sessionId', random), random());
    assert.equal(windowSessionOf('', random), random());
    assert.equal(windowSessionOf('1f3a9c2e-77aa-4e1b-9c3d-aaaaaaaaaaaa1699999999999', random), '1f3a9c2e-77aa-4e1b-9c3d-aaaaaaaaaaaa1699999999999');
    assert.equal(paneNameFor(windowSessionOf('someValue.sessionId', random), 1), 'vscode-5d0c7e21-1');
  });
  it("reads a shell's start time as the hook does", () => {
    assert.equal(processStartTime(42, () => ({ pid: 42, ppid: 1, startTime: '98765', state: 'S', comm: 'bash' })), '98765');
    assert.equal(processStartTime(42, () => null), undefined);
    assert.match(processStartTime(process.pid) ?? '', /\S/);
  });
});

describe('extension: hooks summary and ledger', () => {
  it('summarises what install and uninstall changed', () => {
    assert.equal(
      hooksSummaryText('install', 'user', { file: '/h/.claude/settings.json', changed: true, created: false, added: ['Stop', 'SessionStart'], updated: [], unchanged: ['PostToolUse'], backup: '/h/.claude/settings.json.bak' }).text,
      'Installed Claude Code hooks (user scope) in /h/.claude/settings.json: added Stop, SessionStart; unchanged PostToolUse. Backup: /h/.claude/settings.json.bak.',
    );
    assert.match(hooksSummaryText('uninstall', 'local', { file: 'f', changed: false, deleted: false, removed: [] }).text, /nothing changed/);
    assert.match(hooksSummaryText('install', 'user', 'weird').text, /weird/);
  });
  it('renders the ledger as a table: pane names, descriptions, local times, durations to the second', () => {
    const granted = new Date(2026, 11, 2, 14, 5, 9).getTime();
    const md = ledgerMarkdown(
      [{ lease_id: 'wl_1', pane: 'vscode-ab-1', job_ref: 'j|1', job_type: 'shell', kind: 'declared', declared_ttl_ms: 1_800_000, granted_at: granted, ended_at: granted + 252_000, end_reason: 'released', release_note: null, censoring: 'exact', measured_duration_ms: 252_000 }],
      granted,
      { paneLabel: (pane) => (pane === 'vscode-ab-1' ? 'bash · api' : undefined), description: (id) => (id === 'wl_1' ? 'npm test' : undefined) },
    );
    assert.match(md, /\| 2026-12-02 14:05:09 \| bash · api \(`vscode-ab-1`\) \| `j\\\|1` \| npm test \| shell \| declared \| 30m \| 2026-12-02 14:09:21 \| released \| exact \| 4m 12s \|/);
    assert.match(ledgerMarkdown([], 0), /No wait-leases yet/);
    assert.equal(durationToSecond(42_000), '42s');
    assert.equal(durationToSecond(3_723_000), '1h 2m 3s');
    assert.equal(durationToSecond(0), '0s');
  });
});
