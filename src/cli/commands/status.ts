// `leasehold status`: is the lease server up, and is hook delivery healthy (the spool's
// pending and quarantined entries, its last replay and last error)?
import type { Command } from 'commander';
import { spoolSummaryLines } from '../../core/wire/status.ts';
import { connect, type ConnectionOptions } from '../connect.ts';
import { printJson } from '../output.ts';

type Globals = ConnectionOptions & { json?: boolean };

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description("the lease server's health and the hook delivery spool: pending, quarantined, last replay, last error")
    .action(async (_options: unknown, command: Command) => {
      const opts = command.optsWithGlobals() as Globals;
      const client = connect(opts);
      const status = await client.status();
      if (opts.json) return printJson(status);
      const lines = [
        `lease server ${status.version} at ${client.baseUrl} (pid ${status.pid}, ${status.storage}, schema v${status.schema_version})`,
        ...spoolSummaryLines(status.spool, Date.now()),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
