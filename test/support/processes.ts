// Real child processes for tests that hold on, observe or wait for one.
import { spawn, type ChildProcess } from 'node:child_process';

/** A real `sleep` child, resolved once it has started (its pid is live and readable in /proc). */
export function startSleeper(seconds = 60): Promise<ChildProcess> {
  const child = spawn('sleep', [String(seconds)], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

/** Resolves once `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}
