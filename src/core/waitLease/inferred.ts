// The inferred tier (issue 12, the seed's two-tier amendment): leases the lease side acquires
// from signals the owning machine already holds, for panes no glue covers. Normative rules:
// - kind `inferred`, a job-ref derived from what was seen (the program and its pid, or Claude
//   Code's session id), a short TTL renewed only while the target re-verifies (it is held on
//   the target's pid + start time, so the server's hold loop renews it and releases it when
//   the process ends);
// - it verifies liveness, not progress: it only adds grace on top of the UNKNOWN floor (the
//   verdict keeps reading UNKNOWN), never satisfies "safe to keep billing", never upgrades
//   toward declared; its progress is recorded and shown, never escalated (fuses.ts);
// - a declared lease for the same job supersedes it;
// - the pane's job is the one in its terminal's foreground: a job stopped with Ctrl+Z or run
//   with `&` leaves the shell at its prompt, and nothing runs there; nor does anything while the
//   foreground is a shell the pane runs, at its own prompt (terminalJob.ts);
// - interactive Claude Code is a job only while its session file says it works (busy, shell):
//   at its prompt it waits on the human, and while it has not said, it starts and ends nothing;
//   a scripted run (`claude -p`) is a job like any other until it exits; Claude Code as the
//   terminal's own program (no shell) is what the pane runs, its children part of it.
// This module decides, per pane and per observation tick, what the observer does. It reads
// nothing: the server's observer (src/server/waitLeases/inference.ts) brings the process table,
// the session files and the shell-integration reports.
import type { ClockReading } from './clockReading.ts';
import { type SeenProcess, type TerminalView, paneForegroundJob, shellAtItsPrompt } from './terminalJob.ts';
import { type WaitLeaseRecord, JOB_REF_MAX_LENGTH, DESCRIPTION_MAX_LENGTH, leaseAt } from './lease.ts';

/** Each grant of an inferred lease: short, because only a live, re-verified target keeps it. */
export const DEFAULT_INFERRED_TTL_MS = 30_000;

/**
 * Claude Code's own status words in ~/.claude/sessions/<pid>.json (undocumented: read
 * defensively). busy: a turn runs; shell: its turn is over and it sits at its prompt, but a
 * command it backgrounded still runs (2.1.332: from the turn's end until the task ends), which
 * is the wait this product exists for.
 */
export const CLAUDE_WORKING_STATUSES: readonly string[] = ['busy', 'shell'];
export const CLAUDE_AT_PROMPT_STATUSES: readonly string[] = ['idle', 'waiting'];

/**
 * What Claude Code's program is called: the npm package's native binary (claude.exe), the
 * command on PATH (claude). Its node entry point, in installs that run it under node, is
 * recognised by its path.
 */
const CLAUDE_PROGRAM_NAMES: readonly string[] = ['claude', 'claude.exe'];
const CLAUDE_NODE_ENTRY = /(^|\/)@anthropic-ai\/claude-code\/cli\.m?js$/;
/** The flags of a scripted run, `claude -p` / `--print`: an argument of their own, before any `--`. */
const CLAUDE_PRINT_FLAGS: readonly string[] = ['-p', '--print'];

/** What Claude Code's session file says about one of its processes. */
export interface ClaudeSessionSignal {
  sessionId: string | null;
  /** busy, shell, idle, waiting, or anything newer (treated as unknown). */
  status: string | null;
  /** How it was started: `cli` is the interactive program; `sdk-cli` (`claude -p`) and the rest are scripted. */
  entrypoint?: string | null;
}

/** The entry point of Claude Code run interactively in a terminal. */
const CLAUDE_INTERACTIVE_ENTRYPOINT = 'cli';

/** What VS Code's shell integration reported for the pane's current command. */
export interface ShellExecutionSignal {
  commandLine: string;
  /** Set once the command ended. */
  exitCode: number | null;
  ended: boolean;
  /** When the command last printed output (wall ms): a sign of progress. */
  lastOutputWallMs?: number | null;
}

/** What the observer saw of one pane: its terminal (terminalJob.ts) and Claude Code's and VS Code's signals. */
export interface PaneObservation extends TerminalView {
  pane: string;
  generation: number;
  /** The pane's registered shell still runs (same pid and start time). */
  shellAlive: boolean;
  /** Session files of Claude Code processes: the pane's own process, and the head's subtree (the head included), by pid. */
  claude: ReadonlyMap<number, ClaudeSessionSignal>;
  /** Shell integration's report for this pane, if any. */
  execution: ShellExecutionSignal | null;
}

export type InferenceSource = 'process_tree' | 'claude_session';

export type InferenceAction =
  | { action: 'acquire'; jobRef: string; description: string; target: { pid: number; startTime: string }; source: InferenceSource }
  /** End an inferred lease. `observed`: the end of the wait was seen (ledger: released, exact); else superseded (orphaned). */
  | { action: 'end'; leaseId: string; reason: string; observed: boolean }
  /** The command printed output since the lease's last sign of progress: record it (fuses.ts progressSeen). */
  | { action: 'progress'; leaseId: string; atWallMs: number };

function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/\s+/g, ' ').trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The program's name: the basename of argv[0], else the kernel's comm. */
function programOf(process: SeenProcess): string {
  const argv0 = process.argv?.[0] ?? '';
  const base = argv0.split('/').pop() ?? '';
  return (sanitize(base) || sanitize(process.comm) || 'process').replace(/[^A-Za-z0-9_.:-]/g, '_');
}

/** The job-ref derived from what was seen: Claude Code's session, else the program and its pid. */
export function inferredJobRef(target: SeenProcess, session: ClaudeSessionSignal | null): string {
  if (session?.sessionId) return clip(`claude:${sanitize(session.sessionId)}`, JOB_REF_MAX_LENGTH);
  return clip(`${programOf(target)}@${target.pid}`, JOB_REF_MAX_LENGTH);
}

/** What a person would call it: the command line shell integration reported, else the one read. */
export function inferredDescription(target: SeenProcess, session: ClaudeSessionSignal | null, execution: ShellExecutionSignal | null): string {
  if (session) return session.status === 'shell' ? 'Claude Code: a background shell runs' : `Claude Code ${session.status ?? 'session'}`;
  const text = execution && !execution.ended ? execution.commandLine : (target.argv?.join(' ') ?? target.comm);
  return clip(sanitize(text) || programOf(target), DESCRIPTION_MAX_LENGTH);
}

/** Whether a process is Claude Code by its name, for the moments its session file says nothing. */
function isClaudeCodeProcess(process: SeenProcess): boolean {
  return CLAUDE_PROGRAM_NAMES.includes(programOf(process)) || CLAUDE_PROGRAM_NAMES.includes(process.comm) || (process.argv ?? []).some((arg) => CLAUDE_NODE_ENTRY.test(arg));
}

/** The pane's foreground job when Claude Code runs there but has not said what it is doing. */
const UNSURE = 'unsure' as const;

/** The pane's job, or none, or UNSURE (inferredTarget). */
type InferredTarget = { process: SeenProcess; session: ClaudeSessionSignal | null } | typeof UNSURE | null;

/**
 * Claude Code run as a script (`claude -p`, or any entry point but the terminal's): a job like
 * any other until it exits, whatever its status says. Its session file says so once written;
 * before that, its arguments: `-p` as an argument of its own, not a word inside one (an
 * interactive `claude "what does -p do"` is not scripted).
 */
function isScriptedRun(session: ClaudeSessionSignal | null, argv: () => readonly string[] | null): boolean {
  if (session?.entrypoint) return session.entrypoint !== CLAUDE_INTERACTIVE_ENTRYPOINT;
  for (const arg of argv() ?? []) {
    if (arg === '--') return false;
    if (CLAUDE_PRINT_FLAGS.includes(arg)) return true;
  }
  return false;
}

/** Interactive Claude Code as the pane's program: its status decides (see inferredTarget). */
function interactiveTarget(process: SeenProcess, session: ClaudeSessionSignal | null): InferredTarget {
  const status = session?.status ?? null;
  // Claude Code at its prompt is waiting on the human, not on a job: no lease from it.
  if (status !== null && CLAUDE_AT_PROMPT_STATUSES.includes(status)) return null;
  if (status !== null && CLAUDE_WORKING_STATUSES.includes(status)) return { process, session };
  return UNSURE;
}

/**
 * Interactive Claude Code under `head`, a wrapper that started it (npx, a script): then Claude
 * Code is the pane's program, and its session says what the pane does; UNSURE while one there
 * (known by name) has not said anything yet. A scripted run under a job is part of that job.
 */
function interactiveClaudeUnder(observation: PaneObservation, head: SeenProcess): ClaudeSessionSignal | typeof UNSURE | null {
  let unsaid = false;
  for (const pid of observation.subtreeOf(head.pid)) {
    if (pid === head.pid) continue;
    const session = observation.claude.get(pid) ?? null;
    const named = CLAUDE_PROGRAM_NAMES.includes(observation.commOf(pid) ?? '');
    if (!session && !named) continue;
    if (isScriptedRun(session, () => observation.argvOf(pid))) continue;
    if (session) return session;
    unsaid = true;
  }
  return unsaid ? UNSURE : null;
}

type ClaudeProgram = { process: SeenProcess; session: ClaudeSessionSignal | null };

/**
 * Claude Code as the pane's own program (a terminal that runs claude with no shell around it),
 * known by its session file or its name: then it is what the pane runs, and its session says
 * what the pane does; its children (MCP servers, the commands it runs) are part of it.
 */
function claudeAsPaneProgram(observation: PaneObservation): ClaudeProgram | undefined {
  const shell = observation.shell;
  if (!shell) return undefined;
  const session = observation.claude.get(shell.pid) ?? null;
  return session || isClaudeCodeProcess(shell) ? { process: shell, session } : undefined;
}

/**
 * The pane's foreground job as the signals show it; null when nothing runs or an agent sits at
 * its prompt; UNSURE when interactive Claude Code runs there and its session file does not say
 * it works: before the file says anything (about half a second from its start, seen with
 * 2.1.332), a status this reading does not know, a file unreadable for the moment or kept where
 * this server does not look. An agent's own process is a job only while it says so; UNSURE
 * starts no lease and ends none. Interactive Claude Code started by a wrapper counts as the
 * pane's program (the lease is held on the wrapper); a scripted run is a job until it exits.
 */
function inferredTarget(observation: PaneObservation, program: ClaudeProgram | undefined, head: SeenProcess | undefined, atShellPrompt: boolean): InferredTarget {
  if (!observation.shellAlive) return null;
  if (program) return isScriptedRun(program.session, () => program.process.argv) ? program : interactiveTarget(program.process, program.session);
  if (atShellPrompt) return null;
  if (!head) return null;
  const session = observation.claude.get(head.pid) ?? null;
  if (session || isClaudeCodeProcess(head)) {
    return isScriptedRun(session, () => head.argv) ? { process: head, session } : interactiveTarget(head, session);
  }
  const under = interactiveClaudeUnder(observation, head);
  if (under === null) return { process: head, session: null };
  return under === UNSURE ? UNSURE : interactiveTarget(head, under);
}

function targetPid(lease: WaitLeaseRecord): number | null {
  return lease.observer.kind === 'pid' ? lease.observer.pid : null;
}

/**
 * The declared lease that supersedes an inferred one on the same job: the same job_ref, or a
 * pid target inside the inferred target's process subtree (`leasehold run` under the shell,
 * a hook's lease on a job the agent runs). Only a valid declared lease supersedes.
 */
export function supersedingDeclared(inferred: WaitLeaseRecord, live: readonly WaitLeaseRecord[], subtree: ReadonlySet<number>): WaitLeaseRecord | null {
  for (const lease of live) {
    if (lease.kind !== 'declared' || lease.state !== 'active') continue;
    if (lease.pane !== inferred.pane || lease.generation !== inferred.generation) continue;
    const pid = targetPid(lease);
    if (lease.jobRef === inferred.jobRef || (pid !== null && subtree.has(pid))) return lease;
  }
  return null;
}

/**
 * One observation tick for one pane: which inferred leases end, and whether one is acquired.
 * `leases` are the pane's leases at its current generation (any state).
 */
export function decideInference(observation: PaneObservation, leases: readonly WaitLeaseRecord[], now: ClockReading): InferenceAction[] {
  const current = leases.filter((lease) => lease.generation === observation.generation).map((lease) => leaseAt(lease, now));
  const live = current.filter((lease) => lease.state !== 'ended');
  // Degraded ones too: the hold loop degrades a lease whose target is stopped (Ctrl+Z).
  const inferred = live.filter((lease) => lease.kind === 'inferred' && (lease.state === 'active' || lease.state === 'degraded'));
  const program = observation.shellAlive ? claudeAsPaneProgram(observation) : undefined;
  const foregroundHead = observation.shellAlive && !program ? paneForegroundJob(observation)[0] : undefined;
  // Claude Code as the pane's own program has its terminal too: that is Claude Code, not a shell at its prompt.
  const atShellPrompt = observation.shellAlive && !program && shellAtItsPrompt(observation);
  const target = inferredTarget(observation, program, foregroundHead, atShellPrompt);
  // What the pane runs: Claude Code as its own program, else its foreground job's head.
  const head = program?.process ?? foregroundHead;
  // Unsure: the lease already held on that process stands, and none is started.
  const found = target === UNSURE ? { process: head!, session: null } : target;
  const subtree = found ? observation.subtreeOf(found.process.pid) : new Set<number>();
  const actions: InferenceAction[] = [];
  const ending = new Set<string>();
  const end = (lease: WaitLeaseRecord, reason: string, observed: boolean) => {
    actions.push({ action: 'end', leaseId: lease.id, reason, observed });
    ending.add(lease.id);
  };
  let kept = false;

  for (const lease of inferred) {
    const pid = targetPid(lease);
    const sameTarget = found !== null && pid === found.process.pid && lease.observer.kind === 'pid' && lease.observer.startTime === found.process.startTime;
    if (!sameTarget) {
      const execution = observation.execution;
      const exit = execution?.ended && execution.exitCode !== null ? `, exit ${execution.exitCode}` : '';
      const isTarget = (process: SeenProcess | undefined) => process !== undefined && pid === process.pid && lease.observer.kind === 'pid' && lease.observer.startTime === process.startTime;
      const atPrompt = found === null && isTarget(head);
      const nestedShellAtPrompt = atPrompt && atShellPrompt;
      // Still the shell's child, but no longer in the terminal's foreground.
      const leftForeground = observation.foregroundGroup !== null && !isTarget(head) && observation.children.some(isTarget);
      const why = !observation.shellAlive
        ? "the pane's shell exited"
        : nestedShellAtPrompt
          ? `${programOf(head!)}@${pid} is a shell at its prompt: nothing runs in the pane`
          : atPrompt
          ? 'Claude Code is at its prompt, waiting on the human'
          : leftForeground
            ? `target pid ${pid} left the terminal's foreground (stopped with Ctrl+Z, or running in the background)${exit}`
            : found === null || pid !== found.process.pid
              ? `target pid ${pid ?? '?'} is no longer the pane's running job${exit}`
              : `target pid ${pid} now belongs to another process${exit}`;
      end(lease, why, true);
      continue;
    }
    if (lease.state === 'degraded') {
      // Its target runs in the foreground again (continued after Ctrl+Z): a fresh lease speaks for it.
      end(lease, `degraded (${lease.stateReason ?? 'its target could not be verified'}); its target is the pane's job again: leased anew`, false);
      continue;
    }
    const declared = supersedingDeclared(lease, live, subtree);
    if (declared) {
      end(lease, `superseded by declared wait-lease ${declared.id} (${declared.jobRef})`, false);
      continue;
    }
    kept = true;
    const output = observation.execution && !observation.execution.ended ? (observation.execution.lastOutputWallMs ?? null) : null;
    if (output !== null && output > (lease.progress.lastProgressAt?.wallMs ?? lease.grantedAt.wallMs)) actions.push({ action: 'progress', leaseId: lease.id, atWallMs: output });
  }

  if (found && !kept && target !== UNSURE) {
    const jobRef = inferredJobRef(found.process, found.session);
    const probe: WaitLeaseRecord | undefined = live.find((lease) => lease.jobRef === jobRef && !ending.has(lease.id));
    const declaredCovers = live.some(
      (lease) => lease.kind === 'declared' && lease.state === 'active' && (lease.jobRef === jobRef || (targetPid(lease) !== null && subtree.has(targetPid(lease)!))),
    );
    // A live lease for the job already speaks for it (a declared one, or an inferred one that is UNKNOWN).
    if (!declaredCovers && probe === undefined) {
      actions.push({
        action: 'acquire',
        jobRef,
        description: inferredDescription(found.process, found.session, observation.execution),
        target: { pid: found.process.pid, startTime: found.process.startTime },
        source: found.session ? 'claude_session' : 'process_tree',
      });
    }
  }
  return actions;
}

/**
 * VS Code's shell integration reported that the pane's command ended: its inferred leases end
 * now, as observed ends, with the exit code when one was reported (the process tree cannot know
 * it: the command was the shell's child, not the server's).
 */
export function decideExecutionEnd(leases: readonly WaitLeaseRecord[], generation: number, exitCode: number | null, now: ClockReading): InferenceAction[] {
  return leases
    .filter((lease) => lease.generation === generation && lease.kind === 'inferred')
    .map((lease) => leaseAt(lease, now))
    .filter((lease) => lease.state !== 'ended')
    .map((lease) => ({ action: 'end' as const, leaseId: lease.id, reason: exitCode === null ? 'the command ended (shell integration)' : `exit ${exitCode}`, observed: true }));
}
