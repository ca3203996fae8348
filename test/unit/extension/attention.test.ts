// The attention models: readings, labels that tell terminals apart, the status bar summary, and
// which notifications a pane's change raises (plain Node, no VS Code).
import assert from 'node:assert/strict';
import { AttentionTracker, DEFAULT_ATTENTION_KINDS, parseAttentionKinds, type AttentionInput } from '../../../src/extension/model/attention.ts';
import { paneLabels, saysSomething, summarizePanes } from '../../../src/extension/model/paneReading.ts';
import { paneRows, type PaneRow } from '../../../src/extension/model/paneRows.ts';
import type { PaneViewWire } from '../../../src/core/waitLease/wire.ts';
import { MIN, NO_NOTICES, READ_AT, leaseView, paneView } from './fixtures.ts';

function row(pane: Partial<PaneViewWire>, leases = [] as ReturnType<typeof leaseView>[], local: { name: string; agentExited?: boolean } | undefined = { name: 'bash' }): PaneRow {
  return paneRows([{ pane: paneView(leases, { source: 'vscode', sessions: ['s1'], ...pane }), readAt: READ_AT }], READ_AT, NO_NOTICES, () => (local ? { position: 1, ...local } : undefined))[0]!;
}

const input = (r: PaneRow): AttentionInput => ({ pane: r.pane, label: r.label, reading: r.reading, status: r.status });
const ALL = new Set(['blocked', 'stalled', 'expired', 'done'] as const);

describe('extension: pane readings and labels', () => {
  it('one reading per pane, strongest first: blocked, unknown, working, waiting, inferred, done, idle, shell', () => {
    assert.equal(row({ display_state: 'blocked' }, [leaseView()]).reading, 'blocked');
    assert.equal(row({ display_state: 'working' }, [leaseView({ state: 'unknown', valid: false })]).reading, 'unknown');
    assert.equal(row({ display_state: 'working' }, [leaseView()]).reading, 'working');
    assert.equal(row({ display_state: 'idle' }, [leaseView()]).reading, 'waiting');
    assert.equal(row({ display_state: 'idle' }, [leaseView({ kind: 'inferred' })]).reading, 'inferred');
    assert.equal(row({ display_state: 'done' }).reading, 'done');
    assert.equal(row({ display_state: 'idle' }).reading, 'idle');
  });

  it('a terminal with no Claude Code session reads as a plain shell, not "unknown" or a stale "idle"', () => {
    const fresh = row({ display_state: 'unknown', sessions: [] });
    assert.equal(fresh.reading, 'shell');
    assert.equal(fresh.status.text, 'shell');
    const exited = row({ display_state: 'idle' }, [], { name: 'bash', agentExited: true });
    assert.equal(exited.reading, 'shell', 'Claude Code exited: the pane is a shell again');
    assert.equal(exited.status.text, 'shell');
    assert.equal(row({ display_state: 'blocked', sessions: [] }).reading, 'shell', 'no agent, nothing blocked');
    assert.equal(row({ display_state: 'idle', sessions: [] }, [leaseView()]).reading, 'waiting', 'a `leasehold run` lease in a plain shell still waits');
  });

  it('two terminals named bash are told apart: by folder, else by their position', () => {
    assert.deepEqual(
      [...paneLabels([
        { pane: 'a', name: 'bash', cwd: '/work/api', position: 1 },
        { pane: 'b', name: 'bash', cwd: '/work/web/', position: 2 },
        { pane: 'c', name: '✳ Fix login', position: 3 },
      ])],
      [['a', 'bash · api'], ['b', 'bash · web'], ['c', '✳ Fix login']],
    );
    assert.deepEqual([...paneLabels([{ pane: 'a', name: 'bash', position: 1 }, { pane: 'b', name: 'bash', position: 2 }]).values()], ['bash · 1', 'bash · 2']);
    assert.deepEqual([...paneLabels([{ pane: 'a', name: 'bash', cwd: '/x', position: 1 }, { pane: 'b', name: 'bash', cwd: '/x', position: 3 }]).values()], ['bash · x · 1', 'bash · x · 3']);
    assert.deepEqual([...paneLabels([{ pane: 'cli-1', name: undefined }]).values()], ['cli-1'], 'no name: the pane name');
  });

  it('rows follow the terminal\'s current name, not the title it was registered with', () => {
    const r = paneRows([{ pane: paneView([], { title: '✳ Claude Code', source: 'vscode', sessions: [] }), readAt: READ_AT }], READ_AT, NO_NOTICES, () => ({ name: 'bash', position: 1 }))[0]!;
    assert.equal(r.label, 'bash');
  });

  it('the status bar summary counts what needs attention and names the strongest', () => {
    const summary = summarizePanes(['blocked', 'waiting', 'waiting', 'unknown', 'shell']);
    assert.equal(summary.text, '$(bell-dot) 1 blocked  $(question) 1 unknown  $(watch) 2 waiting');
    assert.equal(summary.strongest, 'blocked');
    assert.match(summary.tooltip, /5 panes/);
    assert.equal(summarizePanes(['shell', 'idle']).text, '$(terminal) 2 panes');
  });

  it('the active terminal\'s own line shows only when it has something to say', () => {
    const shell = row({ sessions: [] });
    assert.equal(saysSomething(shell.status, shell.reading), false);
    const waiting = row({}, [leaseView()]);
    assert.equal(saysSomething(waiting.status, waiting.reading), true);
    assert.equal(saysSomething(undefined, undefined), false);
  });
});

describe('extension: attention notifications', () => {
  it('blocked raises one notification per transition, never repeated while it stays blocked', () => {
    const tracker = new AttentionTracker(10_000);
    const blocked = row({ name: 'p1', display_state: 'blocked' });
    const notices = tracker.observe([input(blocked)], { nowMs: 0, enabled: ALL });
    assert.deepEqual(notices.map((n) => [n.kind, n.pane]), [['blocked', 'p1']]);
    assert.match(notices[0]!.message, /"bash" needs you/);
    assert.deepEqual(tracker.observe([input(blocked)], { nowMs: 1_000, enabled: ALL }), [], 'same state: nothing new');
    const working = row({ name: 'p1', display_state: 'working' });
    tracker.observe([input(working)], { nowMs: 20_000, enabled: ALL });
    assert.equal(tracker.observe([input(blocked)], { nowMs: 30_000, enabled: ALL }).length, 1, 'blocked again later: a new transition');
  });

  it('a pane that flaps is debounced', () => {
    const tracker = new AttentionTracker(10_000);
    const blocked = row({ name: 'p1', display_state: 'blocked' });
    const working = row({ name: 'p1', display_state: 'working' });
    assert.equal(tracker.observe([input(blocked)], { nowMs: 0, enabled: ALL }).length, 1);
    tracker.observe([input(working)], { nowMs: 2_000, enabled: ALL });
    assert.equal(tracker.observe([input(blocked)], { nowMs: 4_000, enabled: ALL }).length, 0);
  });

  it('no notification while that terminal is the focused one, and none later for the same state', () => {
    const tracker = new AttentionTracker();
    const blocked = row({ name: 'p1', display_state: 'blocked' });
    assert.deepEqual(tracker.observe([input(blocked)], { nowMs: 0, enabled: ALL, focusedPane: 'p1' }), []);
    assert.deepEqual(tracker.observe([input(blocked)], { nowMs: 60_000, enabled: ALL }), [], 'the user saw it');
  });

  it('a stalled lease is announced once per state, with the lease to release; an expired one once', () => {
    const tracker = new AttentionTracker();
    const degraded = row({ name: 'p1' }, [leaseView({ state: 'degraded', valid: false })]);
    const unknown = row({ name: 'p1' }, [leaseView({ state: 'unknown', valid: false })]);
    const [first] = tracker.observe([input(degraded)], { nowMs: 0, enabled: ALL });
    assert.equal(first!.kind, 'stalled');
    assert.equal(first!.leaseId, 'wl_1');
    assert.deepEqual(tracker.observe([input(degraded)], { nowMs: 60_000, enabled: ALL }), []);
    assert.equal(tracker.observe([input(unknown)], { nowMs: 120_000, enabled: ALL })[0]!.message, '"bash": the wait-lease on bslbv9989 is UNKNOWN (a possible stall).');
    const expired = row({ name: 'p2' }, [leaseView({ lease_id: 'wl_9', state: 'ended', valid: false, end_reason: 'expired', expired_by: 'ttl', remaining_ms: 0, ended_at: READ_AT.wallMs - 3 * MIN, ended_ago_ms: 3 * MIN, notice_pending: true })]);
    const [gone] = tracker.observe([input(expired)], { nowMs: 0, enabled: ALL });
    assert.equal(gone!.kind, 'expired');
    assert.match(gone!.message, /expired 3m ago/);
    assert.equal(gone!.leaseId, undefined, 'an ended lease has nothing to release');
    assert.deepEqual(tracker.observe([input(expired)], { nowMs: 1_000, enabled: ALL }), []);
  });

  it('the setting picks the kinds; done is off by default', () => {
    assert.deepEqual([...parseAttentionKinds(undefined)], [...DEFAULT_ATTENTION_KINDS]);
    assert.equal(parseAttentionKinds(undefined).has('done'), false);
    assert.deepEqual([...parseAttentionKinds(['done', 'bogus'])], ['done']);
    const tracker = new AttentionTracker();
    const done = row({ name: 'p1', display_state: 'done' });
    assert.deepEqual(tracker.observe([input(done)], { nowMs: 0, enabled: parseAttentionKinds(undefined) }), []);
    const other = new AttentionTracker();
    assert.equal(other.observe([input(done)], { nowMs: 0, enabled: parseAttentionKinds(['done']) })[0]!.kind, 'done');
  });
});
