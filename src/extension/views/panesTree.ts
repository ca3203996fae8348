// The Panes view: each terminal pane with its reading (icon), a label that tells terminals
// apart, its lease lines, grouped by window (this window first). Selecting a pane shows its
// terminal.
import * as vscode from 'vscode';
import type { PaneLeaseLine } from '../model/paneStatus.ts';
import type { PaneRow } from '../model/paneRows.ts';
import { leaseItem, paneItem, windowItem } from '../model/treeModels.ts';
import { toTreeItem } from './treeItem.ts';

export type PanesNode =
  | { kind: 'hooks' }
  | { kind: 'window'; windowId: string; rows: PaneRow[] }
  | { kind: 'pane'; row: PaneRow }
  | { kind: 'lease'; pane: string; line: PaneLeaseLine; leaseId: string };

export const FOCUS_PANE_COMMAND = 'leasehold.focusPane';

export interface PanesSource {
  rows(): PaneRow[];
  /** Leasehold's Claude Code hooks are installed in no settings scope. */
  hooksMissing(): boolean;
}

export class PanesTree implements vscode.TreeDataProvider<PanesNode> {
  private readonly changed = new vscode.EventEmitter<PanesNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly source: PanesSource;

  constructor(source: PanesSource) {
    this.source = source;
  }

  refresh(): void {
    this.changed.fire(undefined);
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
      const local = rows.filter((row) => row.local);
      const others = new Map<string, PaneRow[]>();
      for (const row of rows.filter((row) => !row.local)) {
        const key = row.windowId ?? '';
        others.set(key, [...(others.get(key) ?? []), row]);
      }
      const hooks: PanesNode[] = this.source.hooksMissing() && rows.length > 0 ? [{ kind: 'hooks' }] : [];
      return [...hooks, ...local.map((row) => ({ kind: 'pane' as const, row })), ...[...others].map(([windowId, group]) => ({ kind: 'window' as const, windowId, rows: group }))];
    }
    if (node.kind === 'window') return node.rows.map((row) => ({ kind: 'pane', row }));
    if (node.kind === 'pane') return node.row.status.leases.map((line) => ({ kind: 'lease', pane: node.row.pane, line, leaseId: line.leaseId }));
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
