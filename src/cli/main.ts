// `leasehold`: the command-line face of the lease server.
import { Command, CommanderError } from 'commander';
import { LEASEHOLD_VERSION } from '../server/version.ts';
import { registerEndpoint } from './commands/endpoint.ts';
import { registerDevice } from './commands/device.ts';
import { registerHook } from './commands/hook.ts';
import { registerHooks, registerMcpConfig } from './commands/hooks.ts';
import { registerServe } from './commands/serve.ts';
import { registerTodo } from './commands/todo.ts';
import { registerPane } from './commands/pane.ts';
import { registerConsumers } from './commands/consumers.ts';
import { registerStatus } from './commands/status.ts';
import { registerRun } from './commands/run.ts';
import { describeError, ExitWith, exitCodeFor } from './output.ts';
import { warnSecretOnCommandLine } from './connect.ts';

export function buildProgram(): Command {
  const program = new Command('leasehold')
    .description('Leases that tell a healthy wait from a stall: claim leases for workers, wait-leases for terminal panes.')
    .version(LEASEHOLD_VERSION)
    .option('--server <url>', 'lease server URL (default: from the runtime dir; env LEASEHOLD_URL)')
    .option('--token <token>', 'API token; visible to other users in `ps`, so prefer env LEASEHOLD_TOKEN or --token-file (default: the runtime dir token file)')
    .option('--token-file <path>', 'read the API token from a file readable by you alone (mode 600)')
    .option('--runtime-dir <dir>', 'runtime dir with server.json and the token (env LEASEHOLD_RUNTIME_DIR)')
    .option('--json', 'print JSON instead of text')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
  // Secrets on argv are readable by every user (ps, /proc): said once, with where to put them instead.
  program.hook('preAction', (_program, action) => {
    const opts = action.optsWithGlobals() as { token?: string; leaseToken?: string };
    if (opts.token !== undefined) {
      warnSecretOnCommandLine('--token', action.name() === 'mcp-config' ? 'LEASEHOLD_ENDPOINT_TOKEN or --token-env' : 'LEASEHOLD_TOKEN or --token-file');
    }
    if (opts.leaseToken !== undefined) warnSecretOnCommandLine('--lease-token', 'LEASEHOLD_LEASE_TOKEN');
  });
  registerServe(program);
  registerEndpoint(program);
  registerTodo(program);
  registerHook(program);
  registerHooks(program);
  registerMcpConfig(program);
  registerPane(program);
  registerConsumers(program);
  registerStatus(program);
  registerDevice(program);
  registerRun(program);
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
