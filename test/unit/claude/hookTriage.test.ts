// The hook's zero-dependency triage must agree with the planner, and every planned op must be
// a valid wire op (what the server validates).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { parseHookInput, planHookActions, HANDLED_EVENTS } from '../../../src/claude/hookInput.ts';
import { carriesNothing, hookEventName, HANDLED_HOOK_EVENTS } from '../../../src/claude/hookTriage.ts';
import { HookEventSchema } from '../../../src/core/wire/hookOps.ts';
import { newEventId } from '../../../src/claude/spool.ts';

const FIXTURES = new URL('../../fixtures/claude-hooks/', import.meta.url);

function fixtures(): Array<[string, unknown]> {
  return readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.json'))
    .map((name) => [name, JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'))]);
}

function planned(payload: unknown): number {
  const parsed = parseHookInput(payload);
  return parsed.kind === 'handled' ? planHookActions(parsed.input, undefined, { ancestry: [{ pid: 10, start_time: '5' }] }).length : 0;
}

describe('hook triage (before anything heavy loads)', () => {
  it('handles exactly the planner\'s events', () => {
    assert.deepEqual([...HANDLED_HOOK_EVENTS].sort(), [...HANDLED_EVENTS].sort());
  });

  it('says "nothing" exactly when the planner plans no op, for every fixture', () => {
    for (const [name, payload] of fixtures()) {
      assert.equal(carriesNothing(hookEventName(payload, undefined), payload), planned(payload) === 0, name);
    }
  });

  it('agrees on edge cases: empty task id, a non-async agent, unknown and message-only notifications, no agent_id', () => {
    const base = { session_id: 's1' };
    const cases: unknown[] = [
      { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: { backgroundTaskId: '' } },
      { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: 'text' },
      { ...base, hook_event_name: 'PostToolUse', tool_name: 'Task', tool_response: { status: 'completed', agentId: 'a1' } },
      { ...base, hook_event_name: 'PostToolUse', tool_name: 'Task', tool_response: { status: 'async_launched', agentId: 'a1' } },
      { ...base, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_response: { backgroundTaskId: 'x' } },
      { ...base, hook_event_name: 'Notification', notification_type: 'elicitation_complete' },
      { ...base, hook_event_name: 'Notification', notification_type: 'elicitation_dialog' },
      { ...base, hook_event_name: 'PostToolUse', tool_name: 'Agent', tool_response: { status: 'async_launched', agentId: 'a1', isAsync: true } },
      { ...base, hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' },
      { ...base, hook_event_name: 'Notification', message: 'Claude is waiting for your input' },
      { ...base, hook_event_name: 'Notification', message: 'hello' },
      { ...base, hook_event_name: 'SubagentStop' },
      { ...base, hook_event_name: 'SubagentStop', agent_id: 'a1' },
    ];
    for (const payload of cases) assert.equal(carriesNothing(hookEventName(payload, undefined), payload), planned(payload) === 0, JSON.stringify(payload));
  });

  it('takes the event from argv only when the payload does not name it', () => {
    assert.equal(hookEventName({}, 'Stop'), 'Stop');
    assert.equal(hookEventName({ hook_event_name: 'PreToolUse' }, 'Stop'), 'PreToolUse');
  });

  it('plans only ops the server\'s wire schema accepts', () => {
    for (const [name, payload] of fixtures()) {
      const parsed = parseHookInput(payload);
      if (parsed.kind !== 'handled') continue;
      const ops = planHookActions(parsed.input, undefined, { envPane: 'p1', ancestry: [{ pid: 10, start_time: '5' }], pidHints: { bmd0i64ke: { pid: 11, start_time: '6' } } });
      const result = HookEventSchema.safeParse({ id: newEventId(), ops });
      assert.ok(result.success, `${name}: ${JSON.stringify(result.error?.issues)}`);
    }
  });
});
