// Where a user's lease server keeps its data and its runtime files. Clients (extension, CLI,
// hooks) find the server through the runtime dir's discovery file.
import { homedir, platform } from 'node:os';
import { join } from 'node:path';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LEASEHOLD_DATA_DIR) return env.LEASEHOLD_DATA_DIR;
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Leasehold');
  if (platform() === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'Leasehold');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'leasehold');
}

export function defaultRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LEASEHOLD_RUNTIME_DIR) return env.LEASEHOLD_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'leasehold');
  return join(homedir(), '.leasehold', 'run');
}

export const runtimeFiles = {
  discovery: (runtimeDir: string) => join(runtimeDir, 'server.json'),
  token: (runtimeDir: string) => join(runtimeDir, 'token'),
  spool: (runtimeDir: string) => join(runtimeDir, 'spool'),
  hookLog: (runtimeDir: string) => join(runtimeDir, 'hook.log'),
  serverLog: (runtimeDir: string) => join(runtimeDir, 'server.log'),
  lock: (dataDir: string) => join(dataDir, 'server.lock'),
  /** This install's machine id (team mode ownership): in the data dir on SQLite, the runtime dir on PostgreSQL. */
  machineId: (dir: string) => join(dir, 'machine-id'),
  /**
   * Present while a session's pane reads blocked (a permission prompt or a dialog): the hook of
   * a plain tool call looks for it, and only then asks the server to take the pane back to
   * working, so every other tool call costs a file check, not a server event.
   */
  blockedMarker: (runtimeDir: string, session: string) => join(runtimeDir, 'blocked', windowFileName(session)),
  /** When a subagent's tool calls were last sent as news (its mtime): at most one server event per agent per NEWS_INTERVAL. */
  agentNews: (runtimeDir: string, session: string, agent: string) => join(runtimeDir, 'news', `${windowFileName(session)}.${windowFileName(agent)}`),
  /** One VS Code window's hook settings (its leasehold.hookTtl.*), read by the hooks its terminals run. */
  windowHookSettings: (runtimeDir: string, window: string) => join(runtimeDir, 'windows', `${windowFileName(window)}.hook-settings.json`),
};

/** A window id as a file name: no path separators or dots to climb with, bounded length. */
export function windowFileName(window: string): string {
  return window.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128) || '_';
}
