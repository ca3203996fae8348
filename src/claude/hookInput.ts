// What Claude Code sends a command hook on stdin, and what Leasehold does about it.
//
// Shapes checked against the Claude Code hooks reference (https://code.claude.com/docs/en/hooks,
// mirrors of 2026-02 to 2026-09, Claude Code 2.1.x) and against recorded payloads in public
// projects; details and sources in docs/claude-code-facts.md. Every shape is loose: Claude
// Code adds fields release by release, and an unknown field must never make a hook fail.
//
// The shapes are checked by hand rather than with zod: this module runs in the hook process
// Claude Code starts for every hooked event, and zod's full build was most of that process's
// module load (test/unit/claude/hookBundle.test.ts keeps zod out of the hook bundle). What
// the hook sends is validated again, strictly and with zod, by the server
// (src/core/wire/hookOps.ts, HookEventSchema).
//
// planHookActions is pure: input + settings + what the caller observed (pane hints, a pid)
// in, abstract server operations out. The `leasehold hook` command does the I/O.

import { HOOK_JOB_TYPES, MAX_HOOK_TTL_MS, RUNNING_EVIDENCE } from '../core/wire/hookOpConstants.ts';
import type { HookDisplayState, HookJobType } from '../core/wire/hookOpConstants.ts';
import type { HookOp, PaneHint, ProcessHint, ReconcileRunning } from '../core/wire/hookOps.ts';

// ---------------------------------------------------------------------------------------
// Input shapes

/** Fields every event carries (session_id) or may carry. Unknown fields are kept as they are. */
interface CommonInput {
  session_id: string;
  transcript_path?: string;
  cwd?: string;
  permission_mode?: string;
  /** 2.1.332: set when the hook fires inside a subagent. */
  agent_id?: string;
  agent_type?: string;
  /** 2.1.332: the prompt this turn answers; `effort` ({level}) rides along too. */
  prompt_id?: string;
  [key: string]: unknown;
}

/** One entry of Stop's `background_tasks` (Claude Code >= 2.1.145). */
export interface BackgroundTask {
  id: string;
  /** Display label: shell, subagent, monitor, workflow, "MCP task", teammate, ... */
  type: string;
  /** Claude Code lists only running or pending work; a finished task drops out of the list. */
  status: string;
  description?: string;
  command?: string;
  agent_type?: string;
  [key: string]: unknown;
}

export interface SessionStartInput extends CommonInput {
  hook_event_name: 'SessionStart';
  /** startup | resume | clear | compact | fork (2.1.332: a session moved to a background daemon) */
  source?: string;
  model?: string;
}

export interface UserPromptSubmitInput extends CommonInput {
  hook_event_name: 'UserPromptSubmit';
  prompt?: string;
}

export interface NotificationInput extends CommonInput {
  hook_event_name: 'Notification';
  message?: string;
  title?: string;
  /** permission_prompt | idle_prompt | auth_success | elicitation_dialog | ... */
  notification_type?: string;
}

export interface StopInput extends CommonInput {
  hook_event_name: 'Stop';
  stop_hook_active?: boolean;
  last_assistant_message?: string;
  /** Absent before Claude Code 2.1.145: then nothing is known about background work. */
  background_tasks?: BackgroundTask[];
  session_crons?: unknown[];
}

/** A turn that ended in an API error (2.1.332): fired instead of Stop. */
export interface StopFailureInput extends CommonInput {
  hook_event_name: 'StopFailure';
  error?: unknown;
  last_assistant_message?: string;
  background_tasks?: BackgroundTask[];
}

/** Fires when a subagent starts, and again when a finished background agent is resumed. */
export interface SubagentStartInput extends CommonInput {
  hook_event_name: 'SubagentStart';
  agent_id?: string;
  agent_type?: string;
}

/** Fires the moment a permission prompt appears (before Notification). */
export interface PermissionRequestInput extends CommonInput {
  hook_event_name: 'PermissionRequest';
  tool_name?: string;
}

/** Fires after the human answered a permission prompt and the tool ran or was refused. */
export interface PostToolUseFailureInput extends CommonInput {
  hook_event_name: 'PostToolUseFailure';
  tool_name?: string;
}

export interface SubagentStopInput extends CommonInput {
  hook_event_name: 'SubagentStop';
  agent_id?: string;
  agent_type?: string;
  agent_transcript_path?: string;
  stop_hook_active?: boolean;
}

export interface SessionEndInput extends CommonInput {
  hook_event_name: 'SessionEnd';
  /** clear | resume | logout | prompt_input_exit | other (2.1.332) */
  reason?: string;
}

export interface PostToolUseInput extends CommonInput {
  hook_event_name: 'PostToolUse';
  tool_name: string;
  tool_input?: Record<string, unknown>;
  /** Tool-specific; an object for Bash and Agent, but other tools may send a string. */
  tool_response?: unknown;
  tool_use_id?: string;
}

export type HookInput =
  | StopFailureInput
  | SubagentStartInput
  | PermissionRequestInput
  | PostToolUseFailureInput
  | SessionStartInput
  | UserPromptSubmitInput
  | NotificationInput
  | StopInput
  | SubagentStopInput
  | SessionEndInput
  | PostToolUseInput;

/** Bash's tool_input, the part that names the backgrounded command. */
export interface BashToolInput {
  command?: string;
  description?: string;
  run_in_background?: boolean;
}

// A field rule: undefined when the value is acceptable, else what is wrong with it and where
// (below the field). Optional means absent (undefined), as in JSON Schema: null is a wrong type.
type Problem = { at: string[]; message: string };
type Rule = (value: unknown) => Problem | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const expected = (type: string, value: unknown): Problem => ({ at: [], message: `expected ${type}, received ${describeType(value)}` });

const string: Rule = (value) => (typeof value === 'string' ? undefined : expected('string', value));
const nonEmptyString: Rule = (value) => string(value) ?? (value === '' ? { at: [], message: 'expected a non-empty string' } : undefined);
const boolean: Rule = (value) => (typeof value === 'boolean' ? undefined : expected('boolean', value));
const object: Rule = (value) => (isRecord(value) ? undefined : expected('object', value));
const array: Rule = (value) => (Array.isArray(value) ? undefined : expected('array', value));
const anyValue: Rule = () => undefined;
const optional =
  (rule: Rule): Rule =>
  (value) =>
    value === undefined ? undefined : rule(value);

type Shape = Record<string, Rule>;

/** An object with these fields; extra fields are fine. */
const shaped =
  (shape: Shape): Rule =>
  (value) => {
    if (!isRecord(value)) return expected('object', value);
    for (const [key, rule] of Object.entries(shape)) {
      const problem = rule(value[key]);
      if (problem !== undefined) return { at: [key, ...problem.at], message: problem.message };
    }
    return undefined;
  };

/** An array whose every entry passes `rule`. */
const arrayOf =
  (rule: Rule): Rule =>
  (value) => {
    if (!Array.isArray(value)) return expected('array', value);
    for (let index = 0; index < value.length; index++) {
      const problem = rule(value[index]);
      if (problem !== undefined) return { at: [String(index), ...problem.at], message: problem.message };
    }
    return undefined;
  };

/** The first problem of `value` against `shape` as "path: message" (like "background_tasks.0.id: ..."), or undefined. */
function checkShape(value: unknown, shape: Shape): string | undefined {
  const problem = shaped(shape)(value);
  return problem === undefined ? undefined : `${problem.at.join('.') || 'input'}: ${problem.message}`;
}

const backgroundTasks = arrayOf(
  shaped({
    id: nonEmptyString,
    type: string,
    status: string,
    description: optional(string),
    command: optional(string),
    agent_type: optional(string),
  }),
);

const COMMON: Shape = {
  session_id: nonEmptyString,
  transcript_path: optional(string),
  cwd: optional(string),
  permission_mode: optional(string),
  agent_id: optional(string),
  agent_type: optional(string),
  prompt_id: optional(string),
};

const SHAPES = {
  SessionStart: { ...COMMON, source: optional(string), model: optional(string) },
  UserPromptSubmit: { ...COMMON, prompt: optional(string) },
  Notification: { ...COMMON, message: optional(string), title: optional(string), notification_type: optional(string) },
  Stop: {
    ...COMMON,
    stop_hook_active: optional(boolean),
    last_assistant_message: optional(string),
    background_tasks: optional(backgroundTasks),
    session_crons: optional(array),
  },
  StopFailure: { ...COMMON, last_assistant_message: optional(string), background_tasks: optional(backgroundTasks) },
  SubagentStart: { ...COMMON, agent_id: optional(string), agent_type: optional(string) },
  PermissionRequest: { ...COMMON, tool_name: optional(string) },
  PostToolUseFailure: { ...COMMON, tool_name: optional(string) },
  SubagentStop: { ...COMMON, agent_id: optional(string), agent_type: optional(string), agent_transcript_path: optional(string), stop_hook_active: optional(boolean) },
  SessionEnd: { ...COMMON, reason: optional(string) },
  PostToolUse: { ...COMMON, tool_name: string, tool_input: optional(object), tool_response: optional(anyValue), tool_use_id: optional(string) },
} as const satisfies Record<string, Shape>;

export type HandledEvent = keyof typeof SHAPES;
export const HANDLED_EVENTS = Object.keys(SHAPES) as HandledEvent[];

const BASH_TOOL_INPUT: Shape = { command: optional(string), description: optional(string), run_in_background: optional(boolean) };
const BASH_TOOL_RESPONSE: Shape = { backgroundTaskId: optional(nonEmptyString) };
const AGENT_TOOL_INPUT: Shape = { description: optional(string), subagent_type: optional(string) };
const AGENT_TOOL_RESPONSE: Shape = { status: optional(string), agentId: optional(nonEmptyString), isAsync: optional(boolean) };

/** Bash's tool_input when it has the documented shape (a missing tool_input is an empty one), else undefined. */
export function bashToolInput(value: unknown): BashToolInput | undefined {
  const input = value ?? {};
  return checkShape(input, BASH_TOOL_INPUT) === undefined ? (input as BashToolInput) : undefined;
}

/** The background task id of a Bash tool_response, or undefined (ran in the foreground, or not the documented shape). */
function bashBackgroundTaskId(response: unknown): string | undefined {
  return checkShape(response, BASH_TOOL_RESPONSE) === undefined ? ((response as { backgroundTaskId?: string }).backgroundTaskId ?? undefined) : undefined;
}

export type ParsedHookInput =
  | { kind: 'handled'; input: HookInput }
  | { kind: 'ignored'; eventName: string }
  | { kind: 'invalid'; eventName: string; message: string };

/**
 * Validates a hook's stdin JSON. The event comes from the payload's hook_event_name (the
 * authority), else from the `leasehold hook <Event>` argument. Events Leasehold does not
 * handle are 'ignored', so the hook can exit at once.
 */
export function parseHookInput(payload: unknown, eventFromArgv?: string): ParsedHookInput {
  const named = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
  const eventName = typeof named === 'string' ? named : (eventFromArgv ?? '');
  if (!Object.hasOwn(SHAPES, eventName)) return { kind: 'ignored', eventName };
  const problem = checkShape(payload, SHAPES[eventName as HandledEvent]);
  if (problem !== undefined) return { kind: 'invalid', eventName, message: problem };
  // A copy, so the caller's payload is never changed; the argv event fills a missing name.
  return { kind: 'handled', input: { ...(payload as object), hook_event_name: eventName } as HookInput };
}

// ---------------------------------------------------------------------------------------
// Settings

export const JOB_TYPES = HOOK_JOB_TYPES;
export type JobType = HookJobType;
export type DisplayState = HookDisplayState;
export { MAX_HOOK_TTL_MS, RUNNING_EVIDENCE };
export type { HookOp, PaneHint, ProcessHint, ReconcileRunning };

const MINUTE_MS = 60_000;

export interface HookSettings {
  ttlMsByJobType: Record<JobType, number>;
  /** What a finished turn shows: 'idle' (waiting for the user) or 'done'. */
  stopDisplayState: 'idle' | 'done';
}

export const DEFAULT_HOOK_SETTINGS: HookSettings = {
  ttlMsByJobType: { shell: 30 * MINUTE_MS, subagent: 60 * MINUTE_MS, monitor: 60 * MINUTE_MS, workflow: 60 * MINUTE_MS },
  stopDisplayState: 'idle',
};

/** Defaults overlaid with what the user set; a TTL that is not a positive bounded integer is refused (throws). */
export function resolveHookSettings(overrides: { ttlMsByJobType?: Partial<HookSettings['ttlMsByJobType']>; stopDisplayState?: HookSettings['stopDisplayState'] } = {}): HookSettings {
  const settings: HookSettings = {
    ttlMsByJobType: { ...DEFAULT_HOOK_SETTINGS.ttlMsByJobType, ...overrides.ttlMsByJobType },
    stopDisplayState: overrides.stopDisplayState ?? DEFAULT_HOOK_SETTINGS.stopDisplayState,
  };
  for (const jobType of JOB_TYPES) {
    const ttl = settings.ttlMsByJobType[jobType];
    if (!Number.isSafeInteger(ttl) || ttl <= 0 || ttl > MAX_HOOK_TTL_MS) {
      throw new RangeError(`ttlMsByJobType.${jobType}: must be a whole number of milliseconds in 1..${MAX_HOOK_TTL_MS}, got ${String(ttl)}`);
    }
  }
  if (settings.stopDisplayState !== 'idle' && settings.stopDisplayState !== 'done') {
    throw new RangeError(`stopDisplayState: must be "idle" or "done", got ${String(settings.stopDisplayState)}`);
  }
  return settings;
}

// ---------------------------------------------------------------------------------------
// Operations

// The operations (HookOp and its parts) are wire shapes: src/core/wire/hookOps.ts.

/** What the caller observed around the event; the planner stays pure. */
export interface HookContext {
  /** LEASEHOLD_PANE from the hook's environment. */
  envPane?: string;
  /** The hook process's ancestry, nearest first (processTree.ancestry). */
  ancestry?: ProcessHint[];
  /** The background process found for a job_ref (processTree.findDescendantRunning). */
  pidHints?: Record<string, ProcessHint>;
  /**
   * The session runs in Claude Code's background daemon ("move to background", `claude --bg`;
   * 2.1.332 sets CLAUDE_JOB_DIR for its hooks): the terminal it was started from is not its
   * pane. `attachAncestry`: the ancestry of the `claude attach` client showing it, or null
   * when no terminal shows it. `forkedFrom`: the session it continues.
   */
  background?: { attachAncestry: ProcessHint[] | null; forkedFrom?: string };
}

const BACKGROUND_TYPE_TO_JOB: Record<string, JobType> = {
  shell: 'shell',
  subagent: 'subagent',
  monitor: 'monitor',
  workflow: 'workflow',
};

/** Statuses that mean "still to wake this session"; the list is pre-filtered to these today. */
const LIVE_STATUSES = new Set(['running', 'pending']);

const SUBAGENT_TOOLS = new Set(['Agent', 'Task']);

function planPostToolUse(input: PostToolUseInput, settings: HookSettings, context: HookContext): HookOp[] {
  const response = input.tool_response;
  if (input.tool_name === 'Bash') {
    const taskId = bashBackgroundTaskId(response);
    if (taskId === undefined) return []; // ran in the foreground and is already over
    const toolInput = bashToolInput(input.tool_input);
    const description = toolInput?.description ?? toolInput?.command;
    return [acquire(input.session_id, taskId, 'shell', settings, description, context)];
  }
  if (SUBAGENT_TOOLS.has(input.tool_name)) {
    if (checkShape(response, AGENT_TOOL_RESPONSE) !== undefined) return [];
    const launch = response as { status?: string; agentId?: string };
    if (launch.status !== 'async_launched' || launch.agentId === undefined) return [];
    const toolInput = input.tool_input ?? {};
    const description = checkShape(toolInput, AGENT_TOOL_INPUT) === undefined ? (toolInput as { description?: string }).description : undefined;
    return [acquire(input.session_id, launch.agentId, 'subagent', settings, description, context)];
  }
  return [];
}

function acquire(sessionId: string, jobRef: string, jobType: JobType, settings: HookSettings, description: string | undefined, context: HookContext): Extract<HookOp, { op: 'acquire' }> {
  const op: Extract<HookOp, { op: 'acquire' }> = { op: 'acquire', session_id: sessionId, job_ref: jobRef, job_type: jobType, kind: 'declared', ttl_ms: settings.ttlMsByJobType[jobType] };
  if (description !== undefined) op.description = description;
  const pid = context.pidHints?.[jobRef];
  if (pid !== undefined) op.pid_hint = pid;
  return op;
}

function planStop(input: StopInput | StopFailureInput, settings: HookSettings): HookOp[] {
  const why = input.hook_event_name === 'StopFailure' ? 'turn failed (StopFailure)' : 'turn ended (Stop)';
  const display: HookOp = { op: 'set_display', session_id: input.session_id, state: settings.stopDisplayState, reason: why };
  // No list (Claude Code before 2.1.145): nothing is known, so nothing may be released.
  if (input.background_tasks === undefined) return [display];
  const running: ReconcileRunning[] = [];
  const finished: { job_ref: string; status: string }[] = [];
  for (const task of input.background_tasks) {
    const jobType = BACKGROUND_TYPE_TO_JOB[task.type];
    if (jobType === undefined) continue; // teammates, cloud sessions, ...: not waits Leasehold declares
    if (LIVE_STATUSES.has(task.status)) {
      const entry: ReconcileRunning = { job_ref: task.id, job_type: jobType, ttl_ms: settings.ttlMsByJobType[jobType], evidence: RUNNING_EVIDENCE };
      const description = task.description ?? task.command;
      if (description !== undefined) entry.description = description;
      running.push(entry);
    } else {
      finished.push({ job_ref: task.id, status: task.status });
    }
  }
  return [display, { op: 'reconcile', session_id: input.session_id, running, finished, release_unlisted: true }];
}

/**
 * Notification types (2.1.332 bundle) that mean "waits on the human": the pane is blocked.
 * idle_prompt is an idle reminder. A dialog the human answered (elicitation_complete,
 * elicitation_response) puts the turn back to work. Everything else (auth_success,
 * agent_completed, push_notification, plugin_notification, computer_use_exit,
 * auth_storage_failure, types not known yet) says nothing about the pane's state.
 */
export const BLOCKING_NOTIFICATION_TYPES: readonly string[] = ['permission_prompt', 'worker_permission_prompt', 'elicitation_dialog', 'elicitation_url_dialog', 'agent_needs_input'];
export const ANSWERED_NOTIFICATION_TYPES: readonly string[] = ['elicitation_complete', 'elicitation_response'];

function notificationState(input: NotificationInput): DisplayState | null {
  const type = input.notification_type;
  if (type === undefined) {
    // Older Claude Code sent only the message text.
    if (/permission/i.test(input.message ?? '')) return 'blocked';
    if (/waiting for your input/i.test(input.message ?? '')) return 'idle';
    return null;
  }
  if (BLOCKING_NOTIFICATION_TYPES.includes(type)) return 'blocked';
  if (ANSWERED_NOTIFICATION_TYPES.includes(type)) return 'working';
  if (type === 'idle_prompt') return 'idle';
  return null;
}

/**
 * A background task's end, as Claude Code reports it to the model (2.1.332): a turn of its own
 * whose prompt is `<task-notification><task-id>ID</task-id>...<status>completed|killed|failed</status>...`.
 */
export function parseTaskNotification(prompt: string | undefined): { taskId: string; status: string } | undefined {
  if (prompt === undefined || !prompt.includes('<task-notification>')) return undefined;
  const taskId = /<task-id>\s*([^<\s]+)\s*<\/task-id>/.exec(prompt)?.[1];
  const status = /<status>\s*([^<\s]+)\s*<\/status>/.exec(prompt)?.[1];
  if (taskId === undefined || status === undefined) return undefined;
  return { taskId, status };
}

/**
 * Maps one hook event to the server operations it implies, in order. An empty list means the
 * event carries nothing for Leasehold and the hook should exit at once.
 */
export function planHookActions(input: HookInput, settings: HookSettings = DEFAULT_HOOK_SETTINGS, context: HookContext = {}): HookOp[] {
  const ops = planEvent(input, settings, context);
  if (context.background === undefined || ops.length === 0) return ops;
  return inBackground(input.session_id, ops, context.background);
}

/**
 * A background session drives only the pane it is attached in, found afresh on every event
 * (attaching fires no hook); attached nowhere, it leaves its pane and drives no display. Never
 * the pane named by the LEASEHOLD_PANE it inherited from the terminal it left.
 */
function inBackground(session: string, ops: HookOp[], background: NonNullable<HookContext['background']>): HookOp[] {
  const forked = background.forkedFrom !== undefined ? { forked_from: background.forkedFrom } : {};
  if (background.attachAncestry === null) {
    // Its jobs' leases still follow what it reports (a release, a listing); no display, no pane.
    const leaseOps = ops.filter((op) => op.op !== 'bind_session' && op.op !== 'set_display');
    return [{ op: 'leave_pane', session_id: session, reason: "in Claude Code's background daemon, attached to no terminal", ...forked }, ...leaseOps];
  }
  const bind: HookOp = { op: 'bind_session', session_id: session, source: 'attach', pane_hint: { ancestry: background.attachAncestry }, ...forked };
  return [bind, ...ops.filter((op) => op.op !== 'bind_session')];
}

function planEvent(input: HookInput, settings: HookSettings, context: HookContext): HookOp[] {
  const session = input.session_id;
  switch (input.hook_event_name) {
    case 'SessionStart': {
      const paneHint: PaneHint = { ancestry: context.ancestry ?? [] };
      if (context.envPane !== undefined && context.envPane !== '') paneHint.env_pane = context.envPane;
      const bind: HookOp = { op: 'bind_session', session_id: session, pane_hint: paneHint };
      if (input.source !== undefined) bind.source = input.source;
      if (input.cwd !== undefined) bind.cwd = input.cwd;
      // compact fires mid-turn: the session is working, so only the binding is refreshed.
      if (input.source === 'compact') return [bind];
      return [bind, { op: 'set_display', session_id: session, state: 'idle', reason: `session ${input.source ?? 'started'}` }];
    }
    case 'UserPromptSubmit': {
      const working: HookOp = { op: 'set_display', session_id: session, state: 'working', reason: 'prompt submitted' };
      const ended = parseTaskNotification(input.prompt);
      if (ended === undefined) return [working];
      // The task's end was observed by Claude Code itself: release now, with its status.
      return [
        { ...working, reason: `task ${ended.status} (task-notification)` },
        { op: 'release', session_id: session, job_ref: ended.taskId, end_reason: 'released', note: `task ${ended.status} (task-notification)`, observed_end: true },
      ];
    }
    case 'PermissionRequest':
      return [{ op: 'set_display', session_id: session, state: 'blocked', reason: `permission requested${input.tool_name ? ` for ${input.tool_name}` : ''}` }];
    case 'PostToolUseFailure':
      // The prompt was answered (denied or the tool failed): the turn goes on.
      return [{ op: 'set_display', session_id: session, state: 'working', reason: 'tool answered', if_state: 'blocked' }];
    case 'SubagentStart':
      // A background agent resumed by a message fires this again with the same agent_id and no
      // launch: the server re-acquires only for an agent this session already held a lease on.
      if (input.agent_id === undefined || input.agent_id === '') return [];
      return [{ ...acquire(session, input.agent_id, 'subagent', settings, input.agent_type, context), only_if_known: true }];
    case 'Notification': {
      const state = notificationState(input);
      if (state === null) return [];
      return [{ op: 'set_display', session_id: session, state, reason: `notification ${input.notification_type ?? input.message ?? ''}`.trim() }];
    }
    case 'PostToolUse': {
      // Any tool that ran after a permission prompt ends "blocked" at once.
      const back: HookOp = { op: 'set_display', session_id: session, state: 'working', reason: 'tool ran', if_state: 'blocked' };
      // A tool call inside a subagent is news that the agent works (its lease has no process to watch).
      const news: HookOp[] = input.agent_id !== undefined && input.agent_id !== '' ? [{ op: 'touch', session_id: session, job_ref: input.agent_id }] : [];
      return [...planPostToolUse(input, settings, context), ...news, back];
    }
    case 'Stop':
    case 'StopFailure':
      return planStop(input, settings);
    case 'SubagentStop':
      if (input.agent_id === undefined) return [];
      return [{ op: 'release', session_id: session, job_ref: input.agent_id, end_reason: 'released', note: 'the subagent stopped (SubagentStop)', observed_end: true }];
    case 'SessionEnd': {
      // /clear: background shells survive it (2.1.332) and the new session on this pane takes
      // them over at its SessionStart (source "clear"); nothing ends here.
      if (input.reason === 'clear') return [];
      const op: HookOp = { op: 'release_session', session_id: session };
      if (input.reason !== undefined) op.reason = input.reason;
      // The session left the pane: no display state of its own may stay behind.
      return [{ op: 'set_display', session_id: session, state: 'unknown', reason: `session ended (${input.reason ?? 'unknown'})` }, op];
    }
  }
}
