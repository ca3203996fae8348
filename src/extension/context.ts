// The one object that owns what lives for the extension (log, views, status bar, terminal
// tracking, notifications, the registered commands) and what lives for one server run (the
// client, the event stream), after rust-analyzer's Ctx. The commands are a table handed in by
// extension.ts (as rust-analyzer's main.ts hands createCommands() to its Ctx), so this module
// never imports them and commands.ts may import this one. Nothing here blocks activation:
// start() runs in the background.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LeaseholdClient } from '../client/client.ts';
import type { EndpointView, TodoView } from '../core/wire/claims.ts';
import { writePrivateFile } from '../runtime/discovery.ts';
import { defaultRuntimeDir, runtimeFiles } from '../runtime/paths.ts';
import { unsafeRuntimeDir } from '../runtime/trust.ts';
import { cliLauncherScript } from './model/cliLauncher.ts';
import { AttentionTracker, parseAttentionKinds, type AttentionNotice } from './model/attention.ts';
import { parseScopeStatus, planHookSetup, type HookScope, type HookSetupPlan, type ScopeStatus } from './model/hookSetup.ts';
import { LEDGER_SCHEME } from './model/ledger.ts';
import { paneRows, type PaneRow } from './model/paneRows.ts';
import type { PaneSnapshot } from './model/paneStatus.ts';
import type { ServerState } from './model/serverStatus.ts';
import { serverStatusView } from './model/serverStatus.ts';
import { STALE_TERMINAL_ENV, resolveSettings, serverLaunchFrom, terminalEnvFrom, windowHookSettingsFrom, type ResolvedSettings } from './model/settings.ts';
import { runCli } from './server/cliRunner.ts';
import { LogTail } from './server/logTail.ts';
import { chooseServerRuntime, type RuntimeChoice } from './server/runtime.ts';
import type { EventStreamHandle } from '../client/eventStream.ts';
import { ServerSupervisor } from './server/supervisor.ts';
import { StatusBar, localNow } from './statusBar.ts';
import { windowSessionOf } from './terminals/processStart.ts';
import { TerminalPanes } from './terminals/terminalPanes.ts';
import { EndpointsTree } from './views/endpointsTree.ts';
import { FOCUS_PANE_COMMAND, PanesTree } from './views/panesTree.ts';
import { TodosTree } from './views/todosTree.ts';

/** One connection to one server process: dropped and rebuilt when the server changes. */
class ServerRun implements vscode.Disposable {
  readonly client: LeaseholdClient;
  readonly pid: number;
  private stream: EventStreamHandle | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private spoolPoll: NodeJS.Timeout | undefined;
  private disposed = false;
  private readonly ctx: Ctx;

  constructor(ctx: Ctx, client: LeaseholdClient, pid: number) {
    this.ctx = ctx;
    this.client = client;
    this.pid = pid;
  }

  start(): void {
    this.openStream();
    void this.ctx.terminals.syncWith(this.client).then(() => this.ctx.scheduleRefresh({ panes: true }));
    this.ctx.scheduleRefresh({ endpoints: true, panes: true, claims: true });
    // The hook spool's state in the server item's tooltip (quarantined entries, last error).
    const pollSpool = () => void this.client.status().then((status) => this.ctx.statusBar.showSpool(status.spool), () => undefined);
    pollSpool();
    this.spoolPoll = setInterval(pollSpool, 15_000);
  }

  private openStream(): void {
    if (this.disposed) return;
    this.stream = this.client.openEventStream({
      onOpen: () => {
        this.ctx.log.debug('event stream open');
        // Anything may have changed while the stream was down.
        this.ctx.scheduleRefresh({ endpoints: true, panes: true, claims: true });
      },
      onEvent: (event) => {
        this.ctx.log.trace(`event ${event.event} ${event.data}`);
        if (event.event === 'endpoint.changed') this.ctx.scheduleRefresh({ endpoints: true });
        else if (event.event === 'todo.changed') this.ctx.scheduleRefresh({ claims: true });
        else if (event.event === 'pane.changed' || event.event === 'lease.changed') this.ctx.scheduleRefresh({ panes: true });
      },
      onEnd: (reason) => {
        if (this.disposed) return;
        this.ctx.log.warn(reason);
        void this.ctx.supervisor.suspectDown(reason);
        this.reconnect = setTimeout(() => this.openStream(), 1_000);
      },
    });
  }

  dispose(): void {
    this.disposed = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    if (this.spoolPoll) clearInterval(this.spoolPoll);
    this.stream?.close();
  }
}

/** Registers the command table against a context (commands.ts's registerCommands). */
export type CommandRegistrar = (ctx: Ctx) => vscode.Disposable[];

/** This extension host can load node:sqlite (its Node version alone does not say so). */
function hostLoadsSqlite(): boolean {
  try {
    return typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('node:sqlite') !== undefined : false;
  } catch {
    return false;
  }
}

const HOOKS_OFFERED_KEY = 'leasehold.hooksOffered';

/** Closed windows leave their hook settings files behind; open ones rewrite theirs daily. */
const WINDOW_FILE_MAX_AGE_MS = 90 * 24 * 60 * 60_000;
const WINDOW_FILE_REWRITE_MS = 24 * 60 * 60_000;

function pruneOldFiles(dir: string, maxAgeMs: number): void {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    try {
      if (Date.now() - statSync(file).mtimeMs > maxAgeMs) rmSync(file, { force: true });
    } catch {
      // Gone already (another window pruned it).
    }
  }
}

/** Claude Code is here: its settings folder exists, or `claude` is on PATH. */
function claudeCodePresent(): boolean {
  if (existsSync(path.join(homedir(), '.claude'))) return true;
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, process.platform === 'win32' ? 'claude.exe' : 'claude')));
}

export class Ctx implements vscode.Disposable {
  readonly ext: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  readonly runtimeDir: string;
  readonly windowSession: string;
  readonly cliScript: string;
  readonly supervisor: ServerSupervisor;
  readonly terminals: TerminalPanes;
  readonly statusBar: StatusBar;
  readonly endpointsTree: EndpointsTree;
  readonly panesTree: PanesTree;
  readonly todosTree: TodosTree;
  /** The todos as last read, and when (performance.now(), for the local countdown). */
  todos: { todos: TodoView[]; readAtMs: number } | undefined;
  settings: ResolvedSettings;
  endpoints: EndpointView[] | undefined;
  readonly panes = new Map<string, PaneSnapshot>();
  private run: ServerRun | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private pendingRefresh = { endpoints: false, panes: false, claims: false };
  private readonly disposables: vscode.Disposable[] = [];
  private readonly logTail: LogTail;
  private readonly stateChanged = new vscode.EventEmitter<ServerState>();
  /** Fires on every server state change (tests wait on it). */
  readonly onDidChangeServerState = this.stateChanged.event;
  private readonly dataChanged = new vscode.EventEmitter<void>();
  /** Fires after endpoints or panes were re-read. */
  readonly onDidChangeData = this.dataChanged.event;
  private panesUnavailableLogged = false;
  /** The last ledger read (Show Lease Ledger), served read-only under LEDGER_SCHEME. */
  ledgerText = '';
  readonly ledgerChanged = new vscode.EventEmitter<vscode.Uri>();

  private readonly registerCommands: CommandRegistrar;
  readonly attention = new AttentionTracker();
  /** Notices raised (the in-extension-host tests read them). */
  readonly raisedNotices: AttentionNotice[] = [];

  constructor(ext: vscode.ExtensionContext, registerCommands: CommandRegistrar) {
    this.ext = ext;
    this.registerCommands = registerCommands;
    this.log = vscode.window.createOutputChannel('Leasehold', { log: true });
    this.runtimeDir = defaultRuntimeDir(process.env);
    this.windowSession = windowSessionOf(vscode.env.sessionId, randomUUID);
    this.cliScript = path.join(ext.extensionPath, 'dist', 'cli', 'leasehold.js');
    this.settings = this.readSettings();
    this.logTail = new LogTail(runtimeFiles.serverLog(this.runtimeDir), (line) => this.log.info(`[server] ${line}`));

    this.supervisor = new ServerSupervisor({
      runtimeDir: this.runtimeDir,
      cliScript: this.cliScript,
      launch: () => serverLaunchFrom(this.settings),
      chooseRuntime: () => this.chooseRuntime(),
      log: { info: (m) => this.log.info(m), warn: (m) => this.log.warn(m), error: (m) => this.log.error(m) },
      onState: (state, client) => this.onServerState(state, client),
    });
    this.terminals = new TerminalPanes(this.windowSession, this.log, () => this.client);
    this.statusBar = new StatusBar({
      activePane: () => this.terminals.nameOf(vscode.window.activeTerminal),
      rows: () => this.rows(),
      noticeShown: (leaseId) => {
        const client = this.client;
        if (client) void client.consumeExpiredNotice(leaseId).catch((error: Error) => this.log.warn(`notice-consumed for ${leaseId}: ${error.message}`));
      },
    });
    this.endpointsTree = new EndpointsTree({ endpoints: () => this.endpoints, client: () => this.client });
    this.panesTree = new PanesTree({ rows: () => this.rows(), hooksMissing: () => this.hooksState === 'missing' });
    this.todosTree = new TodosTree({
      todos: () => this.todos,
      events: (todoId) => {
        const client = this.client;
        return client ? client.todoEvents(todoId) : Promise.resolve([]);
      },
    });
    this.disposables.push(this.stateChanged, this.dataChanged);
  }

  get client(): LeaseholdClient | undefined {
    return this.run?.client;
  }

  /** Everything that is not on the activation path. */
  start(): void {
    const ext = this.ext;
    const endpointsView = vscode.window.createTreeView('leasehold.endpoints', { treeDataProvider: this.endpointsTree, showCollapseAll: true });
    const panesView = vscode.window.createTreeView('leasehold.panes', { treeDataProvider: this.panesTree });
    const todosView = vscode.window.createTreeView('leasehold.todos', { treeDataProvider: this.todosTree, showCollapseAll: true });
    this.disposables.push(
      ...this.registerCommands(this),
      vscode.commands.registerCommand(FOCUS_PANE_COMMAND, (arg?: { pane?: string }) => this.focusPane(arg?.pane)),
      this.ledgerChanged,
      vscode.workspace.registerTextDocumentContentProvider(LEDGER_SCHEME, { onDidChange: this.ledgerChanged.event, provideTextDocumentContent: () => this.ledgerText }),
      endpointsView,
      panesView,
      todosView,
      this.todosTree,
      this.endpointsTree,
      this.panesTree,
      this.statusBar,
      this.terminals,
      this.terminals.onDidChange(() => this.panesChanged()),
      vscode.window.onDidChangeActiveTerminal(() => this.statusBar.update()),
      vscode.window.onDidStartTerminalShellExecution((event) => {
        if (event.terminal === vscode.window.activeTerminal) this.statusBar.movedOn(this.terminals.nameOf(event.terminal));
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (!event.affectsConfiguration('leasehold')) return;
        this.settings = this.readSettings();
        this.applyTerminalEnv();
        if (event.affectsConfiguration('leasehold.hookTtl')) {
          this.log.info('hook TTLs changed: the next hook event in every terminal of this window uses them, open terminals included');
        }
        if (event.affectsConfiguration('leasehold.dataDir') || event.affectsConfiguration('leasehold.databaseUrl') || event.affectsConfiguration('leasehold.identity') || event.affectsConfiguration('leasehold.hardMaxTtl') || event.affectsConfiguration('leasehold.hardMaxTtlByJobType') || event.affectsConfiguration('leasehold.serverRuntime')) {
          void vscode.window.showInformationMessage('Leasehold: server settings changed. They apply when the lease server restarts.', 'Restart Server').then((choice) => {
            if (choice) void vscode.commands.executeCommand('leasehold.restartServer');
          });
        }
      }),
    );
    // A local re-draw of the Panes view's rows while it shows countdowns (no server request).
    const treeTick = setInterval(() => {
      if (panesView.visible && [...this.panes.values()].some((snapshot) => snapshot.pane.leases.some((lease) => lease.state !== 'ended'))) this.panesTree.redrawCountdowns();
    }, 15_000);
    // Rows follow each terminal's current name and folder (VS Code fires no event for either).
    let lastNames = '';
    const nameTick = setInterval(() => {
      const names = JSON.stringify(vscode.window.terminals.map((terminal) => [terminal.name, terminal.shellIntegration?.cwd?.fsPath]));
      if (names === lastNames) return;
      lastNames = names;
      this.panesChanged();
    }, 1_000);
    this.disposables.push({ dispose: () => clearInterval(nameTick) });
    this.disposables.push({ dispose: () => clearInterval(treeTick) });
    // The Todos view's lease countdowns: a local redraw of those rows each second while one is on screen.
    const todosTick = setInterval(() => {
      if (todosView.visible) this.todosTree.redrawCountdowns();
    }, 1_000);
    this.disposables.push({ dispose: () => clearInterval(todosTick) });
    const windowFileTick = setInterval(() => this.writeWindowHookSettings(), WINDOW_FILE_REWRITE_MS);
    this.disposables.push({ dispose: () => clearInterval(windowFileTick) });

    this.applyTerminalEnv();
    this.terminals.start();
    this.logTail.start();
    ext.subscriptions.push(this);
    void this.supervisor.ensureRunning();
    // In the background: repair hooks an update broke; offer them once on a first run.
    setTimeout(() => void this.checkHooks({ offer: true }).catch((error: Error) => this.log.warn(`hook check: ${error.message}`)), 500);
    setTimeout(() => void this.installCliLauncher().catch((error: Error) => this.log.warn(`leasehold command for terminals: ${error.message}`)), 500);
  }

  private readSettings(): ResolvedSettings {
    const config = vscode.workspace.getConfiguration('leasehold');
    const settings = resolveSettings((key) => config.get(key));
    for (const problem of settings.problems) this.log.warn(problem);
    return settings;
  }

  /** Terminal env (where the server is, which window) and this window's hook settings file. */
  private applyTerminalEnv(): void {
    const collection = this.ext.environmentVariableCollection;
    collection.description = 'Leasehold: where the lease server runs (runtime dir, no secret), which VS Code window the terminal is in (for this window\'s hook TTLs), and the `leasehold` command on PATH.';
    for (const name of STALE_TERMINAL_ENV) if (collection.get(name)) collection.delete(name);
    for (const [name, value] of Object.entries(terminalEnvFrom(this.runtimeDir, this.windowSession))) {
      if (collection.get(name)?.value !== value) collection.replace(name, value);
    }
    this.writeWindowHookSettings();
  }

  private writeWindowHookSettings(): void {
    // Never into a runtime dir another user could read or swap (the server refuses it too).
    const unsafe = unsafeRuntimeDir(this.runtimeDir);
    if (unsafe) {
      this.log.warn(`hook TTLs not written for this window's terminals: ${unsafe}`);
      return;
    }
    const file = runtimeFiles.windowHookSettings(this.runtimeDir, this.windowSession);
    try {
      writePrivateFile(file, `${JSON.stringify(windowHookSettingsFrom(this.settings), null, 2)}\n`);
      pruneOldFiles(path.dirname(file), WINDOW_FILE_MAX_AGE_MS);
    } catch (error) {
      this.log.warn(`hook TTLs not written to ${file}: ${(error as Error).message}`);
    }
  }

  private chooseRuntime(): Promise<RuntimeChoice> {
    return chooseServerRuntime({
      execPath: process.execPath,
      nodeVersion: process.versions.node,
      isElectron: Boolean(process.versions.electron),
      hostHasSqlite: hostLoadsSqlite(),
      setting: this.settings.serverRuntime,
      versionOf: (command) =>
        new Promise((resolve) => {
          execFile(command, ['-p', "require('node:sqlite') && process.versions.node"], { timeout: 5_000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }, (error, stdout) => resolve(error ? undefined : stdout.trim()));
        }),
      findNodeOnPath: () =>
        new Promise((resolve) => {
          const finder = process.platform === 'win32' ? 'where' : 'which';
          execFile(finder, ['node'], { timeout: 5_000 }, (error, stdout) => resolve(error ? undefined : stdout.split(/\r?\n/)[0]?.trim() || undefined));
        }),
    });
  }

  /**
   * Puts `leasehold` on the PATH of this window's terminals (appended: a `leasehold` the user
   * installed themselves comes first), as a launcher for the bundled CLI on the chosen runtime.
   */
  private async installCliLauncher(): Promise<void> {
    const choice = await this.cliRuntime();
    if (!choice.ok) return;
    const script = cliLauncherScript(choice.runtime, this.cliScript, process.platform);
    if (!script) return;
    const binDir = path.join(this.ext.globalStorageUri.fsPath, 'bin');
    mkdirSync(binDir, { recursive: true, mode: 0o700 });
    const file = path.join(binDir, 'leasehold');
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, script, { mode: 0o700 });
    renameSync(tmp, file);
    this.ext.environmentVariableCollection.append('PATH', `${path.delimiter}${binDir}`);
    this.log.info(`terminals opened from now on have \`leasehold\` (${file})`);
  }

  /** The runtime the CLI runs on: the server's, or a fresh choice. */
  async cliRuntime(): Promise<RuntimeChoice> {
    const runtime = this.supervisor.runtime;
    return runtime ? { ok: true, runtime } : this.chooseRuntime();
  }

  private onServerState(state: ServerState, client: LeaseholdClient | undefined): void {
    this.statusBar.showServer(state);
    void vscode.commands.executeCommand('setContext', 'leasehold.server', serverStatusView(state).contextKey);
    if (state.kind === 'running' && client) {
      if (!this.run || this.run.pid !== state.pid || this.run.client.baseUrl !== client.baseUrl) {
        this.run?.dispose();
        this.run = new ServerRun(this, client, state.pid);
        this.run.start();
      }
    } else if (state.kind !== 'running' && this.run) {
      this.run.dispose();
      this.run = undefined;
    }
    if (state.kind === 'failed') {
      const buttons = state.action === 'configureRuntime' ? ['Open Setting', 'Show Log'] : ['Show Log', 'Restart Server'];
      void vscode.window.showErrorMessage(`Leasehold: ${state.message}`, ...buttons).then((choice) => {
        if (choice === 'Show Log') this.log.show();
        else if (choice === 'Restart Server') void vscode.commands.executeCommand('leasehold.restartServer');
        else if (choice === 'Open Setting') void vscode.commands.executeCommand('leasehold.openRuntimeSetting');
      });
    }
    this.stateChanged.fire(state);
  }

  /** Coalesces server events into one re-read per kind (a burst of events costs one request). */
  scheduleRefresh(what: { endpoints?: boolean; panes?: boolean; claims?: boolean }): void {
    this.pendingRefresh.endpoints ||= Boolean(what.endpoints);
    this.pendingRefresh.panes ||= Boolean(what.panes);
    this.pendingRefresh.claims ||= Boolean(what.claims);
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      const pending = this.pendingRefresh;
      this.pendingRefresh = { endpoints: false, panes: false, claims: false };
      void this.refreshNow(pending);
    }, 25);
  }

  async refreshNow(what: { endpoints?: boolean; panes?: boolean; claims?: boolean } = { endpoints: true, panes: true, claims: true }): Promise<void> {
    const client = this.client;
    if (!client) {
      this.endpoints = undefined;
      this.todos = undefined;
      this.todosTree.refresh();
      this.panes.clear();
      this.endpointsTree.refresh();
      this.panesTree.refresh();
      this.statusBar.update();
      return;
    }
    const jobs: Promise<void>[] = [];
    if (what.endpoints) {
      jobs.push(
        client.listEndpoints().then(
          (endpoints) => {
            this.endpoints = endpoints;
            this.endpointsTree.refresh();
          },
          (error: Error) => this.log.warn(`could not list endpoints: ${error.message}`),
        ),
      );
    } else if (what.claims) {
      this.endpointsTree.refresh();
    }
    if (what.claims) {
      jobs.push(
        client.listTodos().then(
          (todos) => {
            this.todos = { todos, readAtMs: performance.now() };
            this.todosTree.refresh();
          },
          (error: Error) => this.log.warn(`could not list todos: ${error.message}`),
        ),
      );
    }
    if (what.panes) {
      jobs.push(
        client.listPanes().then(
          (panes) => {
            const readAt = localNow();
            this.panes.clear();
            for (const pane of panes) this.panes.set(pane.name, { pane, readAt });
            this.panesChanged();
            this.raiseAttention();
          },
          (error: Error) => {
            if (!this.panesUnavailableLogged) this.log.warn(`could not list panes: ${error.message}`);
            this.panesUnavailableLogged = true;
          },
        ),
      );
    }
    await Promise.all(jobs);
    this.dataChanged.fire();
  }

  /** Every pane as a row: labels from this window's terminals as they are named now. */
  rows(): PaneRow[] {
    const terminals = vscode.window.terminals;
    return paneRows([...this.panes.values()], localNow(), this.statusBar.notices.state(), (pane) => {
      const terminal = this.terminals.terminalOf(pane);
      if (!terminal) return undefined;
      return { name: terminal.name, cwd: terminal.shellIntegration?.cwd?.fsPath, position: terminals.indexOf(terminal) + 1, agentExited: this.terminals.agentExited(terminal) };
    });
  }

  private panesChanged(): void {
    this.statusBar.update();
    this.panesTree.refresh();
  }

  private focusPane(pane: string | undefined): boolean {
    const terminal = pane ? this.terminals.terminalOf(pane) : undefined;
    if (!terminal) return false;
    terminal.show(false);
    return true;
  }

  /** Raises a notification for each pane that now needs its human (model/attention.ts decides). */
  private raiseAttention(): void {
    const config = vscode.workspace.getConfiguration('leasehold');
    const enabled = parseAttentionKinds(config.get('notifications'));
    const active = vscode.window.state.focused ? this.terminals.nameOf(vscode.window.activeTerminal) : undefined;
    const notices = this.attention.observe(
      this.rows().map((row) => ({ pane: row.pane, label: row.label, reading: row.reading, status: row.status })),
      { nowMs: Date.now(), enabled, focusedPane: active },
    );
    for (const notice of notices) void this.showAttention(notice);
  }

  private async showAttention(notice: AttentionNotice): Promise<void> {
    this.raisedNotices.push(notice);
    this.log.info(`notify ${notice.kind} for pane ${notice.pane}: ${notice.message}`);
    const actions = ['Show Terminal', ...(notice.kind === 'stalled' ? ['Release'] : []), "Don't Show Again"];
    const show = notice.kind === 'blocked' || notice.kind === 'stalled' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const choice = await show(`Leasehold: ${notice.message}`, ...actions);
    if (choice === 'Show Terminal') this.focusPane(notice.pane);
    else if (choice === 'Release' && notice.leaseId) void vscode.commands.executeCommand('leasehold.releaseWaitLease', { leaseId: notice.leaseId, jobRef: notice.jobRef, pane: notice.pane });
    else if (choice === "Don't Show Again") {
      const config = vscode.workspace.getConfiguration('leasehold');
      const kinds = [...parseAttentionKinds(config.get('notifications'))].filter((kind) => kind !== notice.kind);
      await config.update('notifications', kinds, vscode.ConfigurationTarget.Global);
      void vscode.window.showInformationMessage(`Leasehold: no more "${notice.kind}" notifications. The setting leasehold.notifications brings them back.`);
    }
  }

  /** Hook status as last checked (the Panes view shows a row while they are missing). */
  hooksState: 'unknown' | 'installed' | 'missing' = 'unknown';

  /**
   * Checks Leasehold's hook entries in every Claude Code settings scope: repairs the ones an
   * update left pointing at an old extension folder or runtime, and (once, when Claude Code is
   * present and no hooks are) offers to install them. Never writes without consent.
   */
  async checkHooks(options: { offer: boolean }): Promise<HookSetupPlan | undefined> {
    const choice = await this.cliRuntime();
    if (!choice.ok) return undefined;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const run = { runtime: choice.runtime, cliScript: this.cliScript, runtimeDir: this.runtimeDir, cwd: folder ?? this.ext.extensionPath, log: (line: string) => this.log.debug(line) };
    const scopes: HookScope[] = folder ? ['user', 'project', 'local'] : ['user'];
    const statuses: ScopeStatus[] = [];
    for (const scope of scopes) {
      try {
        const status = parseScopeStatus(scope, await runCli(run, ['hooks', 'status', '--scope', scope, ...(folder ? ['--project-dir', folder] : []), '--json']));
        if (status) statuses.push(status);
      } catch (error) {
        this.log.warn(`hook status (${scope}): ${(error as Error).message}`);
      }
    }
    const offeredBefore = this.ext.globalState.get<boolean>(HOOKS_OFFERED_KEY) === true;
    const plan = planHookSetup(statuses, { claudePresent: claudeCodePresent(), offeredBefore });
    for (const scope of plan.repair) {
      try {
        await runCli({ ...run, log: (line) => this.log.info(line) }, ['hooks', 'install', '--scope', scope, ...(folder ? ['--project-dir', folder] : []), '--json']);
        this.log.info(`repaired the Leasehold hooks in ${statuses.find((status) => status.scope === scope)?.file}: they pointed at an older extension folder or runtime`);
      } catch (error) {
        this.log.warn(`could not repair the hooks (${scope}): ${(error as Error).message}`);
      }
    }
    this.hooksState = plan.state;
    void vscode.commands.executeCommand('setContext', 'leasehold.hooks', plan.state);
    this.panesTree.refresh();
    if (options.offer && plan.offer) {
      await this.ext.globalState.update(HOOKS_OFFERED_KEY, true);
      void vscode.window
        .showInformationMessage(
          "Leasehold: Claude Code is installed, but Leasehold's hooks are not. Install them so each terminal shows when Claude Code waits on a background job or needs you? (Asked once; \"Leasehold: Install Claude Code Hooks…\" does it later.)",
          'Install for User',
          ...(folder ? ['Install for This Workspace'] : []),
          'Not Now',
        )
        .then((picked) => {
          if (picked === 'Install for User') void vscode.commands.executeCommand('leasehold.installHooks', { scope: 'user' });
          else if (picked === 'Install for This Workspace') void vscode.commands.executeCommand('leasehold.installHooks', { scope: 'local' });
        });
    }
    return plan;
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.logTail.stop();
    this.run?.dispose();
    this.run = undefined;
    this.supervisor.dispose();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
    this.log.dispose();
  }
}
