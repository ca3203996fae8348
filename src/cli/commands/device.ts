// `leasehold device list|revoke`: your device tokens, one per machine you run a server on.
import type { Command } from 'commander';
import { connect, type ConnectionOptions } from '../connect.ts';
import { printJson, printTable } from '../output.ts';

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));

export function registerDevice(program: Command): void {
  const device = program.command('device').description('your device tokens (team mode: one per machine you run a lease server on)');
  const globals = (command: Command) => command.optsWithGlobals() as ConnectionOptions & { json?: boolean };

  device
    .command('list')
    .description('list your devices: which machine, when made, last used, revoked')
    .action(async (_options: unknown, command: Command) => {
      const opts = globals(command);
      const devices = await connect(opts).listDevices();
      if (opts.json) return printJson(devices);
      process.stdout.write(
        `${printTable(
          devices.map((item) => ({
            ID: `${item.id}${item.current ? ' (this one)' : ''}`,
            MACHINE: `${item.machine ?? item.label} (${item.machine_id})`,
            STATE: item.state,
            CREATED: when(item.created_at),
            'LAST USED': when(item.last_used_at),
          })),
          ['ID', 'MACHINE', 'STATE', 'CREATED', 'LAST USED'],
        )}\n`,
      );
    });

  device
    .command('revoke <id>')
    .description("revoke one device's token (the others keep working; that machine's server issues a new one when it restarts)")
    .action(async (id: string, _options: unknown, command: Command) => {
      const opts = globals(command);
      const revoked = await connect(opts).revokeDevice(id);
      if (opts.json) return printJson(revoked);
      process.stdout.write(`Revoked device ${revoked.id} (${revoked.machine ?? revoked.label})\n`);
    });
}
