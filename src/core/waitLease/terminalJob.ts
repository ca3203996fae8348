// What a terminal pane runs, from what the kernel says of its processes: the job in the
// terminal's foreground process group, and whether that is only a shell sitting at its prompt.
// Pure rules for the inferred tier (inferred.ts); the server's observer brings the readings
// (src/server/waitLeases/inference.ts).

/** One process as the observer saw it. */
export interface SeenProcess {
  pid: number;
  startTime: string;
  /** Its argv (null: unreadable). */
  argv: readonly string[] | null;
  comm: string;
  /** Its process group (null: unknown). */
  pgrp: number | null;
}

/** A pane's terminal and the processes under it, as one observation tick saw them. */
export interface TerminalView {
  /**
   * The pane's registered process itself, while it runs: a shell, or a program the terminal
   * runs in place of one (a terminal profile whose program is claude).
   */
  shell: SeenProcess | null;
  /** The shell's direct children, oldest first (a pipeline's head first). */
  children: readonly SeenProcess[];
  /**
   * The foreground process group of the pane's terminal (the job that has it now), read off the
   * shell; null when the shell has no terminal (its children are then all its job).
   */
  foregroundGroup: number | null;
  /** The pane's processes (its shell and all below it) in the terminal's foreground group. */
  foregroundMembers: readonly number[];
  /** Every pid in the subtree of a process (the process included). */
  subtreeOf: (pid: number) => ReadonlySet<number>;
  /** The kernel's name (comm) of a process in the table, by pid. */
  commOf: (pid: number) => string | undefined;
  /** A process's argv (null: unreadable); read when asked. */
  argvOf: (pid: number) => readonly string[] | null;
  /** Whether a process reads its standard input from a terminal (null: unknown); read when asked. */
  stdinIsTerminalOf: (pid: number) => boolean | null;
}

/**
 * The shell's children that make up the pane's running job, head first: those in the
 * terminal's foreground process group, or with a process of it in their subtree (a program
 * that gave the terminal to a group of its own). A job stopped with Ctrl+Z or run with `&` is
 * not in the foreground: the shell has the terminal, at its prompt, and nothing runs there. A
 * shell without job control runs its commands in its own group, which has the terminal: they
 * are its job. Without a terminal (a shell on pipes), every child is.
 */
export function paneForegroundJob(observation: Pick<TerminalView, 'children' | 'foregroundGroup' | 'foregroundMembers' | 'subtreeOf'>): readonly SeenProcess[] {
  const members = observation.foregroundMembers;
  // No terminal; or a foreground group none of the pane's processes is in (its job left it for a
  // group of its own without taking the terminal): the process tree alone speaks, as without one.
  if (observation.foregroundGroup === null || members.length === 0) return observation.children;
  return observation.children.filter((child) => members.some((pid) => observation.subtreeOf(child.pid).has(pid)));
}

/** Shells by program name (a login shell's argv[0] has a leading dash). */
const SHELL_PROGRAMS: readonly string[] = ['bash', 'zsh', 'fish', 'sh', 'dash', 'ash', 'ksh', 'mksh', 'tcsh', 'csh', 'nu', 'pwsh', 'elvish', 'xonsh'];
/** Shell options whose value is the next argument (not a script to run). */
const SHELL_OPTIONS_WITH_VALUE: readonly string[] = ['--rcfile', '--init-file', '-o', '+o', '-O', '+O', '--init-command', '-C'];

/**
 * Whether a process is an interactive shell: a shell by name whose arguments name no script
 * and no command (`bash`, `-zsh`, `bash --rcfile rc`, as nix-shell starts one; not `bash -c …`,
 * `sh build.sh` or `fish --command=…`) and whose input, when known, is a terminal (not
 * `sh < install.sh`). An unreadable argv is not known to be one.
 */
export function isInteractiveShell(process: { comm: string | undefined; argv: readonly string[] | null; stdinIsTerminal?: boolean | null }): boolean {
  const argv = process.argv;
  if (argv === null || argv.length === 0 || process.stdinIsTerminal === false) return false;
  const name = (argv[0]!.split('/').pop() ?? '').replace(/^-/, '');
  if (!SHELL_PROGRAMS.includes(name) && !SHELL_PROGRAMS.includes(process.comm ?? '')) return false;
  if (argv.slice(1).some((arg) => /^--command/.test(arg) || /^-[A-Za-z]*c[A-Za-z]*$/.test(arg))) return false; // -c, -lc, fish --command
  // Commands from standard input (the terminal): the operands after -s are arguments, not a script.
  let fromInput = false;
  for (let index = 1; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--') return fromInput || index === argv.length - 1;
    if (/^-[A-Za-z]*s[A-Za-z]*$/.test(arg)) fromInput = true;
    if (SHELL_OPTIONS_WITH_VALUE.includes(arg)) index += 1;
    else if (!arg.startsWith('-') && !arg.startsWith('+')) return fromInput; // a script, unless -s
  }
  return true;
}

/**
 * Whether the terminal's foreground is a shell at its prompt: the pane's own shell, or one it
 * runs (`bash` typed at the prompt, nix-shell), with no job of its own in front of it. Nothing
 * runs in the pane then. (A shell running a job gives the terminal to the job's group.)
 */
export function shellAtItsPrompt(observation: TerminalView): boolean {
  const members = observation.foregroundMembers;
  if (observation.foregroundGroup === null || members.length === 0) return false;
  return members.every(
    (pid) =>
      (observation.shell !== null && pid === observation.shell.pid) ||
      // A shell's comm is its program's name: anything else is no shell, its argv unread.
      (SHELL_PROGRAMS.includes(observation.commOf(pid) ?? '') &&
        isInteractiveShell({ comm: observation.commOf(pid), argv: observation.argvOf(pid), stdinIsTerminal: observation.stdinIsTerminalOf(pid) })),
  );
}
