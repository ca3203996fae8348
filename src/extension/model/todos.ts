// What the Todos view shows: queues, their todos (state, holder, claim epoch, a live lease
// countdown on the local clock since the read) and each todo's claim events. Pure.
import { formatDurationSeconds } from '../../core/duration.ts';
import { compareInListOrder } from '../../core/todoList.ts';
import { formatRemaining } from '../../core/waitLease/annotation.ts';
import type { ClaimEventView, TodoView } from '../../core/wire/claims.ts';
import type { TreeItemModel } from './treeModels.ts';

export const TODO_CONTEXT = { queued: 'todo-queued', claimed: 'todo-claimed', done: 'todo-done' } as const;

export interface QueueGroup {
  queue: string;
  todos: TodoView[];
}

/** Queues by name; in each, the server's list order (claimed first: they have deadlines; done ones newest first). */
export function groupByQueue(todos: readonly TodoView[]): QueueGroup[] {
  const groups = new Map<string, TodoView[]>();
  for (const todo of todos) groups.set(todo.queue, [...(groups.get(todo.queue) ?? []), todo]);
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([queue, items]) => ({ queue, todos: items.sort(compareInListOrder) }));
}

export function queueItem(group: QueueGroup): TreeItemModel {
  const count = (state: TodoView['state']) => group.todos.filter((todo) => todo.state === state).length;
  const parts = [`${count('queued')} queued`, `${count('claimed')} claimed`, `${count('done')} done`];
  return {
    id: `queue:${group.queue}`,
    label: group.queue,
    description: parts.join(' · '),
    tooltip: `Queue ${group.queue}: ${parts.join(', ')}`,
    contextValue: 'queue',
    icon: 'list-unordered',
    collapsible: 'expanded',
  };
}

/** The lease left on a claimed todo, counted down locally since it was read. */
export function leaseLeftMs(todo: TodoView, elapsedSinceReadMs: number): number | null {
  if (todo.state !== 'claimed' || todo.lease_remaining_ms === null) return null;
  return Math.max(0, todo.lease_remaining_ms - elapsedSinceReadMs);
}

function holderText(todo: TodoView): string {
  if (todo.holder) return todo.holder.slug;
  return todo.held_by_other ? "another human's endpoint" : '';
}

export function todoItem(todo: TodoView, elapsedSinceReadMs: number): TreeItemModel {
  const left = leaseLeftMs(todo, elapsedSinceReadMs);
  const lease = left === null ? '' : left > 0 ? `${formatRemaining(left)} left` : 'lapsing (the reaper requeues it)';
  const description = todo.state === 'claimed' ? [holderText(todo), lease, `epoch ${todo.claim_epoch}`].filter(Boolean).join(' · ') : todo.state === 'queued' ? `queued${todo.attempts > 0 ? ` · ${todo.attempts} attempt${todo.attempts === 1 ? '' : 's'} · epoch ${todo.claim_epoch}` : ''}` : `done · epoch ${todo.claim_epoch}`;
  return {
    id: `todo:${todo.id}`,
    label: todo.title,
    description,
    tooltip: [
      `Todo ${todo.id} in queue ${todo.queue}: ${todo.state}`,
      todo.state === 'claimed' ? `Holder: ${holderText(todo) || 'unknown'}` : '',
      left !== null ? `Lease: ${lease}` : '',
      `Claim epoch (fencing token): ${todo.claim_epoch}`,
      `Attempts: ${todo.attempts}`,
    ]
      .filter(Boolean)
      .join('\n'),
    contextValue: TODO_CONTEXT[todo.state],
    icon: todo.state === 'claimed' ? 'lock' : todo.state === 'done' ? 'pass' : 'circle-large-outline',
    iconColor: todo.state === 'claimed' && left !== null && left < 60_000 ? 'list.warningForeground' : todo.state === 'done' ? 'charts.green' : undefined,
    collapsible: 'collapsed',
  };
}

const EVENT_ICON: Record<ClaimEventView['kind'], string> = { claimed: 'lock', heartbeat: 'pulse', released: 'unlock', completed: 'pass', reaped: 'history', revoked: 'circle-slash', requeued: 'debug-step-back' };

function localTime(ms: number): string {
  const at = new Date(ms);
  return [at.getHours(), at.getMinutes(), at.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

export function claimEventItem(todoId: string, index: number, event: ClaimEventView): TreeItemModel {
  const who = event.endpoint ? event.endpoint.slug : event.by_other ? "another human's endpoint" : '';
  const lease = event.lease_ttl_seconds !== null ? `lease ${formatDurationSeconds(event.lease_ttl_seconds)}${event.lease_source ? ` (${event.lease_source === 'per_call' ? 'per call' : event.lease_source === 'endpoint' ? "endpoint's default" : 'server default'})` : ''}` : '';
  return {
    id: `claim-event:${todoId}:${index}`,
    label: `${event.kind}${who ? ` by ${who}` : ''}`,
    description: [localTime(event.at), `epoch ${event.claim_epoch}`, lease].filter(Boolean).join(' · '),
    tooltip: `${event.kind} at ${new Date(event.at).toLocaleString()}, claim epoch ${event.claim_epoch}${lease ? `, ${lease}` : ''}`,
    contextValue: 'claim-event',
    icon: EVENT_ICON[event.kind],
    collapsible: 'none',
  };
}
