// `leasehold`: the command-line face of the lease server.
import { Command, CommanderError } from 'commander';
import { LEASEHOLD_VERSION } from '../server/version.ts';
import { registerEndpoint } from './commands/endpoint.ts';
import { registerHook } from './commands/hook.ts';
import { registerHooks, registerMcpConfig } from './commands/hooks.ts';
import { registerServe } from './commands/serve.ts';
import { registerTodo } from './commands/todo.ts';
import { registerPane } from './commands/pane.ts';
import { registerConsumers } from './commands/consumers.ts';
import { registerStatus } from './commands/status.ts';
import { describeError, ExitWith, exitCodeFor } from './output.ts';

export function buildProgram(): Command {
  const program = new Command('leasehold')
    .description('Leases that tell a healthy wait from a stall: claim leases for workers, wait-leases for terminal panes.')
    .version(LEASEHOLD_VERSION)
    .option('--server <url>', 'lease server URL (default: from the runtime dir; env LEASEHOLD_URL)')
    .option('--token <token>', 'API token (default: the runtime dir token file; env LEASEHOLD_TOKEN)')
    .option('--runtime-dir <dir>', 'runtime dir with server.json and the token (env LEASEHOLD_RUNTIME_DIR)')
    .option('--json', 'print JSON instead of text')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
  registerServe(program);
  registerEndpoint(program);
  registerTodo(program);
  registerHook(program);
  registerHooks(program);
  registerMcpConfig(program);
  registerPane(program);
  registerConsumers(program);
  registerStatus(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      return 2; // commander already printed the usage problem
    }
    if (error instanceof ExitWith) return error.exitCode;
    process.stderr.write(`leasehold: ${describeError(error)}\n`);
    return exitCodeFor(error);
  }
}
