// `leasehold endpoint vend|edit|list|revoke|show`
import type { Command } from 'commander';
import { formatDurationSeconds, parseDurationSeconds } from '../../core/duration.ts';
import type { EndpointView } from '../../core/wire/claims.ts';
import { isVerb, type Verb } from '../../core/verbs.ts';
import { connect, type ConnectionOptions } from '../connect.ts';
import { printJson, printTable, UsageError } from '../output.ts';

/** `--lease-ttl`: a duration (90s, 15m, 1h, seconds) or `default` (null: the server default). */
export function parseLeaseTtlOption(value: string): number | null {
  if (value.trim().toLowerCase() === 'default') return null;
  const parsed = parseDurationSeconds(value);
  if (!parsed.ok) throw new UsageError(`--lease-ttl: ${parsed.message}, or "default"`);
  return parsed.seconds;
}

function parseScope(value: string): Verb[] {
  const verbs = value.split(',').map((verb) => verb.trim()).filter(Boolean);
  const unknown = verbs.filter((verb) => !isVerb(verb));
  if (unknown.length) throw new UsageError(`--scope: unknown verb(s) ${unknown.join(', ')}`);
  return verbs as Verb[];
}

export function leaseColumn(endpoint: EndpointView): string {
  const whose = endpoint.effective_lease_source === 'endpoint' ? "this endpoint's default" : 'server default';
  return `${formatDurationSeconds(endpoint.effective_lease_ttl_seconds)} (${whose})`;
}

export function registerEndpoint(program: Command): void {
  const endpoint = program.command('endpoint').description('vend, edit, list and revoke worker endpoints');
  const globals = (command: Command) => command.optsWithGlobals() as ConnectionOptions & { json?: boolean };

  endpoint
    .command('vend <slug>')
    .description('vend a new endpoint and print its token (shown once)')
    .option('--lease-ttl <duration>', 'default claim lease: 60s..24h (e.g. 90s, 15m, 1h) or "default"')
    .option('--scope <verbs>', 'comma-separated verbs to grant (default: all)')
    .option('--name <name>', 'display name')
    .option('--friend', 'vend a friend endpoint (cannot hold get/set_default_lease)')
    .action(async (slug: string, options: { leaseTtl?: string; scope?: string; name?: string; friend?: boolean }, command: Command) => {
      const opts = globals(command);
      const client = connect(opts);
      const vended = await client.vendEndpoint({
        slug,
        name: options.name,
        scope: options.scope ? parseScope(options.scope) : undefined,
        friend: options.friend,
        default_lease_ttl_seconds: options.leaseTtl === undefined ? undefined : parseLeaseTtlOption(options.leaseTtl),
      });
      if (opts.json) return printJson(vended);
      process.stdout.write(
        `Vended endpoint ${vended.endpoint.slug} (${vended.endpoint.id}); lease ${leaseColumn(vended.endpoint)}\n` +
          `MCP URL: ${vended.mcp_url}\nToken (shown once): ${vended.token}\n`,
      );
    });

  endpoint
    .command('edit <ref>')
    .description("edit an endpoint's default claim lease")
    .requiredOption('--lease-ttl <duration>', 'new default: 60s..24h (e.g. 90s, 15m, 1h, 3600) or "default" to reset')
    .action(async (ref: string, options: { leaseTtl: string }, command: Command) => {
      const opts = globals(command);
      const updated = await connect(opts).editEndpoint(ref, { default_lease_ttl_seconds: parseLeaseTtlOption(options.leaseTtl) });
      if (opts.json) return printJson(updated);
      process.stdout.write(`Endpoint ${updated.slug}: lease ${leaseColumn(updated)}\n`);
    });

  endpoint
    .command('list')
    .description('list your endpoints with their effective lease')
    .action(async (_options: unknown, command: Command) => {
      const opts = globals(command);
      const endpoints = await connect(opts).listEndpoints();
      if (opts.json) return printJson(endpoints);
      if (endpoints.length === 0) {
        process.stdout.write('No endpoints yet. Vend one with `leasehold endpoint vend SLUG`.\n');
        return;
      }
      process.stdout.write(
        `${printTable(
          endpoints.map((item) => ({ SLUG: item.slug, ID: item.id, STATE: item.state, LEASE: leaseColumn(item), SCOPE: item.scope.join(',') })),
          ['SLUG', 'ID', 'STATE', 'LEASE', 'SCOPE'],
        )}\n`,
      );
    });

  endpoint
    .command('show <ref>')
    .description('show one endpoint')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const opts = globals(command);
      const found = await connect(opts).getEndpoint(ref);
      if (opts.json) return printJson(found);
      process.stdout.write(`${found.slug} (${found.id}) ${found.state}; lease ${leaseColumn(found)}; scope ${found.scope.join(',')}\n`);
    });

  endpoint
    .command('revoke <ref>')
    .description('revoke an endpoint: its token stops working, the todos it holds go back to their queues at once, and it can no longer be edited')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const opts = globals(command);
      const revoked = await connect(opts).revokeEndpoint(ref);
      if (opts.json) return printJson(revoked);
      process.stdout.write(`Revoked endpoint ${revoked.slug}\n`);
    });
}
