// What the server status item and the views say about the lease server, and what to do.
export type ServerState =
  | { kind: 'starting'; detail: string }
  | { kind: 'running'; url: string; pid: number; version: string; storage: string; adopted: boolean }
  | { kind: 'restarting'; attempt: number; delayMs: number; lastError: string }
  | { kind: 'failed'; message: string; action: 'openLog' | 'configureRuntime' }
  | { kind: 'stopped' };

export interface ServerStatusView {
  text: string;
  tooltip: string;
  /** Command the item runs when clicked. */
  command: 'leasehold.showLog' | 'leasehold.restartServer' | 'leasehold.openRuntimeSetting';
  attention: 'none' | 'warning' | 'error';
  /** Context key value for views' welcome content. */
  contextKey: 'starting' | 'running' | 'down';
}

export function serverStatusView(state: ServerState): ServerStatusView {
  switch (state.kind) {
    case 'starting':
      return { text: '$(sync~spin) Leasehold', tooltip: `Leasehold: ${state.detail}`, command: 'leasehold.showLog', attention: 'none', contextKey: 'starting' };
    case 'running':
      return {
        text: '$(pulse) Leasehold',
        tooltip: `Leasehold lease server ${state.version} at ${state.url} (pid ${state.pid}, ${state.storage}${state.adopted ? ', shared with another window or started outside VS Code' : ', started by this window'}). Click for the log.`,
        command: 'leasehold.showLog',
        attention: 'none',
        contextKey: 'running',
      };
    case 'restarting':
      return {
        text: '$(sync~spin) Leasehold: restarting',
        tooltip: `The lease server stopped (${state.lastError}). Restart attempt ${state.attempt} in ${Math.ceil(state.delayMs / 1000)} s. Click for the log.`,
        command: 'leasehold.showLog',
        attention: 'warning',
        contextKey: 'down',
      };
    case 'failed':
      return {
        text: '$(error) Leasehold: server down',
        tooltip: `${state.message}\nClick to ${state.action === 'configureRuntime' ? 'set leasehold.serverRuntime' : 'restart it (the log is in Leasehold: Show Log)'}.`,
        command: state.action === 'configureRuntime' ? 'leasehold.openRuntimeSetting' : 'leasehold.restartServer',
        attention: 'error',
        contextKey: 'down',
      };
    case 'stopped':
      return { text: '$(debug-stop) Leasehold', tooltip: 'Leasehold: not connected. Click to restart the server.', command: 'leasehold.restartServer', attention: 'warning', contextKey: 'down' };
  }
}
