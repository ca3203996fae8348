// Entry point. Activation only builds the context and returns: finding or starting the lease
// server, registering terminals and the first reads all happen in the background.
import type * as vscode from 'vscode';
import { registerCommands } from './commands.ts';
import { Ctx } from './context.ts';
import type { ServerState } from './model/serverStatus.ts';
import type { PaneStatus } from './model/paneStatus.ts';

/** What the extension exports (for the in-extension-host tests and other extensions). */
export interface LeaseholdExtensionApi {
  readonly runtimeDir: string;
  /** This window's id: its terminals carry it as LEASEHOLD_VSCODE_WINDOW. */
  readonly windowSession: string;
  readonly activationMs: number;
  serverState(): ServerState;
  serverUrl(): string | undefined;
  /** Resolves once the server state satisfies `predicate` (or rejects after timeoutMs). */
  whenServer(predicate: (state: ServerState) => boolean, timeoutMs?: number): Promise<ServerState>;
  /** The pane name registered for a terminal of this window. */
  paneNameOf(terminal: vscode.Terminal): string | undefined;
  /** The active terminal's status line as last rendered. */
  paneStatusText(): string | undefined;
  paneStatus(): PaneStatus | undefined;
  /** Re-reads endpoints and panes now. */
  refresh(): Promise<void>;
  onDidChangeData: vscode.Event<void>;
}

let ctx: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): LeaseholdExtensionApi {
  const started = performance.now();
  const current = new Ctx(context, registerCommands);
  ctx = current;
  current.start();
  const activationMs = performance.now() - started;
  current.log.info(`activated in ${activationMs.toFixed(1)} ms (runtime dir ${current.runtimeDir})`);
  return {
    runtimeDir: current.runtimeDir,
    windowSession: current.windowSession,
    activationMs,
    serverState: () => current.supervisor.state,
    serverUrl: () => current.client?.baseUrl,
    whenServer: (predicate, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        if (predicate(current.supervisor.state)) return resolve(current.supervisor.state);
        const timer = setTimeout(() => {
          subscription.dispose();
          reject(new Error(`server state is ${JSON.stringify(current.supervisor.state)} after ${timeoutMs} ms`));
        }, timeoutMs);
        const subscription = current.onDidChangeServerState((state) => {
          if (!predicate(state)) return;
          clearTimeout(timer);
          subscription.dispose();
          resolve(state);
        });
      }),
    paneNameOf: (terminal) => current.terminals.nameOf(terminal),
    paneStatusText: () => current.statusBar.currentStatus?.text,
    paneStatus: () => current.statusBar.currentStatus,
    refresh: () => current.refreshNow(),
    onDidChangeData: current.onDidChangeData,
  };
}

export async function deactivate(): Promise<void> {
  const current = ctx;
  ctx = undefined;
  if (!current) return;
  await current.terminals.closeAll();
  current.dispose();
}
