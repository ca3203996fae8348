// The Panes view: each terminal pane with its reading (icon), a label that tells terminals
// apart, its lease lines, grouped by window (this window first). Selecting a pane shows its
// terminal. Re-read whole when panes change; while leases count down, the shown rows alone are
// re-drawn in place (model/paneRedraw.ts says why).
import * as vscode from 'vscode';
import { redrawShown, windowKey } from '../model/paneRedraw.ts';
import type { PaneLeaseLine } from '../model/paneStatus.ts';
import type { PaneRow } from '../model/paneRows.ts';
import { leaseItem, paneItem, paneItemId, windowItem } from '../model/treeModels.ts';
import { toTreeItem } from './treeItem.ts';

export type PanesNode =
  | { kind: 'hooks' }
  | { kind: 'window'; windowId: string; rows: PaneRow[] }
  | { kind: 'pane'; row: PaneRow }
  | { kind: 'lease'; pane: string; line: PaneLeaseLine; leaseId: string };

type WindowNode = Extract<PanesNode, { kind: 'window' }>;
type PaneNode = Extract<PanesNode, { kind: 'pane' }>;
type LeaseNode = Extract<PanesNode, { kind: 'lease' }>;

export const FOCUS_PANE_COMMAND = 'leasehold.focusPane';

export interface PanesSource {
  rows(): PaneRow[];
  /** Leasehold's Claude Code hooks are installed in no settings scope. */
  hooksMissing(): boolean;
}

export class PanesTree implements vscode.TreeDataProvider<PanesNode> {
  private readonly changed = new vscode.EventEmitter<PanesNode | PanesNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly source: PanesSource;
  /** The elements last handed to the view, by key: handed out again while their key stands, so the view's handles on them stay. */
  private readonly windows = new Map<string, WindowNode>();
  private readonly panes = new Map<string, PaneNode>();
  private readonly leases = new Map<string, LeaseNode>();
  /** This window's panes in the order last shown. */
  private local: string[] = [];

  constructor(source: PanesSource) {
    this.source = source;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Re-draws the shown rows with the rows read now, in place; the whole tree when what is shown no longer matches them. */
  redrawCountdowns(): void {
    const redraw = redrawShown(
      {
        panes: new Map([...this.panes].map(([pane, node]) => [pane, node.row])),
        leases: new Map([...this.leases].map(([leaseId, node]) => [leaseId, { pane: node.pane, line: node.line }])),
        local: this.local,
        windows: new Map([...this.windows].map(([key, node]) => [key, node.rows.map((row) => row.pane)])),
      },
      this.source.rows(),
    );
    if (!redraw) return this.refresh();
    for (const [key, node] of this.windows) node.rows = redraw.windows.get(key)!;
    for (const [pane, node] of this.panes) node.row = redraw.panes.get(pane)!;
    for (const [leaseId, node] of this.leases) node.line = redraw.lines.get(leaseId)!;
    // A changed element is re-drawn with its children, which are handed out as the same elements.
    const top = [...this.local.map((pane) => this.panes.get(pane)!), ...this.windows.values()];
    if (top.length > 0) this.changed.fire(top);
  }

  getTreeItem(node: PanesNode): vscode.TreeItem {
    if (node.kind === 'hooks') {
      const item = new vscode.TreeItem('Claude Code hooks: not installed');
      item.description = 'click to install';
      item.tooltip = "Without Leasehold's hooks, Claude Code's waits and prompts do not reach the panes. Installs into a Claude Code settings file you choose.";
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
      item.command = { command: 'leasehold.installHooks', title: 'Install Claude Code Hooks…' };
      item.contextValue = 'hooks-missing';
      return item;
    }
    if (node.kind === 'window') return toTreeItem(windowItem(node.windowId, node.rows));
    if (node.kind === 'pane') {
      const item = toTreeItem(paneItem(node.row));
      if (node.row.local) item.command = { command: FOCUS_PANE_COMMAND, title: 'Show Terminal', arguments: [{ pane: node.row.pane }] };
      return item;
    }
    return toTreeItem(leaseItem(node.pane, node.line));
  }

  getChildren(node?: PanesNode): PanesNode[] {
    if (!node) {
      const rows = this.source.rows();
      this.forget(rows);
      const local = rows.filter((row) => windowKey(row) === null);
      const others = new Map<string, PaneRow[]>();
      for (const row of rows) {
        const key = windowKey(row);
        if (key !== null) others.set(key, [...(others.get(key) ?? []), row]);
      }
      this.local = local.map((row) => row.pane);
      const hooks: PanesNode[] = this.source.hooksMissing() && rows.length > 0 ? [{ kind: 'hooks' }] : [];
      return [...hooks, ...local.map((row) => this.paneNode(row)), ...[...others].map(([windowId, group]) => this.windowNode(windowId, group))];
    }
    if (node.kind === 'window') return node.rows.map((row) => this.paneNode(row));
    if (node.kind === 'pane') return node.row.status.leases.map((line) => this.leaseNode(node.row.pane, line));
    return [];
  }

  /** Drops the elements of panes, windows and leases no longer in `rows`. */
  private forget(rows: readonly PaneRow[]): void {
    const panes = new Set(rows.map((row) => row.pane));
    const windows = new Set(rows.map(windowKey));
    const leases = new Set(rows.flatMap((row) => row.status.leases.map((line) => line.leaseId)));
    for (const pane of this.panes.keys()) if (!panes.has(pane)) this.panes.delete(pane);
    for (const key of this.windows.keys()) if (!windows.has(key)) this.windows.delete(key);
    for (const leaseId of this.leases.keys()) if (!leases.has(leaseId)) this.leases.delete(leaseId);
  }

  private windowNode(windowId: string, rows: PaneRow[]): WindowNode {
    const node = this.windows.get(windowId) ?? { kind: 'window', windowId, rows };
    node.rows = rows;
    this.windows.set(windowId, node);
    return node;
  }

  private paneNode(row: PaneRow): PaneNode {
    // A row whose id changes (paneItemId) is a new element.
    const shown = this.panes.get(row.pane);
    const node = shown && paneItemId(shown.row) === paneItemId(row) ? shown : { kind: 'pane' as const, row };
    node.row = row;
    this.panes.set(row.pane, node);
    return node;
  }

  private leaseNode(pane: string, line: PaneLeaseLine): LeaseNode {
    const shown = this.leases.get(line.leaseId);
    const node = shown && shown.pane === pane ? shown : { kind: 'lease' as const, pane, line, leaseId: line.leaseId };
    node.line = line;
    this.leases.set(line.leaseId, node);
    return node;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
