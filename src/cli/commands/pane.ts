// `leasehold pane register|list|display|close` and `leasehold pane wait-lease
// acquire|renew|release|hold|ceiling|list`. A pane is --pane NAME or LEASEHOLD_PANE; a lease
// is --lease ID (or LEASEHOLD_LEASE_ID), or found by --pane and --id JOB_REF. Writes that
// need the lease token take --lease-token or LEASEHOLD_LEASE_TOKEN; release without a token is the
// human's release-by-owner.
import type { Command } from 'commander';
import type { LeaseholdClient } from '../../client/client.ts';
import type { LeaseViewWire } from '../../core/waitLease/wire.ts';
import { PaneDisplayStateSchema } from '../../core/waitLease/wire.ts';
import { readProcessInfo } from '../../server/observe/processInfo.ts';
import { connect, type ConnectionOptions } from '../connect.ts';
import { printJson, printTable, UsageError } from '../output.ts';
import { formatMs, paneOf, parseInstantMs, parseWholeNumber, ttlMsOf } from './waitLeaseArgs.ts';

type Globals = ConnectionOptions & { json?: boolean };
const globals = (command: Command) => command.optsWithGlobals() as Globals;

interface LeaseRefOptions {
  lease?: string;
  pane?: string;
  id?: string;
}

/** The lease a command is about: --lease, LEASEHOLD_LEASE_ID, or the live lease of --pane/--id. */
async function resolveLeaseId(client: LeaseholdClient, options: LeaseRefOptions): Promise<string> {
  const explicit = options.lease ?? (options.id === undefined ? process.env.LEASEHOLD_LEASE_ID : undefined);
  if (explicit) return explicit;
  if (options.id === undefined) throw new UsageError('which lease? pass --lease ID, or --pane NAME with --id JOB_REF');
  const pane = paneOf(options);
  const leases = (await client.listWaitLeases({ pane })).filter((lease) => lease.job_ref === options.id && lease.state !== 'ended');
  const lease = leases.at(-1);
  if (!lease) throw new UsageError(`pane ${pane} has no live wait-lease for job ${options.id}`);
  return lease.lease_id;
}

function tokenOf(options: { leaseToken?: string }): string | undefined {
  return options.leaseToken ?? process.env.LEASEHOLD_LEASE_TOKEN;
}

function leaseRows(leases: LeaseViewWire[]): string {
  return printTable(
    leases.map((lease) => ({
      LEASE: lease.lease_id,
      PANE: `${lease.pane}#${lease.generation}`,
      JOB: lease.job_ref,
      TYPE: lease.job_type,
      KIND: lease.kind,
      STATE: lease.state,
      LEFT: lease.state === 'ended' ? '' : formatMs(lease.remaining_ms),
      OBSERVER: lease.observer.kind === 'pid' ? `pid ${lease.observer.pid}` : lease.observer.kind === 'provider_job' ? `job ${lease.observer.id}` : '',
      ENDED: lease.end_reason ? `${lease.end_reason}${lease.ended_ago_ms !== null ? ` ${formatMs(lease.ended_ago_ms)} ago` : ''}` : '',
      NOTE: lease.state_reason ?? '',
    })),
    ['LEASE', 'PANE', 'JOB', 'TYPE', 'KIND', 'STATE', 'LEFT', 'OBSERVER', 'ENDED', 'NOTE'],
  );
}

function printGrant(opts: Globals, grant: { lease_id: string; token: string; expires_in_ms: number; clamped_by: string[] }, what: string): void {
  if (opts.json) return printJson(grant);
  const clamp = grant.clamped_by.length ? ` (clamped by ${grant.clamped_by.join(', ')})` : '';
  process.stderr.write(`${what}: ${formatMs(grant.expires_in_ms)} of authority${clamp}. The token is shown once.\n`);
  process.stdout.write(`LEASEHOLD_LEASE_ID=${grant.lease_id}\nLEASEHOLD_LEASE_TOKEN=${grant.token}\n`);
}

export function registerPane(program: Command): void {
  const pane = program.command('pane').description('terminal panes: register them, set their display state, and hold wait-leases on them');

  pane
    .command('register <name>')
    .description('register (or re-register) a pane: a new generation; leases of earlier generations end orphaned')
    .option('--source <source>', 'vscode or cli', 'cli')
    .option('--shell-pid <pid>', "the pane's shell pid")
    .option('--shell-start-time <time>', "that shell process's start time")
    .option('--window-id <id>', 'window id')
    .option('--title <title>', 'title')
    .action(async (name: string, options: { source: string; shellPid?: string; shellStartTime?: string; windowId?: string; title?: string }, command: Command) => {
      const opts = globals(command);
      if (options.source !== 'cli' && options.source !== 'vscode') throw new UsageError('--source: must be cli or vscode');
      const registered = await connect(opts).registerPane({
        name,
        source: options.source,
        shell_pid: options.shellPid === undefined ? undefined : parseWholeNumber(options.shellPid, '--shell-pid'),
        shell_start_time: options.shellStartTime,
        window_id: options.windowId,
        title: options.title,
      });
      if (opts.json) return printJson(registered);
      process.stdout.write(`Registered pane ${registered.name} (generation ${registered.generation})\n`);
    });

  pane
    .command('list')
    .description('list open panes with display state and lease annotation')
    .action(async (_options: unknown, command: Command) => {
      const opts = globals(command);
      const panes = await connect(opts).listPanes();
      if (opts.json) return printJson(panes);
      process.stdout.write(
        `${printTable(
          panes.map((item) => ({
            PANE: item.name,
            GEN: String(item.generation),
            SOURCE: item.source ?? '',
            DISPLAY: item.display_state,
            LEASES: String(item.leases.filter((lease) => lease.state !== 'ended').length),
            ANNOTATION: item.annotation ?? '',
          })),
          ['PANE', 'GEN', 'SOURCE', 'DISPLAY', 'LEASES', 'ANNOTATION'],
        )}\n`,
      );
    });

  pane
    .command('display <name> <state>')
    .description('set the display state (idle, working, blocked, done, unknown); never touches leases')
    .action(async (name: string, state: string, _options: unknown, command: Command) => {
      const opts = globals(command);
      const parsed = PaneDisplayStateSchema.safeParse(state);
      if (!parsed.success) throw new UsageError('STATE: must be idle, working, blocked, done or unknown');
      const updated = await connect(opts).setPaneDisplay(name, parsed.data);
      if (opts.json) return printJson(updated);
      process.stdout.write(`${updated.annotation ?? `${updated.name}: ${updated.display_state}`}\n`);
    });

  pane
    .command('close <name>')
    .description('close a pane: its leases end orphaned')
    .action(async (name: string, _options: unknown, command: Command) => {
      const opts = globals(command);
      const closed = await connect(opts).closePane(name);
      if (opts.json) return printJson(closed);
      process.stdout.write(`Closed pane ${name}\n`);
    });

  const waitLease = pane.command('wait-lease').description('time-boxed, verifiable claims that a pane is waiting on a job');

  waitLease
    .command('acquire')
    .description('acquire a wait-lease; prints LEASEHOLD_LEASE_ID and LEASEHOLD_LEASE_TOKEN (the token is shown once)')
    .option('--pane <name>', 'the pane (env LEASEHOLD_PANE)')
    .requiredOption('--id <job-ref>', 'the awaited job')
    .option('--ttl <duration>', 'time to live, e.g. 15m (mandatory: --ttl or --ttl-ms)')
    .option('--ttl-ms <ms>', 'time to live in milliseconds')
    .option('--job-type <type>', 'shell, subagent, monitor, provider_call, build, test, other or other:<name>')
    .option('--kind <kind>', 'declared (default) or inferred')
    .option('--description <text>', 'what is awaited, for display')
    .option('--authorized-until <instant>', 'operator ceiling: epoch ms, ISO date or +DURATION')
    .option('--session-id <id>', 'the Claude Code session this lease belongs to')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      const grant = await connect(opts).acquireWaitLease({
        pane: paneOf(options),
        job_ref: options.id!,
        ttl_ms: ttlMsOf(options),
        job_type: options.jobType,
        kind: options.kind as 'declared' | 'inferred' | undefined,
        description: options.description,
        authorized_until: options.authorizedUntil === undefined ? undefined : parseInstantMs(options.authorizedUntil, '--authorized-until'),
        session_id: options.sessionId,
      });
      printGrant(opts, grant, `Acquired ${grant.lease_id} for job ${options.id} on pane ${paneOf(options)}`);
    });

  waitLease
    .command('hold')
    .description('acquire a wait-lease that the server renews only while the target verifies (a pid, or a provider job)')
    .option('--pane <name>', 'the pane (env LEASEHOLD_PANE)')
    .requiredOption('--id <job-ref>', 'the awaited job')
    .option('--ttl <duration>', 'TTL of each grant, e.g. 15m')
    .option('--ttl-ms <ms>', 'TTL of each grant in milliseconds')
    .option('--pid <pid>', 'the awaited process')
    .option('--start-time <time>', "the awaited process's start time (default: pinned by the server when it verifies the pid)")
    .option('--provider-id <id>', 'provider job id (with --provider-command or --provider-url)')
    .option('--provider-command <argv>', 'command whose JSON {"state"} or exit status (0 running, 1 finished) reports the job; a JSON array or words')
    .option('--provider-url <url>', 'loopback URL answering JSON {"state"}')
    .option('--job-type <type>', 'job type')
    .option('--description <text>', 'what is awaited, for display')
    .option('--authorized-until <instant>', 'operator ceiling: epoch ms, ISO date or +DURATION')
    .option('--session-id <id>', 'the Claude Code session this lease belongs to')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      let target: { pid: number; start_time?: string } | { provider_job: { id: string; command?: string[]; url?: string } };
      if (options.pid !== undefined) {
        if (options.providerCommand || options.providerUrl) throw new UsageError('give --pid or a provider job, not both');
        target = { pid: parseWholeNumber(options.pid, '--pid'), ...(options.startTime ? { start_time: options.startTime } : {}) };
      } else if (options.providerCommand || options.providerUrl) {
        let argv: string[] | undefined;
        if (options.providerCommand) {
          const text = options.providerCommand.trim();
          argv = text.startsWith('[') ? (JSON.parse(text) as string[]) : text.split(/\s+/);
        }
        target = { provider_job: { id: options.providerId ?? options.id!, ...(argv ? { command: argv } : {}), ...(options.providerUrl ? { url: options.providerUrl } : {}) } };
      } else {
        throw new UsageError('hold needs a target: --pid PID, or --provider-command / --provider-url');
      }
      const grant = await connect(opts).holdWaitLease({
        pane: paneOf(options),
        job_ref: options.id!,
        ttl_ms: ttlMsOf(options),
        job_type: options.jobType,
        description: options.description,
        authorized_until: options.authorizedUntil === undefined ? undefined : parseInstantMs(options.authorizedUntil, '--authorized-until'),
        target,
        session_id: options.sessionId,
      });
      printGrant(opts, grant, `Holding ${grant.lease_id} for job ${options.id} on pane ${paneOf(options)} while the target verifies`);
    });

  waitLease
    .command('renew')
    .description("renew with the token and evidence about the lease's own target: its pinned --pid, or --provider-job ID of a held provider job (the server observes it)")
    .option('--lease <id>', 'lease id (env LEASEHOLD_LEASE_ID)')
    .option('--pane <name>', 'with --id: find the live lease of this job on this pane')
    .option('--id <job-ref>', 'the awaited job')
    .option('--lease-token <token>', 'the lease token (env LEASEHOLD_LEASE_TOKEN)')
    .option('--ttl <duration>', 'new TTL, e.g. 15m')
    .option('--ttl-ms <ms>', 'new TTL in milliseconds')
    .option('--pid <pid>', "evidence: the lease's pinned process (the server verifies it is that process)")
    .option('--start-time <time>', 'its start time (default: read from this machine)')
    .option('--provider-job <id>', "evidence: the lease's own provider job; the server observes it itself (a caller's word is not an observation)")
    .option('--authorized-until <instant>', 'lower the ceiling with this renewal')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      const client = connect(opts);
      const token = tokenOf(options);
      if (!token) throw new UsageError('renew needs the lease token: --lease-token or LEASEHOLD_LEASE_TOKEN');
      let evidence: unknown;
      if (options.pid !== undefined) {
        const pid = parseWholeNumber(options.pid, '--pid');
        const startTime = options.startTime ?? readProcessInfo(pid)?.startTime;
        evidence = startTime === undefined ? { pid } : { pid, start_time: startTime };
      } else if (options.providerJob !== undefined) {
        // No observed_at: a time stamped here would be this command's word, not an observation.
        evidence = { provider_job: { id: options.providerJob, state: 'running' } };
      }
      const leaseId = await resolveLeaseId(client, options);
      const renewed = await client.renewWaitLease(leaseId, {
        token,
        ttl_ms: ttlMsOf(options),
        evidence,
        ...(options.authorizedUntil ? { authorized_until: parseInstantMs(options.authorizedUntil, '--authorized-until') } : {}),
      });
      if (opts.json) return printJson(renewed);
      process.stdout.write(`Renewed ${leaseId}: ${formatMs(renewed.expires_in_ms)} left${renewed.clamped_by.length ? ` (clamped by ${renewed.clamped_by.join(', ')})` : ''}\n`);
    });

  waitLease
    .command('release')
    .description('release a wait-lease (with --lease-token; without one, as its owner)')
    .option('--lease <id>', 'lease id (env LEASEHOLD_LEASE_ID)')
    .option('--pane <name>', 'with --id: find the live lease of this job on this pane')
    .option('--id <job-ref>', 'the awaited job')
    .option('--lease-token <token>', 'the lease token (env LEASEHOLD_LEASE_TOKEN)')
    .option('--reason <text>', 'why (release is not completion)')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      const client = connect(opts);
      const leaseId = await resolveLeaseId(client, options);
      const token = tokenOf(options);
      const released = token ? await client.releaseWaitLease(leaseId, token, options.reason) : await client.releaseWaitLeaseByOwner(leaseId, options.reason);
      if (opts.json) return printJson(released);
      process.stdout.write(`Released ${leaseId}\n`);
    });

  waitLease
    .command('ceiling')
    .description('lower the authority ceiling (authorized_until); applies at once, can never be raised')
    .option('--lease <id>', 'lease id (env LEASEHOLD_LEASE_ID)')
    .option('--pane <name>', 'with --id: find the live lease of this job on this pane')
    .option('--id <job-ref>', 'the awaited job')
    .option('--lease-token <token>', 'the lease token (env LEASEHOLD_LEASE_TOKEN)')
    .requiredOption('--authorized-until <instant>', 'the new ceiling: epoch ms, ISO date or +DURATION')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      const client = connect(opts);
      const token = tokenOf(options);
      if (!token) throw new UsageError('lowering the ceiling needs the lease token: --lease-token or LEASEHOLD_LEASE_TOKEN');
      const leaseId = await resolveLeaseId(client, options);
      const lowered = await client.lowerWaitLeaseCeiling(leaseId, token, parseInstantMs(options.authorizedUntil!, '--authorized-until'));
      if (opts.json) return printJson(lowered);
      process.stdout.write(`Ceiling of ${leaseId} is now ${new Date(lowered.authorized_until).toISOString()}: ${lowered.state}, ${formatMs(lowered.expires_in_ms)} left\n`);
    });

  waitLease
    .command('list')
    .description('list wait-leases with remaining time, kind, observer and state')
    .option('--pane <name>', 'only this pane (env LEASEHOLD_PANE is not applied here)')
    .option('--state <state>', 'active, degraded, unknown or ended')
    .option('--session-id <id>', 'only this Claude Code session')
    .action(async (options: { pane?: string; state?: string; sessionId?: string }, command: Command) => {
      const opts = globals(command);
      if (options.state !== undefined && !['active', 'degraded', 'unknown', 'ended'].includes(options.state)) {
        throw new UsageError('--state: must be active, degraded, unknown or ended');
      }
      const leases = await connect(opts).listWaitLeases({ pane: options.pane, state: options.state as LeaseViewWire['state'] | undefined, session_id: options.sessionId });
      if (opts.json) return printJson(leases);
      process.stdout.write(`${leaseRows(leases)}\n`);
    });
}
