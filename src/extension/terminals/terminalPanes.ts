// Every integrated terminal of this window is a pane on the server: registered with its shell
// pid and that process's start time when it opens (and again on a fresh server that does not
// know it), closed when the terminal closes.
import * as vscode from 'vscode';
import type { LeaseholdClient } from '../../client/client.ts';
import { paneNameFor, processStartTime } from './processStart.ts';

interface TrackedTerminal {
  name: string;
  pid?: number;
  startTime?: string;
  registered: boolean;
  /** Claude Code ran here and has since exited (seen through shell integration). */
  agentExited?: boolean;
}

/** A command line that starts Claude Code. */
const CLAUDE_COMMAND = /^\s*(?:\S*\/)?claude(?:\s|$)/;

export class TerminalPanes implements vscode.Disposable {
  private readonly tracked = new Map<vscode.Terminal, TrackedTerminal>();
  private readonly disposables: vscode.Disposable[] = [];
  private counter = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly windowSession: string;
  private readonly log: vscode.LogOutputChannel;
  private readonly client: () => LeaseholdClient | undefined;

  constructor(windowSession: string, log: vscode.LogOutputChannel, client: () => LeaseholdClient | undefined) {
    this.windowSession = windowSession;
    this.log = log;
    this.client = client;
  }

  start(): void {
    this.disposables.push(
      vscode.window.onDidOpenTerminal((terminal) => void this.track(terminal)),
      vscode.window.onDidCloseTerminal((terminal) => void this.untrack(terminal)),
      // Its row must not keep an agent state after Claude Code exits: the pane is a shell again.
      vscode.window.onDidStartTerminalShellExecution((event) => this.agentRunning(event.terminal, event.execution.commandLine.value, true)),
      vscode.window.onDidEndTerminalShellExecution((event) => this.agentRunning(event.terminal, event.execution.commandLine.value, false)),
    );
    for (const terminal of vscode.window.terminals) void this.track(terminal);
  }

  nameOf(terminal: vscode.Terminal | undefined): string | undefined {
    return terminal ? this.tracked.get(terminal)?.name : undefined;
  }

  agentExited(terminal: vscode.Terminal): boolean {
    return this.tracked.get(terminal)?.agentExited === true;
  }

  private agentRunning(terminal: vscode.Terminal, commandLine: string, running: boolean): void {
    const entry = this.tracked.get(terminal);
    if (!entry || !CLAUDE_COMMAND.test(commandLine)) return;
    entry.agentExited = !running;
    this.changed.fire();
  }

  terminalOf(paneName: string): vscode.Terminal | undefined {
    for (const [terminal, entry] of this.tracked) if (entry.name === paneName) return terminal;
    return undefined;
  }

  names(): string[] {
    return [...this.tracked.values()].map((entry) => entry.name);
  }

  /** A new server run: register the terminals it does not know (re-registering would orphan their leases). */
  async syncWith(client: LeaseholdClient): Promise<void> {
    let known = new Set<string>();
    try {
      known = new Set((await client.listPanes()).map((pane) => pane.name));
    } catch (error) {
      this.log.warn(`could not list panes: ${(error as Error).message}`);
    }
    await Promise.all(
      [...this.tracked.entries()].map(async ([terminal, entry]) => {
        if (known.has(entry.name)) {
          entry.registered = true;
          return;
        }
        await this.register(terminal, entry, client);
      }),
    );
    this.changed.fire();
  }

  /** Window closing: close this window's panes (best effort, bounded). */
  async closeAll(timeoutMs = 2_000): Promise<void> {
    const client = this.client();
    if (!client) return;
    const names = [...this.tracked.values()].filter((entry) => entry.registered).map((entry) => entry.name);
    await Promise.race([Promise.allSettled(names.map((name) => client.closePane(name))), new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
  }

  private async track(terminal: vscode.Terminal): Promise<void> {
    if (this.tracked.has(terminal)) return;
    const entry: TrackedTerminal = { name: paneNameFor(this.windowSession, ++this.counter), registered: false };
    this.tracked.set(terminal, entry);
    this.changed.fire();
    const pid = await Promise.race([terminal.processId, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000))]);
    if (pid !== undefined) {
      entry.pid = pid;
      entry.startTime = processStartTime(pid);
    }
    const client = this.client();
    if (client && this.tracked.get(terminal) === entry) await this.register(terminal, entry, client);
  }

  private async register(terminal: vscode.Terminal, entry: TrackedTerminal, client: LeaseholdClient): Promise<void> {
    try {
      await client.registerPane({
        name: entry.name,
        source: 'vscode',
        ...(entry.pid !== undefined ? { shell_pid: entry.pid } : {}),
        ...(entry.startTime !== undefined ? { shell_start_time: entry.startTime } : {}),
        window_id: this.windowSession,
        title: terminal.name.slice(0, 200),
      });
      entry.registered = true;
      this.log.info(`registered terminal "${terminal.name}" as pane ${entry.name} (shell pid ${entry.pid ?? 'unknown'}, start ${entry.startTime ?? 'unknown'})`);
      this.changed.fire();
    } catch (error) {
      this.log.warn(`could not register terminal "${terminal.name}" as pane ${entry.name}: ${(error as Error).message}`);
    }
  }

  private async untrack(terminal: vscode.Terminal): Promise<void> {
    const entry = this.tracked.get(terminal);
    if (!entry) return;
    this.tracked.delete(terminal);
    this.changed.fire();
    const client = this.client();
    if (!client || !entry.registered) return;
    try {
      await client.closePane(entry.name);
      this.log.info(`closed pane ${entry.name}`);
    } catch (error) {
      this.log.warn(`could not close pane ${entry.name}: ${(error as Error).message}`);
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
    this.changed.dispose();
  }
}
