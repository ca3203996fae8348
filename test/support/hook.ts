// Runs the built hook bundle (dist/cli/hook.js, what the installed Claude Code hooks run) as
// a real process, and reads fixtures from test/fixtures/claude-hooks.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const HOOK_BUNDLE = fileURLToPath(new URL('../../dist/cli/hook.js', import.meta.url));
export const FIXTURE_SESSION = '7b756a54-68b3-4387-9af5-1b24ed317d93';

/** A fixture with its session id (and any other top-level field) replaced. */
export function hookFixture(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const payload = JSON.parse(readFileSync(new URL(`../fixtures/claude-hooks/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
  return { ...payload, ...overrides };
}

export interface HookResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node dist/cli/hook.js hook <event>` with the payload on stdin; env is added to a copy without LEASEHOLD_PANE. */
export function runHook(event: string, payload: unknown, env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<HookResult> {
  return new Promise((resolve, reject) => {
    const base = { ...process.env };
    delete base.LEASEHOLD_PANE;
    const child = spawn(process.execPath, [HOOK_BUNDLE, 'hook', event], { env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  });
}
