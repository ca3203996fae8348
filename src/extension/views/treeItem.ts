import * as vscode from 'vscode';
import type { TreeItemModel } from '../model/treeModels.ts';

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export function toTreeItem(model: TreeItemModel): vscode.TreeItem {
  const item = new vscode.TreeItem(model.label, COLLAPSIBLE[model.collapsible]);
  item.id = model.id;
  item.description = model.description;
  item.tooltip = model.tooltip;
  item.contextValue = model.contextValue;
  item.iconPath = new vscode.ThemeIcon(model.icon, model.iconColor ? new vscode.ThemeColor(model.iconColor) : undefined);
  return item;
}
