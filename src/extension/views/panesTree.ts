// The Panes view: each terminal pane with its display state and wait-leases.
import * as vscode from 'vscode';
import type { PaneLeaseLine, PaneSnapshot, PaneStatus } from '../model/paneStatus.ts';
import { paneStatus } from '../model/paneStatus.ts';
import { leaseItem, paneItem } from '../model/treeModels.ts';
import type { NoticeTracker } from '../model/notices.ts';
import { localNow } from '../statusBar.ts';
import { toTreeItem } from './treeItem.ts';

export type PanesNode = { kind: 'pane'; status: PaneStatus } | { kind: 'lease'; pane: string; line: PaneLeaseLine; leaseId: string };

export interface PanesSource {
  panes(): PaneSnapshot[] | undefined;
  isLocal(pane: string): boolean;
  terminalTitle(pane: string): string | undefined;
  notices: NoticeTracker;
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
    if (node.kind === 'pane') {
      return toTreeItem(paneItem(node.status, { thisWindow: this.source.isLocal(node.status.pane), terminalTitle: this.source.terminalTitle(node.status.pane) }));
    }
    return toTreeItem(leaseItem(node.pane, node.line));
  }

  getChildren(node?: PanesNode): PanesNode[] {
    if (!node) {
      const now = localNow();
      const statuses = (this.source.panes() ?? []).map((snapshot) => paneStatus(snapshot, now, this.source.notices.state()));
      // This window's terminals first, then the rest by name.
      statuses.sort((a, b) => Number(this.source.isLocal(b.pane)) - Number(this.source.isLocal(a.pane)) || a.pane.localeCompare(b.pane));
      return statuses.map((status) => ({ kind: 'pane', status }));
    }
    if (node.kind === 'pane') return node.status.leases.map((line) => ({ kind: 'lease', pane: node.status.pane, line, leaseId: line.leaseId }));
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
