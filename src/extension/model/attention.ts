// When a pane needs its human: which notifications to raise for the panes as just read. One per
// pane per transition, never twice for the same state, none for the terminal the user is
// already looking at, and a pane that flaps is not re-announced within the debounce window.
// Pure (time comes in as a number); the extension shows what this returns.
import type { PaneReading } from './paneReading.ts';
import type { PaneStatus } from './paneStatus.ts';

export const ATTENTION_KINDS = ['blocked', 'stalled', 'expired', 'done'] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];
/** `done` (a Claude Code turn ended) is off by default: it fires after every turn. */
export const DEFAULT_ATTENTION_KINDS: readonly AttentionKind[] = ['blocked', 'stalled', 'expired'];
/** A pane that leaves and re-enters a state within this window is not announced again. */
export const ATTENTION_DEBOUNCE_MS = 10_000;

export interface AttentionInput {
  pane: string;
  label: string;
  reading: PaneReading;
  status: PaneStatus;
}

export interface AttentionNotice {
  kind: AttentionKind;
  pane: string;
  /** What it is about: the pane's state, or one lease in one state. */
  key: string;
  message: string;
  /** The lease a Release action applies to (stalled only: an ended lease cannot be released). */
  leaseId?: string;
  jobRef?: string;
}

interface PaneMemory {
  reading: PaneReading;
  /** Keys already announced (or passed over because the user was looking). */
  handled: Set<string>;
  /** Last announcement per kind, for the debounce. */
  lastAt: Map<AttentionKind, number>;
}

export function parseAttentionKinds(value: unknown): Set<AttentionKind> {
  if (!Array.isArray(value)) return new Set(DEFAULT_ATTENTION_KINDS);
  return new Set(value.filter((kind): kind is AttentionKind => (ATTENTION_KINDS as readonly string[]).includes(kind)));
}

export class AttentionTracker {
  private readonly memory = new Map<string, PaneMemory>();
  private readonly debounceMs: number;

  constructor(debounceMs = ATTENTION_DEBOUNCE_MS) {
    this.debounceMs = debounceMs;
  }

  /**
   * The panes as just read. Returns the notices to raise now. `focusedPane` is the terminal
   * the user is looking at: its news is taken as seen.
   */
  observe(inputs: readonly AttentionInput[], context: { nowMs: number; enabled: ReadonlySet<AttentionKind>; focusedPane?: string }): AttentionNotice[] {
    const notices: AttentionNotice[] = [];
    const seen = new Set<string>();
    for (const input of inputs) {
      seen.add(input.pane);
      const memory = this.memory.get(input.pane) ?? { reading: 'shell', handled: new Set<string>(), lastAt: new Map() };
      const candidates = this.candidates(input, memory);
      memory.reading = input.reading;
      this.memory.set(input.pane, memory);
      for (const notice of candidates) {
        if (memory.handled.has(notice.key)) continue;
        memory.handled.add(notice.key);
        if (!context.enabled.has(notice.kind) || context.focusedPane === input.pane) continue;
        const last = memory.lastAt.get(notice.kind);
        if (last !== undefined && context.nowMs - last < this.debounceMs) continue;
        memory.lastAt.set(notice.kind, context.nowMs);
        notices.push(notice);
      }
    }
    for (const pane of this.memory.keys()) if (!seen.has(pane)) this.memory.delete(pane);
    return notices;
  }

  private candidates(input: AttentionInput, memory: PaneMemory): AttentionNotice[] {
    const out: AttentionNotice[] = [];
    const { pane, label, reading, status } = input;
    // A state transition is a new occurrence: forget the old one so the next entry counts.
    for (const state of ['blocked', 'done'] as const) {
      if (memory.reading === state && reading !== state) for (const key of [...memory.handled]) if (key.startsWith(`${state}#`)) memory.handled.delete(key);
    }
    if (reading === 'blocked') out.push({ kind: 'blocked', pane, key: 'blocked#', message: `"${label}" needs you: Claude Code is waiting on a permission or input prompt.` });
    if (reading === 'done' && memory.reading !== 'done') out.push({ kind: 'done', pane, key: 'done#', message: `"${label}": Claude Code finished its turn.` });
    for (const line of status.leases) {
      if (line.state === 'unknown' || line.state === 'degraded') {
        const what = line.state === 'unknown' ? 'UNKNOWN (a possible stall)' : 'degraded (its target cannot be verified)';
        out.push({ kind: 'stalled', pane, key: `stalled:${line.leaseId}:${line.state}`, leaseId: line.leaseId, jobRef: line.jobRef, message: `"${label}": the wait-lease on ${line.jobRef} is ${what}.` });
      }
      if (line.state === 'ended' && line.endReason === 'expired') {
        out.push({ kind: 'expired', pane, key: `expired:${line.leaseId}`, jobRef: line.jobRef, message: `"${label}" is quiet and its wait-lease on ${line.jobRef} expired ${line.endedAgo ?? ''} ago: the job may have stalled.` });
      }
    }
    return out;
  }
}
