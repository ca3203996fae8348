// The Todos view: queues, their todos with holder, claim epoch and a live lease countdown, and
// each todo's claim events when expanded. Re-read on todo.changed events (push), re-drawn on a
// local one-second tick only while a visible todo counts down.
import * as vscode from 'vscode';
import type { ClaimEventView, TodoView } from '../../core/wire/claims.ts';
import { claimEventItem, groupByQueue, queueItem, todoItem, type QueueGroup } from '../model/todos.ts';
import { toTreeItem } from './treeItem.ts';

export type TodosNode =
  | { kind: 'queue'; group: QueueGroup }
  | { kind: 'todo'; todo: TodoView }
  | { kind: 'event'; todoId: string; index: number; event: ClaimEventView }
  | { kind: 'message'; text: string };

export interface TodosSource {
  /** The todos as last read, and when (performance.now()). */
  todos(): { todos: TodoView[]; readAtMs: number } | undefined;
  events(todoId: string): Promise<ClaimEventView[]>;
}

export class TodosTree implements vscode.TreeDataProvider<TodosNode> {
  private readonly changed = new vscode.EventEmitter<TodosNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly source: TodosSource;

  constructor(source: TodosSource) {
    this.source = source;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Some claimed todo shows a countdown. */
  counting(): boolean {
    return (this.source.todos()?.todos ?? []).some((todo) => todo.state === 'claimed' && todo.lease_remaining_ms !== null);
  }

  getTreeItem(node: TodosNode): vscode.TreeItem {
    if (node.kind === 'queue') return toTreeItem(queueItem(node.group));
    if (node.kind === 'event') return toTreeItem(claimEventItem(node.todoId, node.index, node.event));
    if (node.kind === 'message') return new vscode.TreeItem(node.text);
    const read = this.source.todos();
    const item = toTreeItem(todoItem(node.todo, read ? performance.now() - read.readAtMs : 0));
    return item;
  }

  async getChildren(node?: TodosNode): Promise<TodosNode[]> {
    if (!node) return groupByQueue(this.source.todos()?.todos ?? []).map((group) => ({ kind: 'queue', group }));
    if (node.kind === 'queue') return node.group.todos.map((todo) => ({ kind: 'todo', todo }));
    if (node.kind === 'todo') {
      try {
        const events = await this.source.events(node.todo.id);
        if (events.length === 0) return [{ kind: 'message', text: 'No claim events yet' }];
        return events.map((event, index) => ({ kind: 'event', todoId: node.todo.id, index, event }));
      } catch (error) {
        return [{ kind: 'message', text: `Could not read its claim events: ${(error as Error).message}` }];
      }
    }
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
