// What consumers ask: `leasehold verdict PANE`, `leasehold teardown-check ...` (exit 0 only for
// yes, every unmet condition named), and `leasehold ledger` (recorded, never acted upon).
import type { Command } from 'commander';
import { connect, type ConnectionOptions } from '../connect.ts';
import { ExitWith, printJson, printTable, UsageError } from '../output.ts';
import { formatMs, paneOf, parseDurationMs, parseInstantMs, parseWholeNumber } from './waitLeaseArgs.ts';

type Globals = ConnectionOptions & { json?: boolean };
const globals = (command: Command) => command.optsWithGlobals() as Globals;

export function registerConsumers(program: Command): void {
  program
    .command('verdict <pane>')
    .description("a pane's verdict: display state, leases, reason codes and disposition (never \"safe to kill\")")
    .action(async (pane: string, _options: unknown, command: Command) => {
      const opts = globals(command);
      const verdict = await connect(opts).paneVerdict(pane);
      if (opts.json) return printJson(verdict);
      const lines = [
        `pane ${verdict.pane} (generation ${verdict.generation}): display ${verdict.display_state}, reading ${verdict.reading}`,
        `disposition ${verdict.disposition}; stall alarm ${verdict.attention.stall_alarm}; page ${verdict.attention.page}`,
        ...verdict.reasons.map((reason) => `  ${reason.code}  ${reason.job_ref}  ${reason.detail}`),
        ...verdict.leases.map((lease) => `  lease ${lease.lease_id} ${lease.job_ref} ${lease.kind} ${lease.state}${lease.state === 'ended' ? '' : `, ${formatMs(lease.remaining_ms)} left`}`),
        verdict.attention.summary,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });

  program
    .command('teardown-check')
    .description('may destructive automation proceed? yes only when the lease is absent or expired AND the job heartbeat is stale AND the policy floor has passed; exit 0 only for yes')
    .option('--pane <name>', 'the pane (env LEASEHOLD_PANE)')
    .requiredOption('--job-ref <ref>', 'the job')
    .option('--heartbeat-age <duration>', "age of the job's own heartbeat (omit when there is none: then the answer is no)")
    .requiredOption('--heartbeat-stale-after <duration>', 'the heartbeat counts as stale from this age')
    .requiredOption('--quiet-for <duration>', 'how long the pane has been quiet')
    .requiredOption('--floor <duration>', 'the policy time floor')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      const answer = await connect(opts).teardownCheck({
        pane: paneOf(options),
        job_ref: options.jobRef!,
        job_heartbeat_age_ms: options.heartbeatAge === undefined ? null : parseDurationMs(options.heartbeatAge, '--heartbeat-age'),
        heartbeat_stale_after_ms: parseDurationMs(options.heartbeatStaleAfter!, '--heartbeat-stale-after'),
        quiet_for_ms: parseDurationMs(options.quietFor!, '--quiet-for'),
        policy_floor_ms: parseDurationMs(options.floor!, '--floor'),
      });
      if (opts.json) printJson(answer);
      else process.stdout.write(`${answer.allowed ? 'yes' : 'no'} (lease ${answer.lease})\n${answer.unmet.map((reason) => `  unmet: ${reason}\n`).join('')}`);
      if (!answer.allowed) throw new ExitWith(1);
    });

  program
    .command('ledger')
    .description('wait-lease ledger rows (declared TTLs are not trustworthy training data; release is not completion)')
    .option('--job-type <type>', 'only this job type')
    .option('--kind <kind>', 'declared or inferred')
    .option('--end-reason <reason>', 'released, expired or orphaned')
    .option('--since <instant>', 'granted at or after: epoch ms, ISO date, or a duration ago (24h)')
    .option('--limit <n>', 'at most this many rows (default 100, max 1000)')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      if (options.endReason !== undefined && !['released', 'expired', 'orphaned'].includes(options.endReason)) {
        throw new UsageError('--end-reason: must be released, expired or orphaned');
      }
      let since: number | undefined;
      if (options.since !== undefined) {
        since = /^\d+[smhd]/.test(options.since) && !/^\d+$/.test(options.since) ? Date.now() - parseDurationMs(options.since, '--since') : parseInstantMs(options.since, '--since');
      }
      const rows = await connect(opts).ledger({
        job_type: options.jobType,
        kind: options.kind,
        end_reason: options.endReason as 'released' | 'expired' | 'orphaned' | undefined,
        since,
        limit: options.limit === undefined ? undefined : parseWholeNumber(options.limit, '--limit'),
      });
      if (opts.json) return printJson(rows);
      process.stdout.write(
        `${printTable(
          rows.map((row) => ({
            GRANTED: new Date(row.granted_at).toISOString(),
            PANE: row.pane,
            JOB: row.job_ref,
            TYPE: row.job_type,
            KIND: row.kind,
            DECLARED_TTL: formatMs(row.declared_ttl_ms),
            END: row.end_reason ?? '(live)',
            CENSORING: row.censoring,
            MEASURED: row.measured_duration_ms === null ? '' : formatMs(row.measured_duration_ms),
            NOTE: row.release_note ?? '',
          })),
          ['GRANTED', 'PANE', 'JOB', 'TYPE', 'KIND', 'DECLARED_TTL', 'END', 'CENSORING', 'MEASURED', 'NOTE'],
        )}\n`,
      );
    });
}
