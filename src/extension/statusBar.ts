// Two status bar items: the active terminal's pane (display state + wait-lease annotation,
// kept current by server events and a local tick only while it shows time) and the server's
// health. The wording lives in model/ (pure).
import * as vscode from 'vscode';
import { nextTickMs } from './model/countdown.ts';
import { NoticeTracker } from './model/notices.ts';
import { READING_LOOK, saysSomething, summarizePanes, type PaneSummary } from './model/paneReading.ts';
import type { PaneRow } from './model/paneRows.ts';
import { type LocalInstant, type PaneStatus, paneTooltipMarkdown } from './model/paneStatus.ts';
import { type ServerState, serverStatusView } from './model/serverStatus.ts';
import { type SpoolStatus, spoolSummaryLines } from '../core/wire/status.ts';

export const PANE_ITEM_ID = 'leasehold.pane';
export const SERVER_ITEM_ID = 'leasehold.server';
const RELEASE_COMMAND = 'leasehold.releaseWaitLease';

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|]/g, (ch) => `\\${ch}`);
}

export function localNow(): LocalInstant {
  return { monoMs: performance.now(), wallMs: Date.now() };
}

export interface PaneStatusSource {
  activePane(): string | undefined;
  /** Every pane as a row (labels, readings, statuses) at this instant. */
  rows(): PaneRow[];
  /** Tell the server a notice was shown (POST notice-consumed). */
  noticeShown(leaseId: string): void;
}

export class StatusBar implements vscode.Disposable {
  readonly paneItem: vscode.StatusBarItem;
  readonly serverItem: vscode.StatusBarItem;
  readonly notices = new NoticeTracker();
  private tick: NodeJS.Timeout | undefined;
  private lastPane: string | undefined;
  private lastStatus: PaneStatus | undefined;
  private summary: PaneSummary | undefined;
  private readonly source: PaneStatusSource;

  constructor(source: PaneStatusSource) {
    this.source = source;
    this.paneItem = vscode.window.createStatusBarItem(PANE_ITEM_ID, vscode.StatusBarAlignment.Left, 50);
    this.paneItem.name = 'Leasehold: Terminal Wait-Lease';
    this.paneItem.command = 'leasehold.panes.focus';
    this.serverItem = vscode.window.createStatusBarItem(SERVER_ITEM_ID, vscode.StatusBarAlignment.Left, 49);
    this.serverItem.name = 'Leasehold: Lease Server';
    this.showServer({ kind: 'starting', detail: 'activating' });
  }

  /** The all-panes summary, when that is what the item shows. */
  get currentSummary(): PaneSummary | undefined {
    return this.summary;
  }

  /** What the e2e/host tests read: the pane line as last rendered. */
  get currentStatus(): PaneStatus | undefined {
    return this.lastStatus;
  }

  private lastServer: ServerState | undefined;
  private spool: SpoolStatus | undefined;

  /** The hook delivery spool as the server last reported it; shown in the server item's tooltip. */
  showSpool(spool: SpoolStatus): void {
    this.spool = spool;
    if (this.lastServer) this.showServer(this.lastServer);
  }

  showServer(state: ServerState): void {
    this.lastServer = state;
    const view = serverStatusView(state);
    const spool = state.kind === 'running' ? this.spool : undefined;
    this.serverItem.text = view.text;
    this.serverItem.tooltip = spool ? `${view.tooltip}\n${spoolSummaryLines(spool, Date.now()).join('\n')}` : view.tooltip;
    if (spool && spool.quarantined > 0 && view.attention === 'none') view.attention = 'warning';
    this.serverItem.command = view.command;
    this.serverItem.backgroundColor = view.attention === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : view.attention === 'warning' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.serverItem.show();
  }

  /** The user moved on from a pane (switched terminal, ran a command in it). */
  movedOn(pane: string | undefined): void {
    if (pane) this.notices.movedOn(pane, Date.now());
    this.update();
  }

  update(): void {
    if (this.tick) clearTimeout(this.tick);
    this.tick = undefined;
    const pane = this.source.activePane();
    if (pane !== this.lastPane && this.lastPane !== undefined) this.notices.movedOn(this.lastPane, Date.now());
    this.lastPane = pane;
    this.notices.expireLingering(Date.now());
    const rows = this.source.rows();
    // The server shows an expired notice once per read: keep every one on screen until seen.
    for (const row of rows) for (const id of this.notices.shown(row.pane, row.status.noticesShown, Date.now())) this.source.noticeShown(id);
    const row = pane ? rows.find((candidate) => candidate.pane === pane) : undefined;
    if (!row || !saysSomething(row.status, row.reading)) {
      this.lastStatus = row?.status;
      this.showSummary(rows);
    } else {
      this.showPane(row);
    }
    const delay = nextTickMs(row?.status);
    if (delay !== null) {
      this.tick = setTimeout(() => this.update(), delay);
      this.tick.unref?.();
    }
  }

  /** The active terminal has nothing to say: a summary of all panes; a click opens the Panes view. */
  private showSummary(rows: PaneRow[]): void {
    if (rows.length === 0) {
      this.paneItem.hide();
      return;
    }
    const summary = summarizePanes(rows.map((row) => row.reading));
    this.summary = summary;
    this.paneItem.text = summary.text;
    this.paneItem.tooltip = summary.tooltip;
    this.paneItem.backgroundColor = summary.strongest === 'blocked' ? new vscode.ThemeColor('statusBarItem.errorBackground') : summary.strongest === 'unknown' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.paneItem.accessibilityInformation = { label: `Leasehold: ${summary.tooltip.split('\n').slice(0, -1).join(', ')}` };
    this.paneItem.show();
  }

  private showPane(row: PaneRow): void {
    const { status, reading } = row;
    this.summary = undefined;
    this.lastStatus = status;
    const look = READING_LOOK[reading];
    this.paneItem.text = `$(${look.icon}) ${status.text}`;
    // Blocked is the state that needs the human most: it gets the loudest colour.
    this.paneItem.backgroundColor = reading === 'blocked' ? new vscode.ThemeColor('statusBarItem.errorBackground') : status.attention !== 'none' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const markdown = new vscode.MarkdownString(
      `**${escapeMarkdown(row.label)}**: ${look.words}\n\n` +
        paneTooltipMarkdown(status, (line) => `[Release](command:${RELEASE_COMMAND}?${encodeURIComponent(JSON.stringify([{ leaseId: line.leaseId, jobRef: line.jobRef, pane: row.pane }]))} "Release the wait-lease on ${line.jobRef}")`),
    );
    markdown.isTrusted = { enabledCommands: [RELEASE_COMMAND] };
    this.paneItem.tooltip = markdown;
    this.paneItem.accessibilityInformation = { label: `Leasehold: ${row.label}: ${status.text}` };
    this.paneItem.show();
  }

  dispose(): void {
    if (this.tick) clearTimeout(this.tick);
    this.paneItem.dispose();
    this.serverItem.dispose();
  }
}
