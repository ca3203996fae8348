// Issue 10 item 3: over-long fields are cut by the hook to what the server accepts, never
// dropping the event. Each case the issue lists, checked against the server's own schema.
import assert from 'node:assert/strict';
import { cutText, fitHookEvent } from '../../../src/claude/hookFit.ts';
import { planHookActions } from '../../../src/claude/hookInput.ts';
import type { HookInput } from '../../../src/claude/hookInput.ts';
import { HookEventSchema } from '../../../src/core/wire/hookOps.ts';
import { HOOK_EVENT_MAX_BYTES, HOOK_TEXT_MAX } from '../../../src/core/wire/hookOpConstants.ts';
import type { HookEvent } from '../../../src/core/wire/hookOps.ts';
import { MAX_BODY_BYTES } from '../../../src/server/http/requestGuards.ts';

const SESSION = 'sess-fit';

function eventOf(input: Record<string, unknown>): HookEvent {
  return { id: 'evt-fit-1', ops: planHookActions({ session_id: SESSION, ...input } as HookInput) };
}

function assertAccepted(event: HookEvent): void {
  const parsed = HookEventSchema.safeParse(event);
  assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues[0]));
  assert.ok(Buffer.byteLength(JSON.stringify(event)) <= MAX_BODY_BYTES, 'within the server body limit');
}

describe('fitHookEvent: over-long fields are cut, the event is never dropped (issue 10 item 3)', () => {
  it('the hook limit is the server body limit', () => {
    assert.equal(HOOK_EVENT_MAX_BYTES, MAX_BODY_BYTES);
  });

  it('a background command over 4,000 characters with no description: the acquire is kept, its description cut', () => {
    const command = `echo ${'x'.repeat(9000)}`;
    const planned = eventOf({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command, run_in_background: true }, tool_response: { backgroundTaskId: 'bbig1' } });
    assert.equal(HookEventSchema.safeParse(planned).success, false, 'as planned the server would refuse it');
    const { event, cut } = fitHookEvent(planned);
    assertAccepted(event);
    const acquire = event.ops.find((op) => op.op === 'acquire') as { job_ref: string; description: string };
    assert.equal(acquire.job_ref, 'bbig1');
    assert.equal(acquire.description.length, HOOK_TEXT_MAX);
    assert.ok(acquire.description.startsWith('echo xxx') && acquire.description.endsWith('…'));
    assert.deepEqual(cut, ['acquire.description']);
  });

  it('a Stop whose task text is over 4,000 characters: display and reconcile are kept, the text cut', () => {
    const planned = eventOf({ hook_event_name: 'Stop', background_tasks: [{ id: 'b1', type: 'shell', status: 'running', command: 'y'.repeat(5000) }] });
    const { event } = fitHookEvent(planned);
    assertAccepted(event);
    assert.deepEqual(event.ops.map((op) => op.op), ['set_display', 'reconcile']);
    const reconcile = event.ops[1] as { running: Array<{ job_ref: string; description: string }> };
    assert.equal(reconcile.running[0]!.job_ref, 'b1');
    assert.equal(reconcile.running[0]!.description.length, HOOK_TEXT_MAX);
  });

  it('a Stop whose body is over 64 KiB: every listed task is kept (none released by omission), descriptions shortened', () => {
    const tasks = Array.from({ length: 60 }, (_, index) => ({ id: `b${index}`, type: 'shell', status: 'running', description: `job ${index} ${'z'.repeat(3000)}` }));
    const planned = eventOf({ hook_event_name: 'Stop', background_tasks: tasks });
    assert.ok(Buffer.byteLength(JSON.stringify(planned)) > MAX_BODY_BYTES);
    const { event, cut } = fitHookEvent(planned);
    assertAccepted(event);
    const reconcile = event.ops[1] as { running: Array<{ job_ref: string; description?: string }> };
    assert.deepEqual(reconcile.running.map((task) => task.job_ref), tasks.map((task) => task.id));
    assert.ok(reconcile.running.every((task) => task.description!.startsWith('job ')));
    assert.ok(cut.includes('body'));
  });

  it('an event within the limits is left exactly as planned', () => {
    const planned = eventOf({ hook_event_name: 'Stop', background_tasks: [{ id: 'b1', type: 'shell', status: 'running', description: 'npm test' }] });
    assert.deepEqual(fitHookEvent(planned), { event: planned, cut: [] });
  });

  it('never splits a surrogate pair', () => {
    const cutOne = cutText(`${'a'.repeat(8)}😀😀`, 10);
    assert.equal(cutOne, `${'a'.repeat(8)}…`);
    assert.ok(cutOne.length <= 10);
  });
});
