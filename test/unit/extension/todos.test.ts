import assert from 'node:assert/strict';
import type { ClaimEventView, TodoView } from '../../../src/core/wire/claims.ts';
import { claimEventItem, groupByQueue, leaseLeftMs, queueItem, todoItem } from '../../../src/extension/model/todos.ts';

function todo(overrides: Partial<TodoView> = {}): TodoView {
  return {
    id: 'td_1', queue: 'reviews', title: 'Review PR 12', payload: null, state: 'claimed', attempts: 1, claim_epoch: 3,
    holder: { endpoint_id: 'ep_1', slug: 'reviewer' }, held_by_other: false, lease_expires_at: 0, lease_remaining_ms: 14 * 60_000 + 1, created_at: 0, updated_at: 0, completed_at: null,
    ...overrides,
  };
}

describe('extension: Todos view models', () => {
  it('groups todos by queue: claimed first, then queued, then done; the queue row counts them', () => {
    const groups = groupByQueue([
      todo({ id: 'a', state: 'queued', holder: null, lease_remaining_ms: null, created_at: 1 }),
      todo({ id: 'b', queue: 'triage', state: 'done', holder: null, lease_remaining_ms: null }),
      todo({ id: 'c' }),
    ]);
    assert.deepEqual(groups.map((group) => [group.queue, group.todos.map((item) => item.id)]), [['reviews', ['c', 'a']], ['triage', ['b']]]);
    assert.equal(queueItem(groups[0]!).description, '1 queued · 1 claimed · 0 done');
  });

  it("orders each queue as the server's list does: held and queued oldest first, done newest first", () => {
    // The order the server's list of the same todos has (test/server/todoList.test.ts): a, b
    // done; c, d held; e, f queued, each created one after the other. Shuffled: the view's
    // order must not depend on the order it read them in.
    const made = ['a', 'b', 'c', 'd', 'e', 'f'].map((id, index) => {
      const state = index < 2 ? 'done' : index < 4 ? 'claimed' : 'queued';
      return todo({ id, queue: 'q', state, created_at: 1000 + index });
    });
    const shuffled = [made[4]!, made[0]!, made[3]!, made[1]!, made[5]!, made[2]!];
    assert.deepEqual(groupByQueue(shuffled)[0]!.todos.map((item) => item.id), ['c', 'd', 'e', 'f', 'b', 'a']);
    // Created in the same millisecond: one order whatever the order read.
    const sameMs = ['td_1', 'td_2', 'td_3'].map((id) => todo({ id, state: 'done', created_at: 5 }));
    const orderOf = (todos: TodoView[]) => groupByQueue(todos)[0]!.todos.map((item) => item.id);
    assert.deepEqual(orderOf([sameMs[1]!, sameMs[0]!, sameMs[2]!]), orderOf([sameMs[2]!, sameMs[1]!, sameMs[0]!]));
  });

  it('a claimed todo shows its holder, a live lease countdown on the local clock and its claim epoch', () => {
    assert.equal(todoItem(todo(), 0).description, 'reviewer · 15m left · epoch 3');
    assert.equal(todoItem(todo(), 14 * 60_000 - 29_000).description, 'reviewer · 30s left · epoch 3', 'counts down between reads');
    assert.equal(todoItem(todo(), 15 * 60_000).description, 'reviewer · lapsing (the reaper requeues it) · epoch 3');
    assert.equal(todoItem(todo({ holder: null, held_by_other: true }), 0).description, "another human's endpoint · 15m left · epoch 3");
    assert.equal(todoItem(todo(), 0).contextValue, 'todo-claimed');
    assert.equal(leaseLeftMs(todo({ state: 'queued', lease_remaining_ms: null }), 0), null);
  });

  it('queued and done todos say so, with attempts and epoch once claimed before', () => {
    assert.equal(todoItem(todo({ state: 'queued', holder: null, lease_remaining_ms: null, attempts: 0, claim_epoch: 0 }), 0).description, 'queued');
    assert.equal(todoItem(todo({ state: 'queued', holder: null, lease_remaining_ms: null, attempts: 2, claim_epoch: 2 }), 0).description, 'queued · 2 attempts · epoch 2');
    assert.equal(todoItem(todo({ state: 'done', holder: null, lease_remaining_ms: null }), 0).description, 'done · epoch 3');
  });

  it('a claim event names kind, endpoint, local time, epoch and lease source', () => {
    const event: ClaimEventView = { kind: 'claimed', claim_epoch: 3, endpoint: { endpoint_id: 'ep_1', slug: 'reviewer' }, by_other: false, lease_ttl_seconds: 900, lease_source: 'endpoint', lease_expires_at: 0, at: new Date(2026, 11, 2, 9, 5, 7).getTime() };
    const item = claimEventItem('td_1', 0, event);
    assert.equal(item.label, 'claimed by reviewer');
    assert.equal(item.description, "09:05:07 · epoch 3 · lease 15m (endpoint's default)");
    assert.equal(claimEventItem('td_1', 1, { ...event, kind: 'reaped', endpoint: null, by_other: false, lease_ttl_seconds: null, lease_source: null }).label, 'reaped');
  });
});
