// The hook's first look at an event, before anything heavy is loaded: most hook calls
// (every foreground Bash, every unrelated notification) carry nothing for Leasehold, and
// they must cost Claude Code no more than starting Node. Imports nothing, on purpose: this
// module is what the hook bundle's entry chunk holds. It must agree with planHookActions
// (src/claude/hookInput.ts): "nothing" here means the planner would return no op; a unit
// test checks that for every fixture.

/** Events the planner handles (the same list as hookInput's schemas). */
export const HANDLED_HOOK_EVENTS: readonly string[] = [
  'SessionStart',
  'UserPromptSubmit',
  'Notification',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'SessionEnd',
];

// The same lists as hookInput's notificationState (a unit test checks every fixture agrees).
const NOTIFICATION_TYPES_WITH_STATE = new Set([
  'permission_prompt',
  'worker_permission_prompt',
  'elicitation_dialog',
  'elicitation_url_dialog',
  'agent_needs_input',
  'elicitation_complete',
  'elicitation_response',
  'idle_prompt',
]);

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function nonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/** The event name: the payload's hook_event_name is the authority, the argv word the fallback. */
export function hookEventName(payload: unknown, argvEvent: string | undefined): string {
  const named = field(payload, 'hook_event_name');
  return typeof named === 'string' ? named : (argvEvent ?? '');
}

/** True when the event certainly plans no operation, so the hook can exit at once. */
export function carriesNothing(eventName: string, payload: unknown): boolean {
  if (!HANDLED_HOOK_EVENTS.includes(eventName)) return true;
  switch (eventName) {
    case 'PostToolUse':
      // Every matched tool call may end a "blocked" (a permission prompt was answered).
      return false;
    case 'Notification': {
      const type = field(payload, 'notification_type');
      if (typeof type === 'string') return !NOTIFICATION_TYPES_WITH_STATE.has(type);
      if (type !== undefined) return true;
      const message = field(payload, 'message');
      return !(typeof message === 'string' && (/permission/i.test(message) || /waiting for your input/i.test(message)));
    }
    case 'SubagentStop':
    case 'SubagentStart':
      return !nonEmptyString(field(payload, 'agent_id'));
    case 'SessionEnd':
      return field(payload, 'reason') === 'clear';
    default:
      return false;
  }
}

/**
 * A tool call that launched nothing in the background (no backgroundTaskId, no async agent):
 * its only possible effect is taking a blocked pane back to working, so it matters only while
 * the session's blocked marker exists.
 */
export function isPlainToolCall(eventName: string, payload: unknown): boolean {
  if (eventName === 'PostToolUseFailure') return true;
  if (eventName !== 'PostToolUse') return false;
  const response = field(payload, 'tool_response');
  return !nonEmptyString(field(response, 'backgroundTaskId')) && field(response, 'status') !== 'async_launched';
}
