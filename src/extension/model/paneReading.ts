// What a pane row says at a glance: one reading per pane (the icon), a label that tells two
// terminals of the same name apart, and the summary the status bar shows when the active
// terminal has nothing to say. Pure: the Panes view, the status bar and the notifications use it.
import type { PaneStatus } from './paneStatus.ts';

/** Strongest first: the order in which a pane needs its human. */
export const PANE_READINGS = ['blocked', 'unknown', 'working', 'waiting', 'inferred', 'done', 'idle', 'shell'] as const;
export type PaneReading = (typeof PANE_READINGS)[number];

/**
 * The reading of a pane. A pane with no Claude Code session and no lease is a plain shell,
 * whatever display state an earlier session left behind.
 */
export function paneReading(status: PaneStatus, hasSession: boolean): PaneReading {
  const live = status.leases.filter((line) => line.state !== 'ended');
  if (status.displayState === 'blocked' && hasSession) return 'blocked';
  if (live.some((line) => line.state === 'unknown' || line.state === 'degraded')) return 'unknown';
  if (status.displayState === 'working' && hasSession) return 'working';
  if (live.some((line) => line.state === 'active' && line.kind === 'declared')) return 'waiting';
  if (live.some((line) => line.state === 'active')) return 'inferred';
  if (!hasSession) return 'shell';
  if (status.displayState === 'done') return 'done';
  return 'idle';
}

export interface ReadingLook {
  /** A codicon. */
  icon: string;
  /** A theme colour id, when the reading must stand out. */
  color?: string;
  /** Words for screen readers and tooltips. */
  words: string;
}

export const READING_LOOK: Record<PaneReading, ReadingLook> = {
  blocked: { icon: 'bell-dot', color: 'errorForeground', words: 'blocked: waiting for you (a permission or input prompt)' },
  unknown: { icon: 'question', color: 'list.warningForeground', words: 'lease UNKNOWN or degraded: a possible stall' },
  working: { icon: 'sync~spin', color: 'charts.blue', words: 'working' },
  waiting: { icon: 'watch', color: 'charts.blue', words: 'waiting on a declared job' },
  inferred: { icon: 'eye', words: 'waiting on an inferred job' },
  done: { icon: 'pass', color: 'charts.green', words: 'turn ended' },
  idle: { icon: 'circle-outline', words: 'idle' },
  shell: { icon: 'terminal', words: 'a plain shell (no Claude Code session)' },
};

export interface LabelInput {
  pane: string;
  /** The terminal's current name (follows its title), else the title it was registered with. */
  name: string | undefined;
  /** The working folder (shell integration), when known. */
  cwd?: string;
  /** 1-based position among this window's terminals, when it is one of them. */
  position?: number;
}

function basename(folder: string): string {
  const trimmed = folder.replace(/[\\/]+$/, '');
  return trimmed.slice(Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1) || trimmed;
}

/**
 * Labels that tell panes apart: the terminal's name; where two share it, its folder; where
 * that still collides, its position in the terminal list ("bash · 2"), as VS Code numbers them.
 */
export function paneLabels(inputs: readonly LabelInput[]): Map<string, string> {
  const base = new Map(inputs.map((input) => [input.pane, input.name?.trim() || input.pane]));
  const count = (labels: Map<string, string>) => {
    const counts = new Map<string, number>();
    for (const label of labels.values()) counts.set(label, (counts.get(label) ?? 0) + 1);
    return counts;
  };
  const first = count(base);
  const withFolder = new Map(base);
  for (const input of inputs) {
    const label = base.get(input.pane)!;
    if (first.get(label)! > 1 && input.cwd) withFolder.set(input.pane, `${label} · ${basename(input.cwd)}`);
  }
  const second = count(withFolder);
  const labels = new Map(withFolder);
  let fallback = 0;
  for (const input of inputs) {
    const label = withFolder.get(input.pane)!;
    if (second.get(label)! > 1) labels.set(input.pane, `${label} · ${input.position ?? `#${++fallback}`}`);
  }
  return labels;
}

export interface PaneSummary {
  /** Status bar text with codicons, e.g. "$(bell-dot) 1 blocked  $(watch) 2 waiting". */
  text: string;
  tooltip: string;
  /** The strongest reading among all panes. */
  strongest: PaneReading | undefined;
  counts: Partial<Record<PaneReading, number>>;
}

const SUMMARY_READINGS: PaneReading[] = ['blocked', 'unknown', 'working', 'waiting', 'inferred', 'done'];

/** The status bar's summary of all panes, for when the active terminal has nothing to say. */
export function summarizePanes(readings: readonly PaneReading[]): PaneSummary {
  const counts: Partial<Record<PaneReading, number>> = {};
  for (const reading of readings) counts[reading] = (counts[reading] ?? 0) + 1;
  const strongest = PANE_READINGS.find((reading) => counts[reading]);
  const shown = SUMMARY_READINGS.filter((reading) => counts[reading]);
  const panes = `${readings.length} pane${readings.length === 1 ? '' : 's'}`;
  const text = shown.length === 0 ? `$(terminal) ${panes}` : shown.map((reading) => `$(${READING_LOOK[reading].icon.replace('~spin', '')}) ${counts[reading]} ${reading}`).join('  ');
  const tooltip = [`Leasehold: ${panes}`, ...PANE_READINGS.filter((reading) => counts[reading]).map((reading) => `${counts[reading]} ${READING_LOOK[reading].words}`), 'Click to open the Panes view.'].join('\n');
  return { text, tooltip, strongest, counts };
}

/** Whether the active terminal's own line has anything to say (else the summary shows). */
export function saysSomething(status: PaneStatus | undefined, reading: PaneReading | undefined): boolean {
  if (!status || !reading) return false;
  return status.leases.length > 0 || status.noticesShown.length > 0 || (reading !== 'shell' && reading !== 'idle');
}
