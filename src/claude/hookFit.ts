// Cuts a planned hook event to what the server accepts (src/core/wire/hookOps.ts), so an
// over-long field never costs the whole event: a background command of 10,000 characters, a
// Stop whose task text runs past the limit, or a listing whose body passes the server's 64 KiB
// would otherwise be refused (400/413) and lose the display change and the reconcile with it.
// Only free text is cut (descriptions, reasons, notes, labels); ids are never changed, and no
// list is shortened (a shortened Stop listing would release the leases left out).
import { HOOK_EVENT_MAX_BYTES, HOOK_LABEL_MAX, HOOK_NOTE_MAX, HOOK_PATH_MAX, HOOK_TEXT_MAX } from '../core/wire/hookOpConstants.ts';
import type { HookEvent, HookOp } from '../core/wire/hookOps.ts';

/** `text` in at most `max` UTF-16 units (zod's measure), ending in "…" when cut; never splits a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

function fitOp(op: HookOp, cut: string[]): HookOp {
  const note = (field: string) => cut.push(`${op.op}.${field}`);
  switch (op.op) {
    case 'bind_session': {
      const next = { ...op };
      if (next.source !== undefined && next.source.length > HOOK_LABEL_MAX) (next.source = cutText(next.source, HOOK_LABEL_MAX)), note('source');
      // A cut path would name another directory: leave it out instead.
      if (next.cwd !== undefined && next.cwd.length > HOOK_PATH_MAX) delete next.cwd, note('cwd');
      return next;
    }
    case 'set_display':
      if (op.reason.length <= HOOK_TEXT_MAX) return op;
      note('reason');
      return { ...op, reason: cutText(op.reason, HOOK_TEXT_MAX) };
    case 'acquire':
      if (op.description === undefined || op.description.length <= HOOK_TEXT_MAX) return op;
      note('description');
      return { ...op, description: cutText(op.description, HOOK_TEXT_MAX) };
    case 'reconcile':
      return {
        ...op,
        running: op.running.map((task) => {
          if (task.description === undefined || task.description.length <= HOOK_TEXT_MAX) return task;
          note('running.description');
          return { ...task, description: cutText(task.description, HOOK_TEXT_MAX) };
        }),
        finished: op.finished.map((task) => {
          if (task.status.length <= HOOK_LABEL_MAX) return task;
          note('finished.status');
          return { ...task, status: cutText(task.status, HOOK_LABEL_MAX) };
        }),
      };
    case 'release':
      if (op.note === undefined || op.note.length <= HOOK_NOTE_MAX) return op;
      note('note');
      return { ...op, note: cutText(op.note, HOOK_NOTE_MAX) };
    case 'touch':
      return op;
    case 'release_session':
    case 'leave_pane':
      if (op.reason === undefined || op.reason.length <= HOOK_NOTE_MAX) return op;
      note('reason');
      return { ...op, reason: cutText(op.reason, HOOK_NOTE_MAX) };
  }
}

function bodyBytes(event: HookEvent): number {
  return Buffer.byteLength(JSON.stringify(event));
}

/** Shortens every description of the event's ops to at most `max` (descriptions are cosmetic). */
function withDescriptionsAtMost(event: HookEvent, max: number): HookEvent {
  return {
    ...event,
    ops: event.ops.map((op) => {
      if (op.op === 'acquire' && op.description !== undefined && op.description.length > max) return { ...op, description: cutText(op.description, max) };
      if (op.op === 'reconcile') {
        return { ...op, running: op.running.map((task) => (task.description !== undefined && task.description.length > max ? { ...task, description: cutText(task.description, max) } : task)) };
      }
      return op;
    }),
  };
}

/** The event cut to the server's limits, and which fields were cut (for the hook log). */
export function fitHookEvent(event: HookEvent, maxBytes: number = HOOK_EVENT_MAX_BYTES): { event: HookEvent; cut: string[] } {
  const cut: string[] = [];
  let fitted: HookEvent = { ...event, ops: event.ops.map((op) => fitOp(op, cut)) };
  // Over the body limit: halve the descriptions until it fits (down to none at all).
  for (let max = HOOK_TEXT_MAX; bodyBytes(fitted) > maxBytes && max > 1; max = Math.floor(max / 2)) {
    fitted = withDescriptionsAtMost(fitted, Math.floor(max / 2));
    if (!cut.includes('body')) cut.push('body');
  }
  return { event: fitted, cut };
}
