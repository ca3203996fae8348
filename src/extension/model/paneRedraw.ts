// The Panes view's countdown: the rows it shows are re-drawn in place as time passes, their
// elements kept, so that an inline action clicked in that instant still reaches its row (a
// whole-tree redraw replaces every element, and the action's command gets no row). When what
// is shown no longer matches the rows read now, the tree is re-read whole instead.
import type { PaneLeaseLine } from './paneStatus.ts';
import type { PaneRow } from './paneRows.ts';

/**
 * What the view shows: pane rows by pane name, lease lines by lease id, this window's panes in
 * order (the view's top level), and each other window's group by window id (its panes' names).
 */
export interface ShownPanes {
  panes: ReadonlyMap<string, PaneRow>;
  leases: ReadonlyMap<string, { pane: string; line: PaneLeaseLine }>;
  local: readonly string[];
  windows: ReadonlyMap<string, readonly string[]>;
}

/** Each shown element's data, read now. */
export interface PanesRedraw {
  panes: Map<string, PaneRow>;
  lines: Map<string, PaneLeaseLine>;
  windows: Map<string, PaneRow[]>;
}

/** The group key of a row shown under another window ('' for panes outside VS Code); null for this window's. */
export function windowKey(row: PaneRow): string | null {
  return row.local ? null : (row.windowId ?? '');
}

const leaseIds = (row: PaneRow) => row.status.leases.map((line) => line.leaseId).join('\n');

/**
 * The shown elements' data from `rows`, or null when the view must be re-read whole: a pane
 * came or went at the top level or in a shown window, a shown pane or lease is gone, a pane
 * moved between groups, or a pane's leases are not the ones shown (its children are its
 * leases, and its row's id says whether it has any: treeModels.paneItemId).
 */
export function redrawShown(shown: ShownPanes, rows: readonly PaneRow[]): PanesRedraw | null {
  const byPane = new Map(rows.map((row) => [row.pane, row]));
  const redraw: PanesRedraw = { panes: new Map(), lines: new Map(), windows: new Map() };
  for (const [pane, was] of shown.panes) {
    const row = byPane.get(pane);
    if (!row || windowKey(row) !== windowKey(was) || leaseIds(row) !== leaseIds(was)) return null;
    redraw.panes.set(pane, row);
  }
  for (const [leaseId, { pane }] of shown.leases) {
    const line = byPane.get(pane)?.status.leases.find((candidate) => candidate.leaseId === leaseId);
    if (!line) return null;
    redraw.lines.set(leaseId, line);
  }
  const local = rows.filter((row) => windowKey(row) === null).map((row) => row.pane);
  if (local.join('\n') !== shown.local.join('\n')) return null;
  for (const [key, panes] of shown.windows) {
    const group = rows.filter((row) => windowKey(row) === key);
    if (group.map((row) => row.pane).join('\n') !== panes.join('\n')) return null;
    redraw.windows.set(key, group);
  }
  return redraw;
}
