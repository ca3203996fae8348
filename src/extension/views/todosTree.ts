// The Todos view: queues, their todos with holder, claim epoch and a live lease countdown, and
// each todo's claim events when expanded. Re-read on todo.changed events (push); the countdown
// rows alone re-drawn on a local one-second tick while one is on screen. Re-drawing the whole
// tree each second replaced every row's element: an inline action clicked in that instant
// reached its command with no row (seen in the e2e run: Requeue asked which todo instead of
// confirming the one clicked).
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

function countsDown(todo: TodoView): boolean {
  return todo.state === 'claimed' && todo.lease_remaining_ms !== null;
}

export class TodosTree implements vscode.TreeDataProvider<TodosNode> {
  private readonly changed = new vscode.EventEmitter<TodosNode | TodosNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly source: TodosSource;
  /** The todo rows as last handed to the view, by queue: the countdown re-draws these very elements. */
  private readonly shown = new Map<string, Array<TodosNode & { kind: 'todo' }>>();

  constructor(source: TodosSource) {
    this.source = source;
  }

  refresh(): void {
    this.shown.clear();
    this.changed.fire(undefined);
  }

  /** Re-draws the rows that count down, and only them (none: nothing): their elements, and so the view's handles on them, stay. */
  redrawCountdowns(): void {
    const rows = [...this.shown.values()].flat().filter((node) => countsDown(node.todo));
    if (rows.length > 0) this.changed.fire(rows);
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
    if (node.kind === 'queue') {
      const rows = node.group.todos.map((todo) => ({ kind: 'todo' as const, todo }));
      this.shown.set(node.group.queue, rows);
      return rows;
    }
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
