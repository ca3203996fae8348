// What Claude Code sends a command hook on stdin, and what Leasehold does about it.
//
// Shapes checked against the Claude Code hooks reference (https://code.claude.com/docs/en/hooks,
// mirrors of 2026-02 to 2026-09, Claude Code 2.1.x) and against recorded payloads in public
// projects; details and sources in docs/claude-code-facts.md. Every schema is loose: Claude
// Code adds fields release by release, and an unknown field must never make a hook fail.
//
// planHookActions is pure: input + settings + what the caller observed (pane hints, a pid)
// in, abstract server operations out. The `leasehold hook` command does the I/O.

import { z } from 'zod';
import { HOOK_JOB_TYPES, MAX_HOOK_TTL_MS, RUNNING_EVIDENCE } from '../core/wire/hookOps.ts';
import type { HookDisplayState, HookJobType, HookOp, PaneHint, ProcessHint, ReconcileRunning } from '../core/wire/hookOps.ts';

// ---------------------------------------------------------------------------------------
// Input schemas

const common = {
  session_id: z.string().min(1),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  permission_mode: z.string().optional(),
};

/** One entry of Stop's `background_tasks` (Claude Code >= 2.1.145). */
export const BackgroundTaskSchema = z.looseObject({
  id: z.string().min(1),
  /** Display label: shell, subagent, monitor, workflow, "MCP task", teammate, ... */
  type: z.string(),
  /** Claude Code lists only running or pending work; a finished task drops out of the list. */
  status: z.string(),
  description: z.string().optional(),
  command: z.string().optional(),
  agent_type: z.string().optional(),
});
export type BackgroundTask = z.infer<typeof BackgroundTaskSchema>;

export const SessionStartInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('SessionStart'),
  /** startup | resume | clear | compact */
  source: z.string().optional(),
  model: z.string().optional(),
});

export const UserPromptSubmitInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('UserPromptSubmit'),
  prompt: z.string().optional(),
});

export const NotificationInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('Notification'),
  message: z.string().optional(),
  title: z.string().optional(),
  /** permission_prompt | idle_prompt | auth_success | elicitation_dialog | ... */
  notification_type: z.string().optional(),
});

export const StopInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('Stop'),
  stop_hook_active: z.boolean().optional(),
  last_assistant_message: z.string().optional(),
  /** Absent before Claude Code 2.1.145: then nothing is known about background work. */
  background_tasks: z.array(BackgroundTaskSchema).optional(),
  session_crons: z.array(z.unknown()).optional(),
});

export const SubagentStopInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('SubagentStop'),
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
  agent_transcript_path: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
});

export const SessionEndInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('SessionEnd'),
  /** clear | logout | prompt_input_exit | bypass_permissions_disabled | other | ... */
  reason: z.string().optional(),
});

export const PostToolUseInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('PostToolUse'),
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()).optional(),
  /** Tool-specific; an object for Bash and Agent, but other tools may send a string. */
  tool_response: z.unknown().optional(),
  tool_use_id: z.string().optional(),
});

/** Bash's tool_input and tool_response, the parts that say "this went to the background". */
export const BashToolInputSchema = z.looseObject({
  command: z.string().optional(),
  description: z.string().optional(),
  run_in_background: z.boolean().optional(),
});
export const BashToolResponseSchema = z.looseObject({
  backgroundTaskId: z.string().min(1).optional(),
});

/** The Agent (formerly Task) tool's response when the subagent was launched in the background. */
export const AgentToolInputSchema = z.looseObject({
  description: z.string().optional(),
  subagent_type: z.string().optional(),
});
export const AgentToolResponseSchema = z.looseObject({
  status: z.string().optional(),
  agentId: z.string().min(1).optional(),
  isAsync: z.boolean().optional(),
});

export type SessionStartInput = z.infer<typeof SessionStartInputSchema>;
export type UserPromptSubmitInput = z.infer<typeof UserPromptSubmitInputSchema>;
export type NotificationInput = z.infer<typeof NotificationInputSchema>;
export type StopInput = z.infer<typeof StopInputSchema>;
export type SubagentStopInput = z.infer<typeof SubagentStopInputSchema>;
export type SessionEndInput = z.infer<typeof SessionEndInputSchema>;
export type PostToolUseInput = z.infer<typeof PostToolUseInputSchema>;

export type HookInput =
  | SessionStartInput
  | UserPromptSubmitInput
  | NotificationInput
  | StopInput
  | SubagentStopInput
  | SessionEndInput
  | PostToolUseInput;

const SCHEMAS = {
  SessionStart: SessionStartInputSchema,
  UserPromptSubmit: UserPromptSubmitInputSchema,
  Notification: NotificationInputSchema,
  Stop: StopInputSchema,
  SubagentStop: SubagentStopInputSchema,
  SessionEnd: SessionEndInputSchema,
  PostToolUse: PostToolUseInputSchema,
} as const;

export type HandledEvent = keyof typeof SCHEMAS;
export const HANDLED_EVENTS = Object.keys(SCHEMAS) as HandledEvent[];

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
  if (!(eventName in SCHEMAS)) return { kind: 'ignored', eventName };
  const candidate = typeof named === 'string' ? payload : { ...(payload as object), hook_event_name: eventName };
  const result = SCHEMAS[eventName as HandledEvent].safeParse(candidate);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { kind: 'invalid', eventName, message: `${issue.path.join('.') || 'input'}: ${issue.message}` };
  }
  return { kind: 'handled', input: result.data as HookInput };
}

// ---------------------------------------------------------------------------------------
// Settings

export const JOB_TYPES = HOOK_JOB_TYPES;
export type JobType = HookJobType;
export type DisplayState = HookDisplayState;
export { MAX_HOOK_TTL_MS, RUNNING_EVIDENCE };
export type { HookOp, PaneHint, ProcessHint, ReconcileRunning };

const MINUTE_MS = 60_000;

export const HookSettingsSchema = z.object({
  ttlMsByJobType: z.object({
    shell: z.number().int().positive().max(MAX_HOOK_TTL_MS),
    subagent: z.number().int().positive().max(MAX_HOOK_TTL_MS),
    monitor: z.number().int().positive().max(MAX_HOOK_TTL_MS),
    workflow: z.number().int().positive().max(MAX_HOOK_TTL_MS),
  }),
  /** What a finished turn shows: 'idle' (waiting for the user) or 'done'. */
  stopDisplayState: z.enum(['idle', 'done']),
});
export type HookSettings = z.infer<typeof HookSettingsSchema>;

export const DEFAULT_HOOK_SETTINGS: HookSettings = {
  ttlMsByJobType: { shell: 30 * MINUTE_MS, subagent: 60 * MINUTE_MS, monitor: 60 * MINUTE_MS, workflow: 60 * MINUTE_MS },
  stopDisplayState: 'idle',
};

/** Defaults overlaid with what the user set; a TTL that is not a positive bounded integer is refused. */
export function resolveHookSettings(overrides: { ttlMsByJobType?: Partial<HookSettings['ttlMsByJobType']>; stopDisplayState?: HookSettings['stopDisplayState'] } = {}): HookSettings {
  return HookSettingsSchema.parse({
    ttlMsByJobType: { ...DEFAULT_HOOK_SETTINGS.ttlMsByJobType, ...overrides.ttlMsByJobType },
    stopDisplayState: overrides.stopDisplayState ?? DEFAULT_HOOK_SETTINGS.stopDisplayState,
  });
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
    const parsed = BashToolResponseSchema.safeParse(response);
    const taskId = parsed.success ? parsed.data.backgroundTaskId : undefined;
    if (taskId === undefined) return []; // ran in the foreground and is already over
    const toolInput = BashToolInputSchema.safeParse(input.tool_input ?? {});
    const description = toolInput.success ? (toolInput.data.description ?? toolInput.data.command) : undefined;
    return [acquire(input.session_id, taskId, 'shell', settings, description, context)];
  }
  if (SUBAGENT_TOOLS.has(input.tool_name)) {
    const parsed = AgentToolResponseSchema.safeParse(response);
    if (!parsed.success || parsed.data.status !== 'async_launched' || parsed.data.agentId === undefined) return [];
    const toolInput = AgentToolInputSchema.safeParse(input.tool_input ?? {});
    const description = toolInput.success ? toolInput.data.description : undefined;
    return [acquire(input.session_id, parsed.data.agentId, 'subagent', settings, description, context)];
  }
  return [];
}

function acquire(sessionId: string, jobRef: string, jobType: JobType, settings: HookSettings, description: string | undefined, context: HookContext): HookOp {
  const op: HookOp = { op: 'acquire', session_id: sessionId, job_ref: jobRef, job_type: jobType, kind: 'declared', ttl_ms: settings.ttlMsByJobType[jobType] };
  if (description !== undefined) op.description = description;
  const pid = context.pidHints?.[jobRef];
  if (pid !== undefined) op.pid_hint = pid;
  return op;
}

function planStop(input: StopInput, settings: HookSettings): HookOp[] {
  const display: HookOp = { op: 'set_display', session_id: input.session_id, state: settings.stopDisplayState, reason: 'turn ended (Stop)' };
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

/** permission_prompt and elicitation_dialog wait on the human; idle_prompt is an idle reminder. */
function notificationState(input: NotificationInput): DisplayState | null {
  switch (input.notification_type) {
    case 'permission_prompt':
    case 'elicitation_dialog':
      return 'blocked';
    case 'idle_prompt':
      return 'idle';
    case undefined:
      // Older Claude Code sent only the message text.
      if (/permission/i.test(input.message ?? '')) return 'blocked';
      if (/waiting for your input/i.test(input.message ?? '')) return 'idle';
      return null;
    default:
      return null;
  }
}

/**
 * Maps one hook event to the server operations it implies, in order. An empty list means the
 * event carries nothing for Leasehold and the hook should exit at once.
 */
export function planHookActions(input: HookInput, settings: HookSettings = DEFAULT_HOOK_SETTINGS, context: HookContext = {}): HookOp[] {
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
    case 'UserPromptSubmit':
      return [{ op: 'set_display', session_id: session, state: 'working', reason: 'prompt submitted' }];
    case 'Notification': {
      const state = notificationState(input);
      if (state === null) return [];
      return [{ op: 'set_display', session_id: session, state, reason: `notification ${input.notification_type ?? input.message ?? ''}`.trim() }];
    }
    case 'PostToolUse':
      return planPostToolUse(input, settings, context);
    case 'Stop':
      return planStop(input, settings);
    case 'SubagentStop':
      if (input.agent_id === undefined) return [];
      return [{ op: 'release', session_id: session, job_ref: input.agent_id, end_reason: 'released' }];
    case 'SessionEnd': {
      const op: HookOp = { op: 'release_session', session_id: session };
      if (input.reason !== undefined) op.reason = input.reason;
      return [op];
    }
  }
}
