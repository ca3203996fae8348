// The hook's own log: <runtime dir>/hook.log, mode 0600, one line per entry. The hook never
// writes to stdout or stderr on Claude Code's behalf (stdout is parsed as hook JSON), so its
// errors land here. Kept small: past 1 MiB the file is rotated to hook.log.1.
import { nodeFs } from '../runtime/builtins.ts';
import { runtimeFiles } from '../runtime/paths.ts';

// node:fs through builtins.ts: an ESM import of it costs the hook process ~6 ms (see there).
const { appendFileSync, chmodSync, mkdirSync, renameSync, statSync } = nodeFs();

const MAX_LOG_BYTES = 1024 * 1024;

export type HookLogLevel = 'info' | 'warn' | 'error';
export type HookLog = (level: HookLogLevel, message: string, fields?: Record<string, unknown>) => void;

export function hookLogPath(runtimeDir: string): string {
  return runtimeFiles.hookLog(runtimeDir);
}

/** A logger that appends to the hook log; it swallows its own failures (a full disk must not fail the hook). */
export function openHookLog(runtimeDir: string, nowMs: () => number = Date.now): HookLog {
  const path = hookLogPath(runtimeDir);
  return (level, message, fields) => {
    try {
      mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
      try {
        if (statSync(path).size > MAX_LOG_BYTES) renameSync(path, `${path}.1`);
      } catch {
        /* no log yet */
      }
      const line = `${new Date(nowMs()).toISOString()} ${level} pid=${process.pid} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`;
      appendFileSync(path, line, { mode: 0o600 });
      // appendFileSync's mode applies only on creation; an older file made looser is tightened.
      chmodSync(path, 0o600);
    } catch {
      /* nowhere left to report to */
    }
  };
}
