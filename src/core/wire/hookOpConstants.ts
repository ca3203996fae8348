// The constants of the hook wire (src/core/wire/hookOps.ts) without its zod schemas, so the
// hook process (src/claude/hookInput.ts) can use them without loading zod: each module the
// hook loads is startup time added to Claude Code's turn. hookOps.ts re-exports all of them.

export const HOOK_JOB_TYPES = ['shell', 'subagent', 'monitor', 'workflow'] as const;
export type HookJobType = (typeof HOOK_JOB_TYPES)[number];

// 'unknown': what a session leaves behind when it ends (no session drives the pane any more).
export const HOOK_DISPLAY_STATES = ['working', 'blocked', 'idle', 'done', 'unknown'] as const;
export type HookDisplayState = (typeof HOOK_DISPLAY_STATES)[number];

/** No declared lease from a hook asks for more than this; the server's hard max clamps again. */
export const MAX_HOOK_TTL_MS = 24 * 60 * 60_000;

/** The evidence a Stop listing gives for a running task (sent back as provider-job evidence). */
export const RUNNING_EVIDENCE = 'listed as running in background_tasks';

/** Event ids as spool.newEventId makes them: filename-safe, time-ordered. */
export const HOOK_EVENT_ID_PATTERN = /^[0-9A-Za-z][0-9A-Za-z._-]{0,199}$/;

/** The longest free text an op may carry (descriptions, display reasons); the server cuts again. */
export const HOOK_TEXT_MAX = 4000;
/** The longest release note. */
export const HOOK_NOTE_MAX = 200;
/** The longest SessionStart source and task status. */
export const HOOK_LABEL_MAX = 100;
/** The longest cwd. */
export const HOOK_PATH_MAX = 4096;
/** The largest event body the server accepts (its request body limit, MAX_BODY_BYTES). */
export const HOOK_EVENT_MAX_BYTES = 64 * 1024;
