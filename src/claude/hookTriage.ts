// The hook's first look at an event, before anything heavy is loaded: most hook calls
// (every foreground Bash, every unrelated notification) carry nothing for Leasehold, and
// they must cost Claude Code no more than starting Node. Imports nothing, on purpose: this
// module is what the hook bundle's entry chunk holds. It must agree with planHookActions
// (src/claude/hookInput.ts): "nothing" here means the planner would return no op; a unit
// test checks that for every fixture.

/** Events the planner handles (the same list as hookInput's schemas). */
export const HANDLED_HOOK_EVENTS: readonly string[] = ['SessionStart', 'UserPromptSubmit', 'Notification', 'PostToolUse', 'Stop', 'SubagentStop', 'SessionEnd'];

const SUBAGENT_TOOLS = new Set(['Agent', 'Task']);
const NOTIFICATION_TYPES_WITH_STATE = new Set(['permission_prompt', 'elicitation_dialog', 'idle_prompt']);

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
    case 'PostToolUse': {
      const tool = field(payload, 'tool_name');
      const response = field(payload, 'tool_response');
      if (tool === 'Bash') return !nonEmptyString(field(response, 'backgroundTaskId'));
      if (typeof tool === 'string' && SUBAGENT_TOOLS.has(tool)) {
        return !(field(response, 'status') === 'async_launched' && nonEmptyString(field(response, 'agentId')));
      }
      return true;
    }
    case 'Notification': {
      const type = field(payload, 'notification_type');
      if (typeof type === 'string') return !NOTIFICATION_TYPES_WITH_STATE.has(type);
      if (type !== undefined) return true;
      const message = field(payload, 'message');
      return !(typeof message === 'string' && (/permission/i.test(message) || /waiting for your input/i.test(message)));
    }
    case 'SubagentStop':
      return field(payload, 'agent_id') === undefined;
    default:
      return false;
  }
}
