// The `leasehold hook <Event>` process, entered without commander: Claude Code runs it for
// every hooked event, in parallel, and waits for it. The common case (a foreground Bash, an
// unrelated notification) carries nothing for Leasehold and exits after reading stdin, with
// only this module and hookTriage.ts loaded; the rest (zod, the planner, process walking,
// node:http) is a dynamic import. Always exit 0, print nothing; errors go to hook.log.
import { fstatSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { carriesNothing, hookEventName } from '../claude/hookTriage.ts';
import { defaultRuntimeDir } from '../runtime/paths.ts';

function readStdin(): Promise<string> {
  try {
    // Claude Code pipes the input. A terminal (someone ran the hook by hand) would block
    // forever, and /dev/null holds nothing: no input then.
    if (fstatSync(0).isCharacterDevice()) return Promise.resolve('');
    return Promise.resolve(readFileSync(0, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return Promise.resolve('');
  }
  // A non-blocking pipe: read it as a stream instead.
  return new Promise((resolve) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', () => resolve(text));
  });
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
  if (notJson === undefined && carriesNothing(hookEventName(payload, argvEvent), payload)) return;

  // Past triage: cache compiled code of the bigger chunk across the many short hook processes.
  module.enableCompileCache?.();
  const runtimeDir = defaultRuntimeDir();
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
