// The `leasehold hook <Event>` process, entered without commander: Claude Code runs it for
// every hooked event, in parallel, and waits for it. The common case (a foreground Bash, an
// unrelated notification) carries nothing for Leasehold and exits after reading stdin, with
// only this module and hookTriage.ts loaded; the rest (the planner, process walking,
// node:http) is a dynamic import. Always exit 0, print nothing; errors go to hook.log.
import module from 'node:module';
import { carriesNothing, hookEventName, isPlainToolCall } from '../claude/hookTriage.ts';
import { nodeFs, nodeStringDecoder } from '../runtime/builtins.ts';
import { dirname } from 'node:path';
import { defaultRuntimeDir, runtimeFiles } from '../runtime/paths.ts';

// node:fs through builtins.ts: an ESM import of it costs every hook call ~6 ms (see there).
const { existsSync, fstatSync, mkdirSync, readSync, statSync, writeFileSync } = nodeFs();

/** Silence after which a stdin that never reached EOF is taken as complete (non-blocking pipes only). */
const STDIN_IDLE_MS = 1_000;

/**
 * True when `text` is a whole JSON value. Claude Code writes one JSON object per hook, but
 * has not always closed the pipe after it (SessionEnd on /clear, anthropics/claude-code#79508):
 * a hook that waits for EOF then hangs until Claude Code's timeout kills it, and the event is
 * lost. A complete object is the end of the input, EOF or not.
 */
function isCompleteJson(text: string): boolean {
  const trimmed = text.trimEnd();
  if (!trimmed.endsWith('}')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

function readStdin(): Promise<string> {
  let text = '';
  try {
    // Claude Code pipes the input. A terminal (someone ran the hook by hand) would block
    // forever, and /dev/null holds nothing: no input then.
    if (fstatSync(0).isCharacterDevice()) return Promise.resolve('');
    // Blocking reads return what has arrived so far: stop at EOF or at a complete object.
    const buffer = Buffer.allocUnsafe(65_536);
    const decoder = new (nodeStringDecoder().StringDecoder)('utf8');
    for (;;) {
      const count = readSync(0, buffer, 0, buffer.length, null);
      if (count === 0) return Promise.resolve(text + decoder.end());
      text += decoder.write(buffer.subarray(0, count));
      if (isCompleteJson(text)) return Promise.resolve(text);
    }
  } catch (error) {
    // EOF (Windows pipes) or a read error: what arrived is all there is.
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Promise.resolve(text);
  }
  // A non-blocking pipe: read it as a stream instead, with the same end rule, and give up
  // waiting after a second of silence.
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      process.stdin.pause();
      process.stdin.removeAllListeners('data');
      resolve(text);
    };
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, STDIN_IDLE_MS);
    };
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      text += chunk;
      if (isCompleteJson(text)) finish();
      else idle();
    });
    process.stdin.on('end', finish);
    process.stdin.on('error', finish);
    idle();
  });
}

function blockedMarkerExists(runtimeDir: string, payload: unknown): boolean {
  const session = (payload as { session_id?: unknown }).session_id;
  return typeof session === 'string' && session !== '' && existsSync(runtimeFiles.blockedMarker(runtimeDir, session));
}

/** How often a working subagent's tool calls renew its lease: well inside the 10-minute no-news bound. */
export const AGENT_NEWS_INTERVAL_MS = 60_000;

/** A tool call inside a subagent whose news was last sent over an interval ago (or never); claims the slot. */
function agentNewsDue(runtimeDir: string, payload: unknown): boolean {
  const { session_id: session, agent_id: agent } = payload as { session_id?: unknown; agent_id?: unknown };
  if (typeof session !== 'string' || session === '' || typeof agent !== 'string' || agent === '') return false;
  const file = runtimeFiles.agentNews(runtimeDir, session, agent);
  try {
    if (Date.now() - statSync(file).mtimeMs < AGENT_NEWS_INTERVAL_MS) return false;
  } catch {
    // never sent: due
  }
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, '', { mode: 0o600 });
  } catch {
    // cannot record it: send anyway (news is cheap next to a false stall)
  }
  return true;
}

/** `args` as after the script name: `[hook] <Event> [...]`. */
export async function hookMain(args: string[]): Promise<void> {
  const words = args[0] === 'hook' ? args.slice(1) : args;
  const argvEvent = words.find((word) => !word.startsWith('-'));
  const text = await readStdin();
  let payload: unknown;
  let notJson: string | undefined;
  try {
    payload = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    notJson = (error as Error).message;
  }
  const eventName = hookEventName(payload, argvEvent);
  if (notJson === undefined && carriesNothing(eventName, payload)) return;
  const runtimeDir = defaultRuntimeDir();
  // A plain tool call matters only while a prompt holds the pane blocked (hookCommand keeps the
  // marker), or as news of a subagent at work, sent at most once per interval.
  if (notJson === undefined && isPlainToolCall(eventName, payload) && !blockedMarkerExists(runtimeDir, payload) && !agentNewsDue(runtimeDir, payload)) return;

  // Past triage: cache compiled code of the bigger chunk across the many short hook processes.
  module.enableCompileCache?.();
  const { openHookLog } = await import('../claude/hookLog.ts');
  const log = openHookLog(runtimeDir);
  if (notJson !== undefined) {
    log('warn', `ignored hook stdin that is not JSON (${notJson})`, { event: argvEvent });
    return;
  }
  try {
    const { runHookEvent } = await import('../claude/hookCommand.ts');
    await runHookEvent({ payload, argvEvent, env: process.env, runtimeDir, log });
  } catch (error) {
    log('error', `hook failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, { event: argvEvent });
  }
}

/** Runs the hook and ends the process with 0 whatever happened: a hook must never block or fail Claude Code. */
export function runHookProcess(args: string[]): void {
  hookMain(args).then(
    () => process.exit(0),
    () => process.exit(0),
  );
}
