// Process identity that survives pid reuse: a pid alone can name a different process a
// minute later, so every observation pairs the pid with the process's start time. Used by
// the server's hold loop (is the awaited job still the same process?) and by the Claude
// hook's pane discovery (src/claude/processTree.ts). Leaf module: no server state, no
// vscode, only node:fs and `ps`, so the hook bundle can include it cheaply.

import { nodeFs, nodeChildProcess } from '../../runtime/builtins.ts';

// node:fs through builtins.ts: an ESM import of it costs the hook process ~6 ms (see there).
const { readFileSync, readdirSync, readlinkSync } = nodeFs();

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /**
   * Identifies this process's start. Linux: field 22 (`starttime`) of /proc/<pid>/stat, clock
   * ticks since boot, as a decimal string. macOS: `ps -o lstart=` normalised to single
   * spaces (one-second resolution, so a pid reused within the same second is not caught
   * there). Compare only values produced by this module on the same machine and boot.
   */
  startTime: string;
  /** Single-letter scheduler state (R, S, D, Z, ...). "Z" means exited but not yet reaped. */
  state: string;
  comm: string;
  /** Its process group. */
  pgrp?: number;
  /**
   * The foreground process group of its controlling terminal (the job that has the terminal
   * now); absent when it has no controlling terminal.
   */
  tpgid?: number;
  /**
   * CPU time used, in clock ticks: user + system of the process and of its children it has
   * waited for (Linux /proc stat fields 14-17). Undefined where the platform does not say
   * cheaply (macOS). Only its movement means anything: it is a progress marker.
   */
  cpuTicks?: number;
}

const isLinux = process.platform === 'linux';

/**
 * Parses one /proc/<pid>/stat line. The comm field is wrapped in parentheses and may itself
 * contain spaces and parentheses ("(sh) (x)"), so the fields after it start at the LAST ")".
 */
export function parseProcStat(text: string): ProcessInfo | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const comm = text.slice(open + 1, close);
  // After ") " the fields are numbered from 3 (state); starttime is field 22.
  const rest = text.slice(close + 2).trim().split(/\s+/);
  const state = rest[0];
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[5 - 3]);
  const tpgid = Number(rest[8 - 3]);
  const startTicks = rest[22 - 3];
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || state === undefined || !/^\d+$/.test(startTicks ?? '')) {
    return null;
  }
  const cpu = [rest[14 - 3], rest[15 - 3], rest[16 - 3], rest[17 - 3]].map(Number);
  const cpuTicks = cpu.every((value) => Number.isSafeInteger(value) && value >= 0) ? cpu.reduce((sum, value) => sum + value, 0) : undefined;
  return { pid, ppid, startTime: startTicks, state, comm, ...(cpuTicks === undefined ? {} : { cpuTicks }), ...groups(pgrp, tpgid) };
}

/** pgrp and tpgid when they are numbers; tpgid only when there is a controlling terminal (-1 or 0 says none). */
function groups(pgrp: number, tpgid: number): Pick<ProcessInfo, 'pgrp' | 'tpgid'> {
  return { ...(Number.isInteger(pgrp) && pgrp > 0 ? { pgrp } : {}), ...(Number.isInteger(tpgid) && tpgid > 0 ? { tpgid } : {}) };
}

/**
 * Parses one line of `ps -o pid=,ppid=,pgid=,tpgid=,lstart=,stat=,comm=` (macOS), or without
 * pgid and tpgid (`withGroups` false: a ps that does not know them). lstart is always five
 * tokens ("Mon Dec  2 12:00:00 2026"); comm comes last because it may contain spaces.
 */
export function parsePsLine(line: string, withGroups = true): ProcessInfo | null {
  const tokens = line.trim().split(/\s+/);
  const at = withGroups ? 4 : 2;
  if (tokens.length < at + 7) return null;
  const pid = Number(tokens[0]);
  const ppid = Number(tokens[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return null;
  return {
    pid,
    ppid,
    startTime: tokens.slice(at, at + 5).join(' '),
    state: tokens[at + 5]!.charAt(0),
    comm: tokens.slice(at + 6).join(' '),
    ...(withGroups ? groups(Number(tokens[2]), Number(tokens[3])) : {}),
  };
}

const PS_COLUMNS = 'pid=,ppid=,pgid=,tpgid=,lstart=,stat=,comm=';
const PS_COLUMNS_WITHOUT_GROUPS = 'pid=,ppid=,lstart=,stat=,comm=';

/**
 * `ps -o <columns> <selection>`'s lines, parsed. A ps that does not know pgid or tpgid fails
 * (no output): the first time that happens, whether it knows them is settled by asking it about
 * this very process, and from then on the columns it knows are asked for. The first call costs
 * one ps run wherever the columns are known (the hook process starts afresh for each event).
 */
let psKnowsGroups: boolean | undefined;
function psRows(selection: string[]): ProcessInfo[] {
  const run = (withGroups: boolean) =>
    runPs(['-o', withGroups ? PS_COLUMNS : PS_COLUMNS_WITHOUT_GROUPS, ...selection])
      .split('\n')
      .map((line) => parsePsLine(line, withGroups))
      .filter((info): info is ProcessInfo => info !== null);
  if (psKnowsGroups !== undefined) return run(psKnowsGroups);
  const rows = run(true);
  if (rows.length > 0) {
    psKnowsGroups = true;
    return rows;
  }
  // Nothing back: no such process, or a ps that refused the columns. Ask it about this process.
  psKnowsGroups = runPs(['-o', PS_COLUMNS, '-p', String(process.pid)]).trim() !== '';
  return psKnowsGroups ? rows : run(false);
}

function runPs(args: string[]): string {
  try {
    // LC_ALL=C keeps lstart in the fixed English five-token form parsePsLine expects.
    // Loaded only here (macOS and other non-/proc systems): the Claude Code hook imports this
    // file, and an ESM import of node:child_process costs it several ms on Linux for nothing.
    return nodeChildProcess().execFileSync('ps', args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return ''; // ps exits 1 when the pid does not exist
  }
}

/** The process as it is now, or null when no process has that pid. */
export function readProcessInfo(pid: number): ProcessInfo | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (isLinux) {
    try {
      return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return null;
    }
  }
  return psRows(['-p', String(pid)])[0] ?? null;
}

/**
 * True while the process that had `startTime` still runs under `pid`. A different start time
 * means the pid was reused; a zombie has already exited, so it does not count as running.
 */
export function isSameProcess(pid: number, startTime: string, read: (pid: number) => ProcessInfo | null = readProcessInfo): boolean {
  const info = read(pid);
  return info !== null && info.startTime === startTime && info.state !== 'Z';
}

/** Every process visible to this user, in no particular order. */
export function listProcesses(): ProcessInfo[] {
  if (isLinux) {
    const result: ProcessInfo[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const info = parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
        if (info) result.push(info);
      } catch {
        // exited between readdir and read: not a process any more
      }
    }
    return result;
  }
  return psRows(['-A']);
}

/**
 * Linux keeps each thread's children in /proc/<pid>/task/<tid>/children when the kernel is
 * built with CONFIG_PROC_CHILDREN (Debian's, Ubuntu's and Fedora's are). Asked of this process.
 */
let childrenFiles: boolean | undefined;
function hasChildrenFiles(): boolean {
  if (childrenFiles === undefined) {
    try {
      readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
      childrenFiles = true;
    } catch {
      childrenFiles = false;
    }
  }
  return childrenFiles;
}

/**
 * The processes of the trees under `roots`: each root and its descendants, followed through
 * each thread's children file, so the cost is that of the trees, not of the machine (the whole
 * table is ~15 ms with 580 processes, as on a developer's machine). A process that exits
 * meanwhile is left out, as it would be from a table read a moment later. Null where there are
 * no children files (not Linux, or a kernel without them): the caller reads the whole table.
 */
export function listProcessTrees(roots: readonly number[]): ProcessInfo[] | null {
  if (!isLinux || !hasChildrenFiles()) return null;
  const result: ProcessInfo[] = [];
  const queue = [...roots];
  const seen = new Set<number>();
  for (let index = 0; index < queue.length; index++) {
    const pid = queue[index]!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const info = readProcessInfo(pid);
    if (info === null) continue;
    result.push(info);
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited after its stat was read
    }
    for (const tid of threads) {
      let children: string;
      try {
        children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      } catch {
        continue; // the thread exited
      }
      for (const child of children.trim().split(/\s+/)) if (child !== '') queue.push(Number(child));
    }
  }
  return result;
}

/** The argv of a process joined with spaces, or null when it is gone or unreadable. */
export function readCommandLine(pid: number): string | null {
  if (isLinux) {
    try {
      const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return raw.split('\0').filter((part) => part !== '').join(' ');
    } catch {
      return null;
    }
  }
  const out = runPs(['-o', 'command=', '-p', String(pid)]).trim();
  return out === '' ? null : out;
}

/** A process's argv: exact on Linux (/proc cmdline), else the ps command line split on spaces. */
export function readArgv(pid: number): string[] | null {
  if (isLinux) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((part) => part !== '');
    } catch {
      return null;
    }
  }
  const line = readCommandLine(pid);
  return line === null ? null : line.split(' ');
}

/**
 * Whether a process reads its standard input from a terminal (Linux: /proc/<pid>/fd/0 names a
 * tty); null where that cannot be read cheaply (other systems, another user's process).
 */
export function readStdinIsTerminal(pid: number): boolean | null {
  if (!isLinux) return null;
  try {
    return /^\/dev\/(pts\/\d+|tty\w*|console)$/.test(readlinkSync(`/proc/${pid}/fd/0`));
  } catch {
    return null;
  }
}
