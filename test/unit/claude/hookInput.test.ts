import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  DEFAULT_HOOK_SETTINGS,
  parseHookInput,
  planHookActions,
  parseTaskNotification,
  resolveHookSettings,
  RUNNING_EVIDENCE,
} from '../../../src/claude/hookInput.ts';
import type { HookContext, HookInput, HookOp } from '../../../src/claude/hookInput.ts';

const SESSION = '7b756a54-68b3-4387-9af5-1b24ed317d93';

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../fixtures/claude-hooks/${name}.json`, import.meta.url), 'utf8'));
}

function handled(name: string): HookInput {
  const parsed = parseHookInput(fixture(name));
  assert.equal(parsed.kind, 'handled', JSON.stringify(parsed));
  return (parsed as { input: HookInput }).input;
}

/** Every PostToolUse ends with "back to working if blocked" (tested on its own below); the lease ops are the rest. */
function withoutBackToWorking(ops: HookOp[]): HookOp[] {
  return ops.filter((op) => !(op.op === 'set_display' && op.if_state === 'blocked'));
}

function plan(name: string, context: HookContext = {}, settings = DEFAULT_HOOK_SETTINGS): HookOp[] {
  return withoutBackToWorking(planHookActions(handled(name), settings, context));
}

describe('parseHookInput', () => {
  it('ignores events Leasehold does not handle, so the hook can exit at once', () => {
    assert.deepEqual(parseHookInput(fixture('pre-tool-use')), { kind: 'ignored', eventName: 'PreToolUse' });
  });

  it('keeps fields Claude Code adds in later releases', () => {
    const input = handled('post-tool-use-bash-background') as Record<string, unknown>;
    assert.equal(input.duration_ms, 412);
    assert.equal(input.prompt_id, 'p-0042');
  });

  it('reports which field is wrong when a handled event is malformed', () => {
    const parsed = parseHookInput({ hook_event_name: 'Stop', session_id: SESSION, background_tasks: [{ type: 'shell', status: 'running' }] });
    assert.equal(parsed.kind, 'invalid');
    assert.match((parsed as { message: string }).message, /background_tasks\.0\.id/);
  });

  it('checks the documented field types by hand, as loosely as documented (no zod in the hook)', () => {
    const invalid = (payload: unknown, event?: string) => {
      const parsed = parseHookInput(payload, event);
      assert.equal(parsed.kind, 'invalid', JSON.stringify(payload));
      return (parsed as { message: string }).message;
    };
    assert.match(invalid('text', 'Stop'), /^input: expected object, received string/);
    assert.match(invalid([], 'Stop'), /^input: expected object, received array/);
    assert.match(invalid({ hook_event_name: 'Stop', session_id: '' }), /^session_id: expected a non-empty string/);
    assert.match(invalid({ hook_event_name: 'SessionStart', session_id: SESSION, cwd: null }), /^cwd: expected string, received null/);
    assert.match(invalid({ hook_event_name: 'Stop', session_id: SESSION, background_tasks: {} }), /^background_tasks: expected array/);
    assert.match(invalid({ hook_event_name: 'Stop', session_id: SESSION, background_tasks: [{ id: 'b1', type: 'shell', status: 1 }] }), /^background_tasks\.0\.status: expected string, received number/);
    assert.match(invalid({ hook_event_name: 'PostToolUse', session_id: SESSION, tool_name: 'Bash', tool_input: ['ls'] }), /^tool_input: expected object, received array/);
    assert.match(invalid({ hook_event_name: 'PostToolUse', session_id: SESSION }), /^tool_name: expected string, received undefined/);
    // Unknown fields and any tool_response are fine; the caller's payload is not changed.
    const payload = { session_id: SESSION, tool_name: 'Read', tool_response: 'file text', brand_new: { nested: true } };
    const parsed = parseHookInput(payload, 'PostToolUse');
    assert.equal(parsed.kind, 'handled');
    assert.equal((parsed as { input: Record<string, unknown> }).input.hook_event_name, 'PostToolUse');
    assert.equal('hook_event_name' in payload, false);
    // An event name that is an Object.prototype key is not a handled event.
    assert.deepEqual(parseHookInput({ hook_event_name: 'toString', session_id: SESSION }), { kind: 'ignored', eventName: 'toString' });
  });

  it('a Bash or Agent response of another shape plans nothing rather than failing', () => {
    const post = (tool_name: string, tool_response: unknown, tool_input: unknown = {}) =>
      withoutBackToWorking(planHookActions((parseHookInput({ hook_event_name: 'PostToolUse', session_id: SESSION, tool_name, tool_input, tool_response }) as { input: HookInput }).input));
    assert.deepEqual(post('Bash', { backgroundTaskId: 42 }), []);
    assert.deepEqual(post('Agent', { status: 'async_launched', agentId: 'a1', isAsync: 'yes' }), []);
    // A tool_input of another shape only loses the description.
    const [op] = post('Bash', { backgroundTaskId: 'b1' }, { command: 7 });
    assert.deepEqual([op?.op, (op as { description?: string }).description], ['acquire', undefined]);
  });

  it('takes the event from the command line when the payload does not name it', () => {
    const parsed = parseHookInput({ session_id: SESSION, prompt: 'hi' }, 'UserPromptSubmit');
    assert.equal(parsed.kind, 'handled');
  });
});

describe('planHookActions', () => {
  it('SessionStart binds the session to its pane with the ancestry and LEASEHOLD_PANE, and shows idle', () => {
    const ancestry = [
      { pid: 4242, start_time: '90001' },
      { pid: 4100, start_time: '88000' },
    ];
    const ops = plan('session-start', { envPane: 'vscode-term-3', ancestry });
    assert.deepEqual(ops, [
      {
        op: 'bind_session',
        session_id: SESSION,
        source: 'startup',
        cwd: '/home/dev/app',
        pane_hint: { env_pane: 'vscode-term-3', ancestry },
      },
      { op: 'set_display', session_id: SESSION, state: 'idle', reason: 'session startup' },
    ]);
  });

  it('SessionStart after a compaction refreshes the binding without claiming the pane went idle', () => {
    const ops = plan('session-start-compact');
    assert.deepEqual(
      ops.map((op) => op.op),
      ['bind_session'],
    );
  });

  it('UserPromptSubmit shows working', () => {
    assert.deepEqual(plan('user-prompt-submit'), [{ op: 'set_display', session_id: SESSION, state: 'working', reason: 'prompt submitted' }]);
  });

  it('a permission prompt shows blocked; an idle reminder shows idle; auth_success changes nothing', () => {
    assert.equal((plan('notification-permission-prompt')[0] as { state: string }).state, 'blocked');
    assert.equal((plan('notification-idle-prompt')[0] as { state: string }).state, 'idle');
    assert.deepEqual(plan('notification-auth-success'), []);
  });

  it('an elicitation dialog (an MCP server asking the user) shows blocked', () => {
    const parsed = parseHookInput({ hook_event_name: 'Notification', session_id: SESSION, notification_type: 'elicitation_dialog', message: 'The server asks for input' });
    assert.equal(parsed.kind, 'handled');
    assert.deepEqual(planHookActions((parsed as { input: HookInput }).input), [
      { op: 'set_display', session_id: SESSION, state: 'blocked', reason: 'notification elicitation_dialog' },
    ]);
  });

  it('a backgrounded Bash command acquires a declared shell lease named by its task id, with the shell TTL', () => {
    assert.deepEqual(plan('post-tool-use-bash-background'), [
      {
        op: 'acquire',
        session_id: SESSION,
        job_ref: 'bmd0i64ke',
        job_type: 'shell',
        kind: 'declared',
        ttl_ms: 30 * 60_000,
        description: 'Run the test suite',
      },
    ]);
  });

  it('hands the launched process to the server when the hook found it', () => {
    const [op] = plan('post-tool-use-bash-background', { pidHints: { bmd0i64ke: { pid: 5151, start_time: '123456' } } });
    assert.deepEqual((op as { pid_hint?: unknown }).pid_hint, { pid: 5151, start_time: '123456' });
  });

  it('a foreground Bash command acquires nothing: it is already over', () => {
    assert.deepEqual(plan('post-tool-use-bash-foreground'), []);
  });

  it('a background subagent launch acquires a subagent lease named by its agentId, with the subagent TTL', () => {
    const ops = plan('post-tool-use-agent-background');
    assert.deepEqual(ops, [
      {
        op: 'acquire',
        session_id: SESSION,
        job_ref: 'a9120695e511e34a9',
        job_type: 'subagent',
        kind: 'declared',
        ttl_ms: 60 * 60_000,
        description: 'Map the indexer',
      },
    ]);
  });

  it('treats the legacy Task tool name like Agent', () => {
    const input = handled('post-tool-use-agent-background') as Record<string, unknown>;
    const ops = planHookActions({ ...input, tool_name: 'Task' } as HookInput);
    assert.equal((ops[0] as { job_ref: string }).job_ref, 'a9120695e511e34a9');
  });

  it('a foreground subagent (finished when the tool returns) acquires nothing', () => {
    const input = handled('post-tool-use-agent-background') as Record<string, unknown>;
    const ops = withoutBackToWorking(planHookActions({ ...input, tool_response: { status: 'completed', agentId: 'a1', content: [] } } as HookInput));
    assert.deepEqual(ops, []);
  });

  it('Stop with tasks running keeps their leases with the listing as evidence and releases the rest', () => {
    const ops = plan('stop-task-running');
    assert.deepEqual(ops, [
      { op: 'set_display', session_id: SESSION, state: 'idle', reason: 'turn ended (Stop)' },
      {
        op: 'reconcile',
        session_id: SESSION,
        running: [
          { job_ref: 'bmd0i64ke', job_type: 'shell', ttl_ms: 30 * 60_000, description: 'Run the test suite', evidence: RUNNING_EVIDENCE },
          { job_ref: 'a9120695e511e34a9', job_type: 'subagent', ttl_ms: 60 * 60_000, description: 'Map the indexer', evidence: RUNNING_EVIDENCE },
        ],
        finished: [],
        release_unlisted: true,
      },
    ]);
  });

  it('Stop after the task finished (no longer listed) releases every lease of the session', () => {
    const reconcile = plan('stop-task-finished')[1];
    assert.deepEqual(reconcile, { op: 'reconcile', session_id: SESSION, running: [], finished: [], release_unlisted: true });
  });

  it('Stop releases a task listed as completed and keeps one still pending', () => {
    const reconcile = plan('stop-task-listed-finished')[1] as Extract<HookOp, { op: 'reconcile' }>;
    assert.deepEqual(reconcile.finished, [{ job_ref: 'bmd0i64ke', status: 'completed' }]);
    assert.deepEqual(
      reconcile.running.map((r) => r.job_ref),
      ['bq1long'],
    );
  });

  it('Stop from a Claude Code without background_tasks releases nothing: absence is not evidence', () => {
    assert.deepEqual(
      plan('stop-before-background-tasks-field').map((op) => op.op),
      ['set_display'],
    );
  });

  it('Stop shows done instead of idle when the user set it so', () => {
    const [display] = plan('stop-task-finished', {}, resolveHookSettings({ stopDisplayState: 'done' }));
    assert.equal((display as { state: string }).state, 'done');
  });

  it('SubagentStop releases that subagent lease', () => {
    assert.deepEqual(plan('subagent-stop'), [
      { op: 'release', session_id: SESSION, job_ref: 'a9120695e511e34a9', end_reason: 'released', note: 'the subagent stopped (SubagentStop)', observed_end: true },
    ]);
  });

  it('SessionEnd releases every lease of the session and leaves no display state of its own', () => {
    assert.deepEqual(plan('session-end'), [
      { op: 'set_display', session_id: SESSION, state: 'unknown', reason: 'session ended (prompt_input_exit)' },
      { op: 'release_session', session_id: SESSION, reason: 'prompt_input_exit' },
    ]);
  });

  it('SessionEnd after /clear ends nothing: the jobs go on and the next session takes them over', () => {
    assert.deepEqual(planHookActions({ ...handled('session-end'), reason: 'clear' } as HookInput), []);
  });

  it('any tool that ran after a permission prompt takes the pane back from blocked to working (and only from blocked)', () => {
    const ops = planHookActions(handled('post-tool-use-bash-foreground'));
    assert.deepEqual(ops, [{ op: 'set_display', session_id: SESSION, state: 'working', reason: 'tool ran', if_state: 'blocked' }]);
    const denied = planHookActions((parseHookInput({ hook_event_name: 'PostToolUseFailure', session_id: SESSION, tool_name: 'Edit' }) as { input: HookInput }).input);
    assert.deepEqual(denied, [{ op: 'set_display', session_id: SESSION, state: 'working', reason: 'tool answered', if_state: 'blocked' }]);
  });

  it('PermissionRequest and every notification type that waits on the human read blocked; answered dialogs read working; others change nothing', () => {
    const permission = planHookActions((parseHookInput({ hook_event_name: 'PermissionRequest', session_id: SESSION, tool_name: 'Bash' }) as { input: HookInput }).input);
    assert.equal((permission[0] as { state: string }).state, 'blocked');
    const stateFor = (notification_type: string) => {
      const ops = planHookActions((parseHookInput({ hook_event_name: 'Notification', session_id: SESSION, notification_type, message: 'x' }) as { input: HookInput }).input);
      return ops.length === 0 ? null : (ops[0] as { state: string }).state;
    };
    for (const type of ['permission_prompt', 'worker_permission_prompt', 'elicitation_dialog', 'elicitation_url_dialog', 'agent_needs_input']) assert.equal(stateFor(type), 'blocked', type);
    for (const type of ['elicitation_complete', 'elicitation_response']) assert.equal(stateFor(type), 'working', type);
    assert.equal(stateFor('idle_prompt'), 'idle');
    for (const type of ['auth_success', 'agent_completed', 'push_notification', 'plugin_notification', 'computer_use_exit', 'auth_storage_failure', 'brand_new_type']) assert.equal(stateFor(type), null, type);
  });

  it('StopFailure ends the turn like Stop (the display leaves working) and reconciles a listing when one comes', () => {
    const failed = planHookActions((parseHookInput({ hook_event_name: 'StopFailure', session_id: SESSION, error: 'unknown', last_assistant_message: 'API Error: 400' }) as { input: HookInput }).input);
    assert.deepEqual(failed, [{ op: 'set_display', session_id: SESSION, state: 'idle', reason: 'turn failed (StopFailure)' }]);
    const listed = planHookActions((parseHookInput({ hook_event_name: 'StopFailure', session_id: SESSION, background_tasks: [] }) as { input: HookInput }).input);
    assert.equal(listed[1]?.op, 'reconcile');
  });

  it('a <task-notification> prompt releases that task with its status, as an observed end', () => {
    const prompt = '<task-notification>\n<task-id>b4x9k2</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<status>killed</status>\n<summary>Background command stopped</summary>\n</task-notification>';
    const ops = planHookActions((parseHookInput({ hook_event_name: 'UserPromptSubmit', session_id: SESSION, prompt }) as { input: HookInput }).input);
    assert.deepEqual(ops[1], { op: 'release', session_id: SESSION, job_ref: 'b4x9k2', end_reason: 'released', note: 'task killed (task-notification)', observed_end: true });
    assert.deepEqual(parseTaskNotification('just a prompt'), undefined);
  });

  it('SubagentStart re-acquires only a background agent this session declared before (a resumed agent)', () => {
    const ops = planHookActions((parseHookInput({ hook_event_name: 'SubagentStart', session_id: SESSION, agent_id: 'a77', agent_type: 'general-purpose' }) as { input: HookInput }).input);
    assert.equal(ops.length, 1);
    assert.equal(ops[0]?.op, 'acquire');
    assert.equal((ops[0] as { only_if_known?: boolean }).only_if_known, true);
    assert.equal((ops[0] as { job_ref: string }).job_ref, 'a77');
  });

  it('uses per-job-type TTLs from settings', () => {
    const settings = resolveHookSettings({ ttlMsByJobType: { shell: 5 * 60_000 } });
    assert.equal((plan('post-tool-use-bash-background', {}, settings)[0] as { ttl_ms: number }).ttl_ms, 5 * 60_000);
    assert.equal((plan('post-tool-use-agent-background', {}, settings)[0] as { ttl_ms: number }).ttl_ms, 60 * 60_000);
  });
});

describe('planHookActions: news from inside a subagent (issue 8 item 3)', () => {
  it('a tool call inside a subagent touches its lease (renew only, never acquire); one on the main thread does not', () => {
    const inside = planHookActions((parseHookInput({ hook_event_name: 'PostToolUse', session_id: SESSION, agent_id: 'a77', tool_name: 'Read', tool_input: {}, tool_response: {} }) as { input: HookInput }).input);
    assert.deepEqual(inside.map((op) => op.op), ['touch', 'set_display']);
    assert.deepEqual(inside[0], { op: 'touch', session_id: SESSION, job_ref: 'a77' });
    const main = planHookActions((parseHookInput({ hook_event_name: 'PostToolUse', session_id: SESSION, tool_name: 'Read', tool_input: {}, tool_response: {} }) as { input: HookInput }).input);
    assert.deepEqual(main.map((op) => op.op), ['set_display']);
  });
});

describe('planHookActions for a session in Claude Code\'s background daemon (issue 8 item 7)', () => {
  const plan = (payload: Record<string, unknown>, background: HookContext['background']) =>
    planHookActions((parseHookInput({ session_id: SESSION, ...payload }) as { input: HookInput }).input, undefined, { envPane: 'the-pane-it-left', ancestry: [{ pid: 9, start_time: '9' }], background });
  const attach = [{ pid: 77, start_time: '700' }];

  it('attached nowhere: it leaves its pane, sets no display, never binds by the LEASEHOLD_PANE it inherited; its releases still apply', () => {
    const start = plan({ hook_event_name: 'SessionStart', source: 'fork' }, { attachAncestry: null, forkedFrom: 'c598ab9d-193e-4933-9ad2-8ba3aebe9570' });
    assert.deepEqual(start, [{ op: 'leave_pane', session_id: SESSION, reason: "in Claude Code's background daemon, attached to no terminal", forked_from: 'c598ab9d-193e-4933-9ad2-8ba3aebe9570' }]);
    const ended = plan({ hook_event_name: 'SubagentStop', agent_id: 'a1' }, { attachAncestry: null });
    assert.deepEqual(ended.map((op) => op.op), ['leave_pane', 'release']);
  });

  it('attached: every event binds the pane of the `claude attach` client first (attaching fires no hook)', () => {
    const prompt = plan({ hook_event_name: 'UserPromptSubmit', prompt: 'hi' }, { attachAncestry: attach });
    assert.deepEqual(prompt[0], { op: 'bind_session', session_id: SESSION, source: 'attach', pane_hint: { ancestry: attach } });
    assert.deepEqual(prompt.slice(1).map((op) => op.op), ['set_display']);
    const start = plan({ hook_event_name: 'SessionStart', source: 'fork' }, { attachAncestry: attach });
    assert.equal(start.filter((op) => op.op === 'bind_session').length, 1, 'the env-pane binding is replaced, not added to');
  });

  it('an event that carries nothing stays nothing', () => {
    assert.deepEqual(plan({ hook_event_name: 'Notification', notification_type: 'agent_completed' }, { attachAncestry: null }), []);
  });
});

describe('resolveHookSettings', () => {
  it('refuses an unbounded, zero or fractional TTL', () => {
    assert.throws(() => resolveHookSettings({ ttlMsByJobType: { shell: Number.POSITIVE_INFINITY } }));
    assert.throws(() => resolveHookSettings({ ttlMsByJobType: { shell: 0 } }));
    assert.throws(() => resolveHookSettings({ ttlMsByJobType: { subagent: 1.5 } }));
    assert.throws(() => resolveHookSettings({ ttlMsByJobType: { shell: 30 * 24 * 3_600_000 } }));
  });
});
