// Runs the bundled `leasehold` CLI on the chosen runtime (VS Code's own as Node, or a Node on
// PATH) and returns its stdout; used for `hooks install|uninstall|status`.
import { execFile } from 'node:child_process';
import { cliInvocation, type ServerRuntime } from './runtime.ts';

export interface CliRun {
  runtime: Pick<ServerRuntime, 'command' | 'env'>;
  cliScript: string;
  runtimeDir: string;
  cwd: string;
  log: (line: string) => void;
}

export function runCli(run: CliRun, args: readonly string[], timeoutMs = 30_000): Promise<string> {
  const cli = cliInvocation(run.runtime, run.cliScript, args, process.env, run.runtimeDir);
  run.log(`running ${Object.entries(run.runtime.env).map(([name, value]) => `${name}=${value} `).join('')}${cli.command} ${cli.args.join(' ')}`);
  return new Promise((resolve, reject) => {
    execFile(cli.command, cli.args, { cwd: run.cwd, timeout: timeoutMs, env: cli.env }, (error, stdout, stderr) => {
      if (stderr.trim()) run.log(`[${args.slice(0, 2).join(' ')}] ${stderr.trim()}`);
      if (error) reject(new Error(`leasehold ${args.slice(0, 2).join(' ')} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}
