// How the lease server's process starts so that its resident memory stays bounded (issue 11).
// Under load (thousands of todos, a thousand wait-leases) three things grow and are not given
// back: V8's young generation (semi-spaces sized from the machine's memory, up to tens of MB),
// glibc's per-thread malloc arenas (one per core per thread that ever allocated), and blocks
// of 32-64 KB that V8's optimizing compilers malloc and free (the growth goes with them turned
// off), which glibc keeps in its heap once its dynamic mmap threshold has risen past them.
// Capping all three costs no measurable speed on this server's workload and keeps it near
// 90 MB instead of 110+ (`npm run bench -- serverSettings` measures each setting against the
// rest; docs/benchmarks.md). The young generation gets 2 MB semi-spaces: 1 MB saved about
// 1 MB more but made the hold loop's tick that renews 1,000 leases collect so often that it
// cost a third more CPU. None can be changed once the process runs: the semi-space size is
// fixed when V8 sets up its heap (v8.setFlagsFromString at startup does not apply it) and
// glibc reads its MALLOC_ variables when malloc initializes. So every way the server is
// started passes them: the extension's supervisor and scripts/start.sh at spawn, and
// `leasehold serve` re-executes itself once (same pid, stdio and signals) when started
// without them.

/** Node flags for the server process. */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

/** Environment for the server process (glibc; ignored elsewhere). A fixed mmap threshold gives blocks of 32 KB and more back to the system when freed. */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768' };

/** Set on the re-executed process so that it never re-executes again. */
export const SERVER_EXEC_MARK = 'LEASEHOLD_SERVE_EXECED';

function mentions(args: readonly string[], env: NodeJS.ProcessEnv, flag: string): boolean {
  const names = [flag, flag.replaceAll('-', '_').replace(/^__/, '--')];
  const given = [...args, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((arg) => names.some((name) => arg === name || arg.startsWith(`${name}=`)));
}

/**
 * What this process lacks of the server's memory settings: the flags and env to add. A value
 * the user set (a flag in execArgv or NODE_OPTIONS, the env variable) is theirs and stays.
 */
export function missingServerSettings(execArgv: readonly string[], env: NodeJS.ProcessEnv): { flags: string[]; env: Record<string, string> } {
  const flags = SERVER_NODE_FLAGS.filter((flag) => !mentions(execArgv, env, flag.split('=')[0]!));
  const missingEnv = Object.fromEntries(Object.entries(SERVER_ENV).filter(([name]) => env[name] === undefined));
  return { flags, env: missingEnv };
}

/** The settings a server spawned with `env` lacks: the flags to pass it and the env to add. */
export function serverSpawnSettings(env: NodeJS.ProcessEnv): { flags: string[]; env: Record<string, string> } {
  return missingServerSettings([], env);
}

/**
 * Replaces this process with one that has the memory settings (process.execve: same pid,
 * stdio, signals and exit code, so supervisors and the single-instance lock see no
 * difference), when it lacks them. Returns only when nothing needed doing or it cannot
 * (Windows, a Node without process.execve, already re-executed, or execve failed): the
 * server then runs as it is.
 */
export function reexecWithServerSettings(proc: NodeJS.Process = process): void {
  if (proc.env[SERVER_EXEC_MARK] === '1' || proc.platform === 'win32' || typeof proc.execve !== 'function') return;
  const missing = missingServerSettings(proc.execArgv, proc.env);
  if (missing.flags.length === 0 && Object.keys(missing.env).length === 0) return;
  try {
    proc.execve(proc.execPath, [proc.execPath, ...proc.execArgv, ...missing.flags, ...proc.argv.slice(1)], {
      ...proc.env,
      ...missing.env,
      [SERVER_EXEC_MARK]: '1',
    });
  } catch {
    // execve itself failed (the process is intact): serve without the settings rather than not at all.
  }
}
