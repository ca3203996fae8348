// `leasehold hook <Event>` after triage: the event carries something for Leasehold. Parse it,
// observe what only this process can see (LEASEHOLD_PANE, its own ancestry, the process of a
// backgrounded Bash), plan the ops (pure, hookInput.ts), give the event its id, deliver it
// (hookDelivery.ts: HTTP with a short retry, else the spool). Never throws to the caller and
// never writes to stdout: Claude Code reads a hook's stdout as hook JSON.
import { ancestry, findAttachClient, findClaudeCodeCommand, forkParentOf } from './processTree.ts';
import type { ProcessInfo } from './processTree.ts';
import { bashToolInput, parseHookInput, planHookActions } from './hookInput.ts';
import type { HookContext, HookInput, ProcessHint } from './hookInput.ts';
import type { HookEvent, HookOp } from '../core/wire/hookOps.ts';
import { deliverHookEvent } from './hookDelivery.ts';
import type { DeliveryOptions, DeliveryOutcome } from './hookDelivery.ts';
import type { HookLog } from './hookLog.ts';
import { loadHookSettings } from './hookSettings.ts';
import { newEventId } from './spool.ts';
import { dirname } from 'node:path';
import { fitHookEvent } from './hookFit.ts';
import { nodeFs } from '../runtime/builtins.ts';
import { runtimeFiles } from '../runtime/paths.ts';

// node:fs through builtins.ts: an ESM import of it costs the hook process ~6 ms (see there).
const { mkdirSync, rmSync, writeFileSync } = nodeFs();

export interface HookRun {
  /** Parsed stdin (undefined when it was not JSON). */
  payload: unknown;
  argvEvent: string | undefined;
  env: NodeJS.ProcessEnv;
  runtimeDir: string;
  log: HookLog;
  /** The hook's own pid (tests may point it elsewhere). */
  pid?: number;
  delivery?: Partial<DeliveryOptions>;
}

export interface HookRunResult {
  ops: HookOp[];
  event?: HookEvent;
  outcome?: DeliveryOutcome;
}

/** Shells that sit between Claude Code and a hook or a background command; never the session's root. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'busybox', 'timeout', 'env']);

function hint(info: ProcessInfo): ProcessHint {
  return { pid: info.pid, start_time: info.startTime };
}

/**
 * The process running a backgrounded Bash command: searched among the descendants of the
 * nearest ancestor that is not a shell (Claude Code itself: it runs hooks through `sh -c`).
 * Matched the way Claude Code spawns it (processTree.findClaudeCodeCommand), whatever the
 * quoting. Best effort: a command reparented to init (setsid, double fork) is not found, and
 * the lease then stands on its TTL and Stop's reconciliation alone.
 */
export function findBackgroundProcess(selfPid: number, commandText: string, chain: ProcessInfo[] = ancestry(selfPid)): ProcessInfo | null {
  const root = chain.slice(1).find((step) => !SHELLS.has(step.comm));
  if (root === undefined || root.pid <= 1) return null;
  const found = findClaudeCodeCommand(root.pid, commandText);
  if (found === null || chain.some((step) => step.pid === found.pid)) return null;
  return found;
}

function buildContext(input: HookInput, run: HookRun, selfPid: number): HookContext {
  const context: HookContext = {};
  const envPane = run.env.LEASEHOLD_PANE;
  if (envPane !== undefined && envPane !== '') context.envPane = envPane;
  if (input.hook_event_name === 'SessionStart') {
    context.ancestry = ancestry(selfPid).map(hint);
  }
  // Claude Code's background daemon (2.1.332) gives its sessions' hooks CLAUDE_JOB_DIR.
  if (run.env.CLAUDE_JOB_DIR !== undefined && run.env.CLAUDE_JOB_DIR !== '') {
    const client = findAttachClient(input.session_id);
    const sessionPid = Number(run.env.CLAUDE_PID);
    const forkedFrom = Number.isSafeInteger(sessionPid) && sessionPid > 1 ? forkParentOf(sessionPid) : undefined;
    context.background = { attachAncestry: client === null ? null : ancestry(client.pid).map(hint), ...(forkedFrom !== undefined ? { forkedFrom } : {}) };
  }
  if (input.hook_event_name === 'PostToolUse' && input.tool_name === 'Bash') {
    const taskId = (input.tool_response as { backgroundTaskId?: unknown } | undefined)?.backgroundTaskId;
    const command = bashToolInput(input.tool_input)?.command;
    if (typeof taskId === 'string' && taskId !== '' && command !== undefined) {
      const found = findBackgroundProcess(selfPid, command);
      if (found !== null) context.pidHints = { [taskId]: hint(found) };
    }
  }
  return context;
}

/**
 * Keeps the session's blocked marker (runtimeFiles.blockedMarker) in step with the display the
 * ops set: present from a "blocked" until any other display state. Best effort: without the
 * marker a plain tool call after a prompt is not sent, and the turn's Stop still ends "blocked".
 */
function markBlocked(runtimeDir: string, session: string, ops: HookOp[], log: HookLog): void {
  const display = ops.filter((op) => op.op === 'set_display').at(-1);
  if (display === undefined || display.op !== 'set_display') return;
  const marker = runtimeFiles.blockedMarker(runtimeDir, session);
  try {
    if (display.state === 'blocked') {
      mkdirSync(dirname(marker), { recursive: true, mode: 0o700 });
      writeFileSync(marker, '', { mode: 0o600 });
    } else {
      rmSync(marker, { force: true });
    }
  } catch (error) {
    log('warn', `could not update the blocked marker ${marker}: ${(error as Error).message}`);
  }
}

export async function runHookEvent(run: HookRun): Promise<HookRunResult> {
  const parsed = parseHookInput(run.payload, run.argvEvent);
  if (parsed.kind === 'ignored') return { ops: [] };
  if (parsed.kind === 'invalid') {
    run.log('warn', `ignored a malformed ${parsed.eventName} hook input: ${parsed.message}`);
    return { ops: [] };
  }
  const { settings, warnings } = loadHookSettings(run.runtimeDir, run.env);
  for (const warning of warnings) run.log('warn', `hook settings: ${warning}`);
  const selfPid = run.pid ?? process.pid;
  const ops = planHookActions(parsed.input, settings, buildContext(parsed.input, run, selfPid));
  if (ops.length === 0) return { ops };
  markBlocked(run.runtimeDir, parsed.input.session_id, ops, run.log);
  // Over-long text is cut to what the server accepts: the event is never dropped for it.
  const observedAt = Date.now();
  const { event, cut } = fitHookEvent({ id: newEventId(observedAt), ops, observed_at: observedAt } satisfies HookEvent);
  if (cut.length > 0) run.log('info', `cut over-long fields to the server's limits: ${[...new Set(cut)].join(', ')}`, { event: parsed.input.hook_event_name });
  const outcome = await deliverHookEvent(event, { runtimeDir: run.runtimeDir, log: run.log, ...run.delivery });
  if (outcome.kind === 'spooled') {
    run.log('warn', `server unreachable after ${outcome.attempts} attempt(s) (${outcome.lastError}); spooled event ${event.id}`, { event: parsed.input.hook_event_name });
  } else if (outcome.kind === 'refused') {
    run.log('error', `server refused event ${event.id} with HTTP ${outcome.status}: ${outcome.text.slice(0, 500)}`, { ops });
  }
  return { ops: event.ops, event, outcome };
}
