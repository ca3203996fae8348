// Zod schemas of the wait-lease wire shapes (REST /api/v1, MCP, CLI JSON). snake_case on the
// wire; strict objects so an unknown key is refused rather than silently ignored. Fields that
// consumers read for decisions (reason codes, kind, disposition) are plain strings on purpose:
// a newer server may add values, and consumers must degrade safely (reasons.ts, jobType.ts)
// rather than fail to parse.
import { MAX_STORED_INT } from '../wire/validate.ts';
import { z } from 'zod';
import { BASE_JOB_TYPES, LEASE_KINDS, OTHER_NAME_PATTERN } from './jobType.ts';
import { DESCRIPTION_MAX_LENGTH, JOB_REF_MAX_LENGTH, RELEASE_NOTE_MAX_LENGTH } from './lease.ts';
import { TEARDOWN_LEASE_STATES } from './teardown.ts';

const WallMs = z.int().positive().describe('absolute wall-clock time, ms since the Unix epoch');
const TtlMs = z.int().positive().describe('time to live in whole milliseconds; mandatory, no open-ended waits');
const NonNegativeMs = z.int().nonnegative();

export const PaneNameSchema = z.string().min(1).max(200);
export const JobRefSchema = z.string().min(1).max(JOB_REF_MAX_LENGTH);
export const LeaseIdSchema = z.string().min(1).max(200);
export const TokenSchema = z.string().min(1).max(200);

export const JobTypeSchema = z
  .union([z.enum(BASE_JOB_TYPES), z.string().regex(new RegExp(`^other:${OTHER_NAME_PATTERN.source.slice(1)}`))])
  .describe('enforced job type: one of the base types, or other:<name> with a short lowercase name; omitted means other');
export const LeaseKindSchema = z.enum(LEASE_KINDS).describe('declared (default) or inferred');
export const ClampReasonSchema = z.enum(['hard_max', 'authorized_until', 'chain_cap']);

// ---- acquire -----------------------------------------------------------------------------------

export const AcquireRequestSchema = z.strictObject({
  pane: PaneNameSchema,
  job_ref: JobRefSchema,
  ttl_ms: TtlMs,
  job_type: JobTypeSchema.optional(),
  kind: LeaseKindSchema.optional(),
  authorized_until: WallMs.optional(),
  description: z.string().max(DESCRIPTION_MAX_LENGTH).optional(),
});

export const GrantResponseSchema = z.strictObject({
  lease_id: LeaseIdSchema,
  /** Returned once; the server keeps only its hash. */
  token: TokenSchema,
  expires_in_ms: NonNegativeMs,
  clamped_by: z.array(ClampReasonSchema),
});
export const AcquireResponseSchema = GrantResponseSchema;

// ---- renew -------------------------------------------------------------------------------------

export const PidEvidenceSchema = z.strictObject({
  pid: z.int().positive(),
  start_time: z.union([z.string().min(1), z.int().nonnegative()]),
});
export const ProviderJobEvidenceSchema = z.strictObject({
  provider_job: z.strictObject({
    id: z.string().min(1),
    state: z.enum(['running', 'finished', 'failed', 'unknown']),
    // Only the server's or the lease's named observer's time counts; a caller's is ignored.
    observed_at: WallMs.optional(),
  }),
});
/** What a client should send as renewal evidence (the server judges it with evidence.ts). */
export const RenewEvidenceSchema = z.union([PidEvidenceSchema, ProviderJobEvidenceSchema]);

export const RenewRequestSchema = z.strictObject({
  lease_id: LeaseIdSchema,
  token: TokenSchema,
  ttl_ms: TtlMs,
  // Passed through unparsed: a missing or bare-liveness evidence must be answered with
  // EVIDENCE_MISSING by the domain, not with a schema error.
  evidence: z
    .unknown()
    .optional()
    .describe("evidence about the lease's own target: its pinned {pid, start_time}, or {provider_job: {id}} naming its held provider job (the server observes it)"),
  authorized_until: WallMs.optional().describe('may only lower the ceiling'),
});
export const RenewResponseSchema = z.strictObject({
  lease_id: LeaseIdSchema,
  expires_in_ms: NonNegativeMs,
  clamped_by: z.array(ClampReasonSchema),
});

// ---- release, ceiling --------------------------------------------------------------------------

export const ReleaseRequestSchema = z.strictObject({
  lease_id: LeaseIdSchema,
  token: TokenSchema,
  reason: z.string().max(RELEASE_NOTE_MAX_LENGTH).optional().describe('why it was released; release is not completion'),
});
export const ReleaseResponseSchema = z.strictObject({ lease_id: LeaseIdSchema, end_reason: z.literal('released') });

export const LowerCeilingRequestSchema = z.strictObject({
  lease_id: LeaseIdSchema,
  token: TokenSchema,
  authorized_until: WallMs.describe('the new ceiling; must not be later than the current one, never cleared'),
});
export const LowerCeilingResponseSchema = z.strictObject({
  lease_id: LeaseIdSchema,
  authorized_until: WallMs,
  expires_in_ms: NonNegativeMs,
  state: z.enum(['active', 'degraded', 'unknown', 'ended']),
});

// ---- hold --------------------------------------------------------------------------------------

export const HoldPidTargetSchema = z.strictObject({
  pid: z.int().positive(),
  start_time: z.union([z.string().min(1), z.int().nonnegative()]).optional(),
});
export const HoldProviderJobTargetSchema = z.strictObject({
  provider_job: z
    .strictObject({
      id: z.string().min(1),
      command: z.array(z.string()).min(1).optional(),
      url: z.url().optional(),
    })
    .refine((job) => job.command !== undefined || job.url !== undefined, { message: 'provider_job needs a command or a url to poll' }),
});
export const HoldRequestSchema = z.strictObject({
  pane: PaneNameSchema,
  job_ref: JobRefSchema,
  ttl_ms: TtlMs,
  job_type: JobTypeSchema.optional(),
  description: z.string().max(DESCRIPTION_MAX_LENGTH).optional(),
  authorized_until: WallMs.optional(),
  target: z.union([HoldPidTargetSchema, HoldProviderJobTargetSchema]),
});
export const HoldResponseSchema = GrantResponseSchema;

// ---- views -------------------------------------------------------------------------------------

export const ObserverViewSchema = z.union([
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('pid'), pid: z.int().positive(), start_time: z.string() }),
  z.strictObject({ kind: z.literal('provider_job'), id: z.string(), command: z.array(z.string()).optional(), url: z.string().optional() }),
]);

export const LeaseViewSchema = z.strictObject({
  lease_id: LeaseIdSchema,
  pane: PaneNameSchema,
  generation: z.int().nonnegative(),
  job_ref: JobRefSchema,
  job_type: z.string(),
  kind: z.string().describe('declared or inferred; consumers treat any other value as inferred'),
  description: z.string().nullable(),
  state: z.enum(['active', 'degraded', 'unknown', 'ended']),
  state_reason: z.string().nullable(),
  valid: z.boolean(),
  remaining_ms: NonNegativeMs,
  expires_at: z.int(),
  authorized_until: z.int().nullable(),
  clamped_by: z.array(ClampReasonSchema),
  observer: ObserverViewSchema,
  renew_count: NonNegativeMs,
  last_evidence_at: z.int().nullable(),
  end_reason: z.enum(['released', 'expired', 'orphaned']).nullable(),
  expired_by: z.enum(['ttl', 'authorized_until', 'chain_cap']).nullable(),
  ended_at: z.int().nullable(),
  ended_ago_ms: NonNegativeMs.nullable(),
  running_ms: NonNegativeMs.optional().describe('time since the grant, on the lease clock'),
  last_progress_at: z.int().nullable().optional().describe('the last sign of progress seen (a renewal whose progress token changed: CPU time, a progress value), wall ms'),
  identical_renewals: NonNegativeMs.optional().describe('renewals in a row with the same evidence and no progress'),
  no_progress_since: z.int().nullable().optional().describe('escalated (NO_PROGRESS, page now) since, wall ms: K identical renewals in a row'),
  chain_started_at: z.int().optional().describe("the first grant of this lease's job-ref chain, wall ms"),
  chain_deadline: z.int().nullable().optional().describe('when the chain cap ends unattended authority for the chain (CHAIN_CAP_REACHED), wall ms; null: no cap'),
  // Added by the server's views (optional so core's leaseViewOf output still parses).
  session_id: z.string().nullable().optional().describe('the Claude Code session the lease was acquired for, if any'),
  notice_pending: z.boolean().optional().describe('the one-shot "lease expired N ago" notice is still to be shown (POST .../notice-consumed)'),
});

export const PaneViewSchema = z.strictObject({
  name: PaneNameSchema,
  generation: z.int().nonnegative(),
  display_state: z.string().describe('as reported; leases never change it'),
  leases: z.array(LeaseViewSchema),
  annotation: z.string().optional().describe('display text, e.g. "idle · awaiting bslbv9989 (npm test), 12m left"'),
  source: z.enum(['vscode', 'cli']).optional(),
  shell_pid: z.int().positive().nullable().optional(),
  shell_start_time: z.string().nullable().optional(),
  window_id: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  registered_at: z.int().optional(),
  sessions: z.array(z.string()).optional().describe('Claude Code sessions bound to the current generation'),
});

// ---- shell integration (the extension's reports, feeding the inferred tier) --------------------

export const SHELL_COMMAND_LINE_MAX_LENGTH = 2000;
export const ShellExecutionReportSchema = z
  .strictObject({
    event: z.enum(['start', 'end', 'output']).describe('a command started, ended, or printed output (a sign of progress)'),
    command_line: z.string().max(SHELL_COMMAND_LINE_MAX_LENGTH).optional().describe('the command line, on start'),
    exit_code: z.int().min(-2_147_483_648).max(2_147_483_647).nullable().optional().describe('the exit code, on end (null: not reported)'),
  })
  .describe("VS Code shell integration's report of a pane's command (onDidStartTerminalShellExecution / onDidEndTerminalShellExecution)");
export type ShellExecutionReport = z.infer<typeof ShellExecutionReportSchema>;

// ---- panes and sessions (server requests) ------------------------------------------------------

export const PaneSourceSchema = z.enum(['vscode', 'cli']);
export const PaneDisplayStateSchema = z.enum(['idle', 'working', 'blocked', 'done', 'unknown']);
export const SessionIdSchema = z.string().min(1).max(200);

export const RegisterPaneRequestSchema = z.strictObject({
  name: PaneNameSchema,
  source: PaneSourceSchema,
  shell_pid: z.int().positive().max(MAX_STORED_INT, `shell_pid must be a process id, at most ${MAX_STORED_INT}`).optional(),
  shell_start_time: z.union([z.string().min(1).max(100), z.int().nonnegative()]).optional(),
  window_id: z.string().max(200).optional(),
  title: z.string().max(200).optional(),
});
export const SetDisplayRequestSchema = z.strictObject({ state: PaneDisplayStateSchema });
export const BindSessionRequestSchema = z.strictObject({ session_id: SessionIdSchema });
export const SessionBindingSchema = z.strictObject({ session_id: SessionIdSchema, pane: PaneNameSchema, generation: z.int().positive() });
export const ReleaseAllRequestSchema = z.strictObject({ reason: z.string().max(RELEASE_NOTE_MAX_LENGTH).optional() });
export const ReleaseByOwnerRequestSchema = ReleaseAllRequestSchema;

export const VerdictReasonSchema = z.strictObject({
  code: z.string().describe('LEASE_STALE | EVIDENCE_MISSING | CHAIN_CAP_REACHED | OWNER_WINDOW_ENDED; an unknown code demands the strongest safe disposition'),
  lease_id: LeaseIdSchema,
  job_ref: JobRefSchema,
  detail: z.string(),
});

export const VerdictSchema = z
  .strictObject({
    pane: PaneNameSchema,
    generation: z.int().nonnegative(),
    display_state: z.string(),
    reading: z.string().describe('active | waiting | UNKNOWN ("quiet and no lease" is UNKNOWN, not idle)'),
    waiting: z.boolean(),
    waiting_basis: z.enum(['declared', 'inferred']).nullable(),
    leases: z.array(LeaseViewSchema),
    reasons: z.array(VerdictReasonSchema),
    disposition: z.string().describe('none | refuse_renewal | drain_and_park | reverify_then_page | page_immediately'),
    attention: z.strictObject({
      stall_alarm: z.enum(['suppress', 'extend_grace', 'normal']),
      page: z.enum(['no', 'if_unresolved', 'now']),
      summary: z.string(),
    }),
    last_progress_at: z.int().nullable().optional().describe('the last sign of progress seen for any valid lease (CPU time moved, new output, a progress value), wall ms; null: none seen'),
  })
  .describe('A pane verdict. A lease only ever suppresses a stall alarm; nothing here authorizes terminating anything.');

// ---- teardown check ----------------------------------------------------------------------------

export const TeardownCheckRequestSchema = z.strictObject({
  pane: PaneNameSchema,
  job_ref: JobRefSchema,
  job_heartbeat_age_ms: NonNegativeMs.nullable().describe("age of the job's own heartbeat, independent of the lease; null when none"),
  heartbeat_stale_after_ms: NonNegativeMs,
  quiet_for_ms: NonNegativeMs,
  policy_floor_ms: NonNegativeMs,
});
export const TeardownCheckResponseSchema = z.strictObject({
  allowed: z.boolean(),
  unmet: z.array(z.string()),
  lease: z.enum(TEARDOWN_LEASE_STATES),
});

// ---- ledger ------------------------------------------------------------------------------------

export const LedgerRowSchema = z
  .strictObject({
    lease_id: LeaseIdSchema,
    pane: PaneNameSchema,
    job_ref: JobRefSchema,
    job_type: z.string(),
    kind: z.string(),
    declared_ttl_ms: TtlMs,
    granted_at: z.int(),
    ended_at: z.int().nullable(),
    end_reason: z.enum(['released', 'expired', 'orphaned']).nullable(),
    release_note: z.string().nullable(),
    censoring: z.enum(['exact', 'right_censored', 'unknown']),
    measured_duration_ms: NonNegativeMs.nullable(),
  })
  .describe(
    'One wait-lease, recorded and never acted upon (no decision path reads the ledger). Declared TTLs are not trustworthy training data: operators inflate them to avoid pages. Only measured durations of released leases (censoring exact) are, and release is not completion: the release reason still matters. An expired row (right_censored) proves only "longer than the TTL".',
  );

export type AcquireRequest = z.infer<typeof AcquireRequestSchema>;
export type GrantResponse = z.infer<typeof GrantResponseSchema>;
export type RenewRequest = z.infer<typeof RenewRequestSchema>;
export type RenewResponse = z.infer<typeof RenewResponseSchema>;
export type ReleaseRequest = z.infer<typeof ReleaseRequestSchema>;
export type LowerCeilingRequest = z.infer<typeof LowerCeilingRequestSchema>;
export type HoldRequest = z.infer<typeof HoldRequestSchema>;
export type PaneViewWire = z.infer<typeof PaneViewSchema>;
export type VerdictWire = z.infer<typeof VerdictSchema>;
export type TeardownCheckRequest = z.infer<typeof TeardownCheckRequestSchema>;
export type TeardownCheckResponse = z.infer<typeof TeardownCheckResponseSchema>;
export type LedgerRowWire = z.infer<typeof LedgerRowSchema>;
export type LeaseViewWire = z.infer<typeof LeaseViewSchema>;
export type LowerCeilingResponse = z.infer<typeof LowerCeilingResponseSchema>;
export type ReleaseResponse = z.infer<typeof ReleaseResponseSchema>;
export type RegisterPaneRequest = z.infer<typeof RegisterPaneRequestSchema>;
export type SessionBindingWire = z.infer<typeof SessionBindingSchema>;
