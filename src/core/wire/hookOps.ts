// The wire shape of one Claude Code hook invocation: `{id, ops}`, POSTed by `leasehold hook`
// to /api/v1/hook-events (or spooled when the server is down) and applied in order by the
// server. Shared by the planner (src/claude/hookInput.ts), which produces ops, and the server
// (src/server/hooks/hookEventService.ts), which validates and applies them. Pure: zod only.
//
// Strict objects: a hook and its server ship together, so an unknown key is a bug, refused
// rather than ignored. The hook itself imports only the types from here, and its constants
// from hookOpConstants.ts (no zod at hook run time; test/unit/claude/hookBundle.test.ts checks).
import { z } from 'zod';
import { HOOK_DISPLAY_STATES, HOOK_EVENT_ID_PATTERN, HOOK_JOB_TYPES, HOOK_LABEL_MAX, HOOK_NOTE_MAX, HOOK_PATH_MAX, HOOK_TEXT_MAX, MAX_HOOK_TTL_MS, RUNNING_EVIDENCE } from './hookOpConstants.ts';

export { HOOK_DISPLAY_STATES, HOOK_EVENT_ID_PATTERN, HOOK_JOB_TYPES, MAX_HOOK_TTL_MS, RUNNING_EVIDENCE };
export type { HookDisplayState, HookJobType } from './hookOpConstants.ts';

const SessionId = z.string().min(1).max(200);
const JobRef = z.string().min(1).max(200);
// Descriptions come from commands and prompts; the server cuts them to the lease's own limit.
const Text = z.string().max(HOOK_TEXT_MAX);

export const ProcessHintSchema = z.strictObject({
  pid: z.int().positive(),
  start_time: z.string().min(1).max(100),
});
export type ProcessHint = z.infer<typeof ProcessHintSchema>;

/** How the server finds the pane: an explicit LEASEHOLD_PANE, and the hook's ancestry (nearest first). */
export const PaneHintSchema = z.strictObject({
  env_pane: z.string().min(1).max(200).optional(),
  ancestry: z.array(ProcessHintSchema).max(256),
});
export type PaneHint = z.infer<typeof PaneHintSchema>;

export const ReconcileRunningSchema = z.strictObject({
  job_ref: JobRef,
  job_type: z.enum(HOOK_JOB_TYPES),
  ttl_ms: z.int().positive().max(MAX_HOOK_TTL_MS),
  description: Text.optional(),
  evidence: z.literal(RUNNING_EVIDENCE),
});
export type ReconcileRunning = z.infer<typeof ReconcileRunningSchema>;

export const BindSessionOpSchema = z.strictObject({
  op: z.literal('bind_session'),
  session_id: SessionId,
  source: z.string().max(HOOK_LABEL_MAX).optional(),
  cwd: z.string().max(HOOK_PATH_MAX).optional(),
  pane_hint: PaneHintSchema,
  /** The session this one was forked from (Claude Code's "move to background"): its live leases are handed over. */
  forked_from: SessionId.optional(),
});

/**
 * The session is in no terminal (Claude Code's background daemon, not attached): its binding
 * is dropped, so it never drives the pane it left. Its jobs' leases stay as they are (a
 * pid-held one goes on while its process runs).
 */
export const LeavePaneOpSchema = z.strictObject({
  op: z.literal('leave_pane'),
  session_id: SessionId,
  reason: z.string().max(HOOK_NOTE_MAX),
  forked_from: SessionId.optional(),
});

export const SetDisplayOpSchema = z.strictObject({
  op: z.literal('set_display'),
  session_id: SessionId,
  state: z.enum(HOOK_DISPLAY_STATES),
  reason: Text,
  /** Only when the pane currently shows this state (e.g. leave "blocked" once a tool ran). */
  if_state: z.enum(HOOK_DISPLAY_STATES).optional(),
});

export const AcquireOpSchema = z.strictObject({
  op: z.literal('acquire'),
  session_id: SessionId,
  job_ref: JobRef,
  job_type: z.enum(HOOK_JOB_TYPES),
  kind: z.literal('declared'),
  ttl_ms: z.int().positive().max(MAX_HOOK_TTL_MS),
  description: Text.optional(),
  /** The launched process, when the hook found it; the server then holds the lease on it. */
  pid_hint: ProcessHintSchema.optional(),
  /** Only for a job_ref this session held a lease on before (a resumed background agent). */
  only_if_known: z.literal(true).optional(),
});

export const ReconcileOpSchema = z.strictObject({
  op: z.literal('reconcile'),
  session_id: SessionId,
  /** Keep (renew) or acquire each, with the listing as evidence. */
  running: z.array(ReconcileRunningSchema).max(1000),
  /** Listed with a status that is not running or pending: release. */
  finished: z.array(z.strictObject({ job_ref: JobRef, status: z.string().max(HOOK_LABEL_MAX) })).max(1000),
  /** Release every other declared lease of this session: its task is no longer listed. */
  release_unlisted: z.literal(true),
});

export const ReleaseOpSchema = z.strictObject({
  op: z.literal('release'),
  session_id: SessionId,
  job_ref: JobRef,
  end_reason: z.literal('released'),
  /** Why, for the ledger (e.g. "task killed (task-notification)"). */
  note: z.string().max(HOOK_NOTE_MAX).optional(),
  /** The end itself was observed (SubagentStop, a task-notification), not inferred. */
  observed_end: z.literal(true).optional(),
});

export const ReleaseSessionOpSchema = z.strictObject({
  op: z.literal('release_session'),
  session_id: SessionId,
  reason: z.string().max(HOOK_NOTE_MAX).optional(),
});

/**
 * News of a running job from the session itself (a tool call inside a background subagent):
 * renews the session's live lease of it, as its observer; never acquires one.
 */
export const TouchOpSchema = z.strictObject({
  op: z.literal('touch'),
  session_id: SessionId,
  job_ref: JobRef,
});

export const HookOpSchema = z.discriminatedUnion('op', [
  BindSessionOpSchema,
  SetDisplayOpSchema,
  AcquireOpSchema,
  ReconcileOpSchema,
  ReleaseOpSchema,
  ReleaseSessionOpSchema,
  LeavePaneOpSchema,
  TouchOpSchema,
]);
export type HookOp = z.infer<typeof HookOpSchema>;
export type HookOpName = HookOp['op'];

/** One hook invocation: the id is assigned before the first delivery attempt and is the idempotency key. */
export const HookEventSchema = z.strictObject({
  id: z.string().regex(HOOK_EVENT_ID_PATTERN, 'id must be 1-200 letters, digits, ".", "_" or "-", not starting with one of the last three'),
  ops: z.array(HookOpSchema).max(100),
  /**
   * Wall-clock ms when the hook observed the event. A spooled event is replayed later; the
   * server judges its authority as of this time, never the replay's (a replay may release; it
   * never grants more than it would have when observed). Absent: treated as observed now.
   */
  observed_at: z.int().positive().optional(),
});
export type HookEvent = z.infer<typeof HookEventSchema>;

/** What happened to one op; `error` when the op could not be applied (the others still are). */
export const HookOpResultSchema = z.strictObject({
  op: z.string(),
  ok: z.boolean(),
  detail: z.record(z.string(), z.unknown()).optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
});
export type HookOpResult = z.infer<typeof HookOpResultSchema>;

export const HookEventResponseSchema = z.strictObject({
  id: z.string(),
  /** True when this id was applied before: nothing changed this time. */
  duplicate: z.boolean(),
  results: z.array(HookOpResultSchema),
});
export type HookEventResponse = z.infer<typeof HookEventResponseSchema>;
