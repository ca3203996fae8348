// Walking the process tree, for the hook: up (ancestry) to find which registered terminal a
// Claude session runs in, and down (descendants) to find a backgrounded job's process.
// The per-process primitives live in src/server/observe/processInfo.ts because the
// server's hold loop needs exactly the same identity (pid + start time); that file is a
// leaf with no server state, which is why this glue module may import it.

import { descendantsIn } from '../core/processTree.ts';
import { listProcesses, readArgv, readCommandLine, readProcessInfo } from '../server/observe/processInfo.ts';
import type { ProcessInfo } from '../server/observe/processInfo.ts';

export { isSameProcess, readCommandLine, readProcessInfo } from '../server/observe/processInfo.ts';
export type { ProcessInfo } from '../server/observe/processInfo.ts';

export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

type ReadProcess = (pid: number) => ProcessInfo | null;

// A cycle or an absurd depth means the table changed under us; stop rather than spin.
const MAX_ANCESTRY_DEPTH = 256;

/**
 * The process and its ancestors, nearest first, each with its start time, ending at pid 1
 * (or wherever the chain breaks because an ancestor already exited).
 */
export function ancestry(pid: number, read: ReadProcess = readProcessInfo): ProcessInfo[] {
  const chain: ProcessInfo[] = [];
  const seen = new Set<number>();
  let current = pid;
  while (current > 0 && !seen.has(current) && chain.length < MAX_ANCESTRY_DEPTH) {
    seen.add(current);
    const info = read(current);
    if (info === null) break;
    chain.push(info);
    if (current === 1) break;
    current = info.ppid;
  }
  return chain;
}

/**
 * The nearest ancestor of `pid` (or `pid` itself) that is one of `candidates`, matched on pid
 * AND start time so a recycled pid never binds a session to the wrong terminal.
 */
export function findAncestorAmong<C extends ProcessIdentity>(
  pid: number,
  candidates: readonly C[],
  read: ReadProcess = readProcessInfo,
): { candidate: C; depth: number } | null {
  const chain = ancestry(pid, read);
  for (let depth = 0; depth < chain.length; depth++) {
    const step = chain[depth];
    const candidate = candidates.find((c) => c.pid === step.pid && c.startTime === step.startTime);
    if (candidate) return { candidate, depth };
  }
  return null;
}

/**
 * All live descendants of `pid`, breadth first (children before grandchildren). Snapshot of
 * one process-table scan, walked by core's descendantsIn; a process reparented to init (double
 * fork, setsid daemons) is no longer a descendant and will not appear.
 */
export function descendants(pid: number, list: () => ProcessInfo[] = listProcesses): ProcessInfo[] {
  // A zombie has exited, waiting to be reaped: nothing to wait for.
  return descendantsIn(pid, list().filter((info) => info.state !== 'Z'));
}

/**
 * The deepest descendant of `pid` whose command line contains `commandText`: the process
 * that actually runs a backgrounded command rather than the shell wrapping it. Null when
 * none matches, e.g. the command already finished or was reparented away.
 */
export function findDescendantRunning(
  pid: number,
  commandText: string,
  list: () => ProcessInfo[] = listProcesses,
  readArgs: (pid: number) => string | null = readCommandLine,
): ProcessInfo | null {
  const needle = commandText.trim();
  if (needle === '') return null;
  let match: ProcessInfo | null = null;
  for (const info of descendants(pid, list)) {
    if (readArgs(info.pid)?.includes(needle)) match = info; // breadth-first: later = deeper
  }
  return match;
}

/** `text` as one single-quoted sh word, the way Claude Code quotes a command for `eval`. */
export function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The process Claude Code spawned for a Bash command. Claude Code (2.1.332) runs every command
 * as `bash -c '<snapshot> && eval <command, single-quoted> < /dev/null && pwd -P >| <file>'`,
 * so a command holding a single quote never appears verbatim in any command line: the quoted
 * form does, in the wrapper shell, whose life is exactly the command's. Matched first; the raw
 * text (an older spawn form, or a command run some other way) is the fallback.
 */
export function findClaudeCodeCommand(
  pid: number,
  commandText: string,
  list: () => ProcessInfo[] = listProcesses,
  readArgs: (pid: number) => string | null = readCommandLine,
): ProcessInfo | null {
  const command = commandText.trim();
  if (command === '') return null;
  const table = list();
  const snapshot = () => table;
  const evalForm = `eval ${singleQuoted(commandText)}`;
  for (const info of descendants(pid, snapshot)) {
    if (readArgs(info.pid)?.includes(evalForm)) return info; // breadth-first: the wrapper itself
  }
  return findDescendantRunning(pid, command, snapshot, readArgs);
}

/**
 * The newest `claude attach <id>` client showing this session (2.1.332): `claude attach` takes
 * the short id (the session id's first 8 characters) or the full id. Claude Code fires no hook
 * when a terminal attaches, so the client's own process, running in that terminal, is how the
 * hook finds the pane an attached background session is shown in. Null when none runs.
 */
export function findAttachClient(
  sessionId: string,
  list: () => ProcessInfo[] = listProcesses,
  readArgs: (pid: number) => string[] | null = readArgv,
): ProcessInfo | null {
  const names = new Set([sessionId, sessionId.slice(0, 8)]);
  let newest: ProcessInfo | null = null;
  for (const info of list()) {
    if (info.state === 'Z' || !/^claude/.test(info.comm)) continue;
    const argv = readArgs(info.pid);
    const at = argv?.indexOf('attach') ?? -1;
    if (argv === null || argv === undefined || at < 1 || !names.has(argv[at + 1] ?? '')) continue;
    if (newest === null || Number(info.startTime) > Number(newest.startTime)) newest = info;
  }
  return newest;
}

/**
 * The session a background session was forked from: Claude Code (2.1.332) starts it as
 * `claude --session-id NEW --fork-session --resume <dir>/<OLD>.jsonl`. Read from the session
 * process's own command line (CLAUDE_PID in the hook's environment); undefined otherwise.
 */
export function forkParentOf(sessionPid: number, readArgs: (pid: number) => string[] | null = readArgv): string | undefined {
  const argv = readArgs(sessionPid);
  if (argv === null || !argv.includes('--fork-session')) return undefined;
  const resumed = argv[argv.indexOf('--resume') + 1];
  if (argv.indexOf('--resume') < 0 || resumed === undefined) return undefined;
  const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.jsonl)?$/i.exec(resumed)?.[1];
  return id;
}
