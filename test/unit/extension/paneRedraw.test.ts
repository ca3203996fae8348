// The Panes view's countdown redraw (src/extension/model/paneRedraw.ts): the rows it shows
// follow the time in place while nothing else changed, and the view is re-read whole otherwise.
import assert from 'node:assert/strict';
import { redrawShown, type ShownPanes } from '../../../src/extension/model/paneRedraw.ts';
import { paneRows, type PaneRow } from '../../../src/extension/model/paneRows.ts';
import { MIN, NO_NOTICES, READ_AT, later, leaseView, paneView } from './fixtures.ts';

const LOCAL = 'vscode-abc-1';
const OTHER = 'vscode-xyz-1';

/** Rows as the extension reads them `elapsedMs` after READ_AT: LOCAL in this window, OTHER in window w2, each with the leases given. */
function rows(elapsedMs: number, leases: { local: string[]; other: string[] } = { local: ['wl_1'], other: ['wl_2'] }): PaneRow[] {
  const snapshot = (name: string, ids: string[], windowId: string) => ({
    pane: paneView(
      ids.map((id) => leaseView({ lease_id: id, pane: name, job_ref: `job-${id}` })),
      { name, window_id: windowId },
    ),
    readAt: READ_AT,
  });
  return paneRows([snapshot(LOCAL, leases.local, 'w1'), snapshot(OTHER, leases.other, 'w2')], later(elapsedMs), NO_NOTICES, (pane) => (pane === LOCAL ? { name: 'bash', position: 1 } : undefined));
}

/** What the view shows once it has drawn `shownRows` with every row unfolded. */
function shown(shownRows: PaneRow[]): ShownPanes {
  return {
    panes: new Map(shownRows.map((row) => [row.pane, row])),
    leases: new Map(shownRows.flatMap((row) => row.status.leases.map((line) => [line.leaseId, { pane: row.pane, line }] as const))),
    local: shownRows.filter((row) => row.local).map((row) => row.pane),
    windows: new Map([...new Set(shownRows.filter((row) => !row.local).map((row) => row.windowId ?? ''))].map((key) => [key, shownRows.filter((row) => !row.local && (row.windowId ?? '') === key).map((row) => row.pane)])),
  };
}

describe('extension: the Panes view redraws its countdowns in place', () => {
  it('time passing: every shown pane, lease line and window gets its text of now', () => {
    const before = rows(0);
    assert.equal(before.find((row) => row.pane === OTHER)?.local, false, 'the fixture has a pane of another window');
    const redraw = redrawShown(shown(before), rows(3 * MIN));
    assert.ok(redraw, 'nothing but time changed: no whole-tree re-read');
    assert.match(before[0]!.status.text, /12m left/);
    assert.match(redraw.panes.get(LOCAL)!.status.text, /9m left/);
    assert.match(redraw.lines.get('wl_1')!.remaining, /9m/);
    assert.match(redraw.lines.get('wl_2')!.remaining, /9m/);
    assert.deepEqual(redraw.windows.get('w2')!.map((row) => row.pane), [OTHER]);
  });

  it('a lease that came or went, a pane that came or went, or a pane that moved window: the view is re-read whole', () => {
    const view = shown(rows(0));
    assert.equal(redrawShown(view, rows(MIN, { local: ['wl_1', 'wl_3'], other: ['wl_2'] })), null, 'a new lease: its line is not shown');
    assert.equal(redrawShown(view, rows(MIN, { local: [], other: ['wl_2'] })), null, 'no lease left: the pane row takes another id');
    assert.equal(redrawShown(view, rows(MIN).filter((row) => row.pane !== OTHER)), null, 'a pane gone');
    const third = { ...rows(MIN)[0]!, pane: 'vscode-abc-2' };
    assert.equal(redrawShown(view, [...rows(MIN), third]), null, 'a new pane in this window');
    const moved = rows(MIN).map((row) => (row.pane === OTHER ? { ...row, windowId: 'w3' } : row));
    assert.equal(redrawShown(view, moved), null, 'a pane now shown under another window');
  });

  it('rows the view has not drawn (a folded window) do not force a re-read', () => {
    const before = rows(0);
    const foldedWindow: ShownPanes = { ...shown(before), panes: new Map([[LOCAL, before[0]!]]), leases: new Map([['wl_1', { pane: LOCAL, line: before[0]!.status.leases[0]! }]]), windows: new Map([['w2', [OTHER]]]) };
    const redraw = redrawShown(foldedWindow, rows(MIN, { local: ['wl_1'], other: ['wl_2', 'wl_4'] }));
    assert.ok(redraw, "a lease under a pane whose row is not drawn changes nothing drawn");
    assert.deepEqual([...redraw.panes.keys()], [LOCAL]);
  });
});
