// The order todos are listed in, stated once for the server's lists and the Todos view.
import type { TodoView } from './wire/claims.ts';

/**
 * Held todos, then queued ones (each oldest first), then done ones, newest first: a list cut at
 * its limit never hides live work behind older finished todos. (Lists read oldest first showed,
 * past 500 todos, none added since.)
 */
export const TODO_LIST_ORDER: ReadonlyArray<{ state: TodoView['state']; newestFirst: boolean }> = [
  { state: 'claimed', newestFirst: false },
  { state: 'queued', newestFirst: false },
  { state: 'done', newestFirst: true },
];

/** A state's place in TODO_LIST_ORDER (0 first). */
function todoStateRank(state: TodoView['state']): number {
  return TODO_LIST_ORDER.findIndex((part) => part.state === state);
}

/**
 * Two todos in TODO_LIST_ORDER, for a list already read: by created_at where the server goes
 * by insertion (seq), which a view does not see; a tie (the same millisecond) goes by id, so
 * the order never depends on the order the todos were read in.
 */
export function compareInListOrder(a: Pick<TodoView, 'state' | 'created_at' | 'id'>, b: Pick<TodoView, 'state' | 'created_at' | 'id'>): number {
  const rank = todoStateRank(a.state) - todoStateRank(b.state);
  if (rank !== 0) return rank;
  const oldestFirst = a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return TODO_LIST_ORDER[todoStateRank(a.state)]!.newestFirst ? -oldestFirst : oldestFirst;
}
