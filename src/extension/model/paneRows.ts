// One row per pane, as the Panes view, the status bar summary and the notifications all see it.
// Pure: the caller says which panes are this window's terminals and what they are called now.
import { paneLabels, paneReading, type PaneReading } from './paneReading.ts';
import { hasAgentSession, paneStatus, type LocalInstant, type NoticeState, type PaneSnapshot, type PaneStatus } from './paneStatus.ts';

export interface PaneRow {
  pane: string;
  label: string;
  reading: PaneReading;
  status: PaneStatus;
  /** One of this window's terminals. */
  local: boolean;
  windowId: string | null;
}

export interface LocalTerminalInfo {
  /** The terminal's current name. */
  name: string;
  cwd?: string;
  /** 1-based position in this window's terminal list. */
  position: number;
  /** Claude Code was seen exiting in it since its session was bound (shell integration). */
  agentExited?: boolean;
}

export function paneRows(snapshots: readonly PaneSnapshot[], now: LocalInstant, notices: NoticeState, local: (pane: string) => LocalTerminalInfo | undefined): PaneRow[] {
  const entries = snapshots.map((snapshot) => {
    const info = local(snapshot.pane.name);
    const session = hasAgentSession(snapshot.pane) && !info?.agentExited;
    const pane = session || snapshot.pane.source !== 'vscode' ? snapshot.pane : { ...snapshot.pane, sessions: [] };
    const status = paneStatus({ ...snapshot, pane }, now, notices);
    return { snapshot, info, status, reading: paneReading(status, session) };
  });
  const labels = paneLabels(entries.map(({ snapshot, info }) => ({ pane: snapshot.pane.name, name: info?.name ?? snapshot.pane.title ?? undefined, cwd: info?.cwd, position: info?.position })));
  const rows = entries.map(({ snapshot, info, status, reading }) => ({
    pane: snapshot.pane.name,
    label: labels.get(snapshot.pane.name) ?? snapshot.pane.name,
    reading,
    status,
    local: info !== undefined,
    windowId: snapshot.pane.window_id ?? null,
  }));
  // This window's terminals in their tab order, then the rest by label.
  return rows.sort((a, b) => Number(b.local) - Number(a.local) || (local(a.pane)?.position ?? 0) - (local(b.pane)?.position ?? 0) || a.label.localeCompare(b.label));
}
