// Every integrated terminal of this window is a pane on the server: registered with its shell
// pid and that process's start time when it opens (and again on a fresh server that does not
// know it), closed when the terminal closes.
import * as vscode from 'vscode';
import type { LeaseholdClient } from '../../client/client.ts';
import { paneNameFor, processStartTime } from './processStart.ts';
import { SHELL_COMMAND_LINE_MAX_LENGTH, type ShellExecutionReport } from '../../core/waitLease/wire.ts';

interface TrackedTerminal {
  name: string;
  pid?: number;
  startTime?: string;
  registered: boolean;
  /** Claude Code ran here and has since exited (seen through shell integration). */
  agentExited?: boolean;
}

/** How often a running command's output is reported as progress (at most). */
const OUTPUT_REPORT_INTERVAL_MS = 5_000;

/** A command line that starts Claude Code. */
const CLAUDE_COMMAND = /^\s*(?:\S*\/)?claude(?:\s|$)/;

export class TerminalPanes implements vscode.Disposable {
  private readonly tracked = new Map<vscode.Terminal, TrackedTerminal>();
  private readonly disposables: vscode.Disposable[] = [];
  private counter = 0;
  private executionReportsRefused = false;
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
      vscode.window.onDidStartTerminalShellExecution((event) => {
        this.agentRunning(event.terminal, event.execution.commandLine.value, true);
        // The inferred tier: the server names the pane's job by this command line and ends its
        // inferred lease with the exit code; new output counts as a sign of progress.
        this.reportExecution(event.terminal, { event: 'start', command_line: event.execution.commandLine.value.slice(0, SHELL_COMMAND_LINE_MAX_LENGTH) });
        void this.followOutput(event.terminal, event.execution);
      }),
      vscode.window.onDidEndTerminalShellExecution((event) => {
        this.agentRunning(event.terminal, event.execution.commandLine.value, false);
        this.reportExecution(event.terminal, { event: 'end', exit_code: event.exitCode ?? null });
      }),
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

  /** Best effort: a report lost to a restarting server only delays the inference by a tick. */
  private reportExecution(terminal: vscode.Terminal, report: ShellExecutionReport): void {
    const entry = this.tracked.get(terminal);
    const client = this.client();
    if (!entry?.registered || !client || this.executionReportsRefused) return;
    client.reportShellExecution(entry.name, report).catch((error: Error & { code?: string }) => {
      // A server started with --no-inference refuses them: stop sending until the next window.
      if (error.code === 'conflict') this.executionReportsRefused = true;
      else this.log.debug(`shell-integration report for ${entry.name}: ${error.message}`);
    });
  }

  /** Output as a sign of progress, reported at most once per OUTPUT_REPORT_INTERVAL_MS. */
  private async followOutput(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    let last = 0;
    try {
      for await (const _chunk of execution.read()) {
        const now = Date.now();
        if (now - last < OUTPUT_REPORT_INTERVAL_MS) continue;
        last = now;
        this.reportExecution(terminal, { event: 'output' });
      }
    } catch {
      // The stream ends with the terminal; nothing to report then.
    }
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
