// The Endpoints view: each endpoint with its effective lease and whose, and its live claims.
import * as vscode from 'vscode';
import type { EndpointView } from '../../core/wire/claims.ts';
import type { LeaseholdClient } from '../../client/client.ts';
import { claimItem, endpointItem } from '../model/treeModels.ts';
import { toTreeItem } from './treeItem.ts';

export type EndpointsNode =
  | { kind: 'endpoint'; endpoint: EndpointView }
  | { kind: 'claim'; endpointId: string; claimId: string; item: vscode.TreeItem }
  | { kind: 'message'; id: string; text: string };

export class EndpointsTree implements vscode.TreeDataProvider<EndpointsNode> {
  private readonly changed = new vscode.EventEmitter<EndpointsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly source: { endpoints(): EndpointView[] | undefined; client(): LeaseholdClient | undefined };

  constructor(source: { endpoints(): EndpointView[] | undefined; client(): LeaseholdClient | undefined }) {
    this.source = source;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: EndpointsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'endpoint':
        return toTreeItem(endpointItem(node.endpoint));
      case 'claim':
        return node.item;
      case 'message': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.contextValue = 'message';
        return item;
      }
    }
  }

  async getChildren(node?: EndpointsNode): Promise<EndpointsNode[]> {
    if (!node) return (this.source.endpoints() ?? []).map((endpoint) => ({ kind: 'endpoint', endpoint }));
    if (node.kind !== 'endpoint') return [];
    const client = this.source.client();
    if (!client) return [];
    try {
      const claims = await client.endpointClaims(node.endpoint.id);
      if (claims.length === 0) return [{ kind: 'message', id: `noclaims:${node.endpoint.id}`, text: 'no live claims' }];
      return claims.map((claim) => ({ kind: 'claim', endpointId: node.endpoint.id, claimId: claim.id, item: toTreeItem(claimItem(node.endpoint.id, claim)) }));
    } catch (error) {
      return [{ kind: 'message', id: `claimserror:${node.endpoint.id}`, text: `could not read claims: ${(error as Error).message}` }];
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
