// A shell's identity for pane registration: its pid plus its start time, in exactly the form
// the hook and the server's hold loop compare (Linux: /proc/<pid>/stat field 22; macOS:
// `ps -o lstart=`), so a recycled pid never binds a Claude session to the wrong terminal.
// Shares the one reader with them (src/server/observe/processInfo.ts is a leaf module).
import { readProcessInfo } from '../../server/observe/processInfo.ts';
import type { ProcessInfo } from '../../server/observe/processInfo.ts';

export function processStartTime(pid: number, read: (pid: number) => ProcessInfo | null = readProcessInfo): string | undefined {
  return read(pid)?.startTime;
}

/** A stable pane name for the n-th terminal of a window session: `vscode-<8 chars of session>-<n>`. */
export function paneNameFor(windowSession: string, n: number): string {
  const short = windowSession.replace(/[^a-zA-Z0-9]/g, '').slice(0, 8).toLowerCase() || 'window';
  return `vscode-${short}-${n}`;
}

/**
 * The window session that names this window's panes. VS Code for the web (code-server) reports
 * the placeholder `someValue.sessionId` in every window, so two windows would name their first
 * terminals alike and re-register (orphan) each other's panes: use a random id there instead.
 */
export function windowSessionOf(sessionId: string | undefined, randomId: () => string): string {
  return !sessionId || /^someValue\b/i.test(sessionId) ? randomId() : sessionId;
}
