// The pure rule that names why a fenced call failed (src/core/claimRefusal.ts).
import assert from 'node:assert/strict';
import { classifyFencedRefusal, type FencedRefusalInput } from '../../src/core/claimRefusal.ts';

const base = (over: Omit<Partial<FencedRefusalInput>, 'todo'> & { todo?: Partial<FencedRefusalInput['todo']> }): FencedRefusalInput => ({
  todoId: 'td_1',
  presentedEpoch: 1,
  callerEndpointId: 'ep_me',
  now: 100_000,
  ...over,
  todo: { state: 'claimed', claim_epoch: 1, holder_endpoint_id: 'ep_me', lease_expires_at: 50_000, ...over.todo },
});

describe('classifyFencedRefusal', () => {
  it('lapsed but not yet reaped: lease_lapsed, with how long ago', () => {
    const refusal = classifyFencedRefusal(base({}));
    assert.equal(refusal.code, 'lease_lapsed');
    assert.match(refusal.message, /lapsed 50s ago and the reaper is requeueing it/);
  });

  it('reaped: lease_lapsed, nobody holds it', () => {
    const refusal = classifyFencedRefusal(
      base({ todo: { state: 'queued', holder_endpoint_id: null, lease_expires_at: null }, lastEvent: { kind: 'reaped', claim_epoch: 1, endpoint_id: 'ep_me' } }),
    );
    assert.equal(refusal.code, 'lease_lapsed');
    assert.match(refusal.message, /nobody holds it now/);
  });

  it('a live claim under a newer epoch of the caller: wrong_claim_epoch, holds_todo, current epoch told', () => {
    const refusal = classifyFencedRefusal(base({ presentedEpoch: 1, todo: { claim_epoch: 2, lease_expires_at: 200_000 } }));
    assert.deepEqual([refusal.code, refusal.holdsTodo, refusal.details.current_claim_epoch], ['wrong_claim_epoch', true, 2]);
  });

  it('an epoch never issued, todo not held by the caller: wrong_claim_epoch without holding', () => {
    const refusal = classifyFencedRefusal(base({ presentedEpoch: 9, todo: { state: 'queued', claim_epoch: 1, holder_endpoint_id: null } }));
    assert.deepEqual([refusal.code, refusal.holdsTodo], ['wrong_claim_epoch', false]);
    assert.equal(refusal.details.current_claim_epoch, undefined);
  });

  it('re-claimed by another holder: held_by_other; later claim ended too: claim_ended', () => {
    assert.equal(classifyFencedRefusal(base({ todo: { claim_epoch: 2, holder_endpoint_id: 'ep_other', lease_expires_at: 200_000 } })).code, 'held_by_other');
    assert.equal(classifyFencedRefusal(base({ todo: { state: 'done', claim_epoch: 2, holder_endpoint_id: 'ep_other' } })).code, 'claim_ended');
  });

  it('handed back by a human: claim_ended naming it', () => {
    const refusal = classifyFencedRefusal(
      base({ todo: { state: 'queued', holder_endpoint_id: null }, lastEvent: { kind: 'requeued', claim_epoch: 1, endpoint_id: 'ep_me' } }),
    );
    assert.equal(refusal.code, 'claim_ended');
    assert.match(refusal.message, /a human handed the todo back/);
  });
});
