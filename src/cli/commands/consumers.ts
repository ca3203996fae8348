// What consumers ask: `leasehold verdict PANE`, `leasehold teardown-check ...` (exit 0 only for
// yes, every unmet condition named), and `leasehold ledger` (recorded, never acted upon).
import type { Command } from 'commander';
import { connect, type ConnectionOptions } from '../connect.ts';
import { ExitWith, printJson, printTable, UsageError } from '../output.ts';
import { formatMs, paneOf, parseDurationMs, parseInstantMs, parseWholeNumber } from './waitLeaseArgs.ts';

type Globals = ConnectionOptions & { json?: boolean };
const globals = (command: Command) => command.optsWithGlobals() as Globals;

/** --since: epoch ms, an ISO date, or a duration ago (24h). */
function sinceMs(text: string): number {
  return /^\d+[smhd]/.test(text) && !/^\d+$/.test(text) ? Date.now() - parseDurationMs(text, '--since') : parseInstantMs(text, '--since');
}

/** "alive and moving" from "alive and still": the last sign of progress the server saw, and repeats. */
function progressText(lease: { state: string; last_progress_at?: number | null; identical_renewals?: number }): string {
  if (lease.state === 'ended') return '';
  const parts: string[] = [];
  if (typeof lease.last_progress_at === 'number') parts.push(`last progress ${formatMs(Math.max(0, Date.now() - lease.last_progress_at))} ago`);
  if (lease.identical_renewals) parts.push(`${lease.identical_renewals} renewals without progress`);
  return parts.length ? `; ${parts.join(', ')}` : '';
}

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
        ...verdict.leases.map((lease) => `  lease ${lease.lease_id} ${lease.job_ref} ${lease.kind} ${lease.state}${lease.state === 'ended' ? '' : `, ${formatMs(lease.remaining_ms)} left`}${progressText(lease)}`),
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

  const ledger = program
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
      const since = options.since === undefined ? undefined : sinceMs(options.since);
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

  ledger
    .command('suggest')
    .description('a TTL per job type from measured durations (released, exactly-censored rows only; p95 by default): shown, never applied')
    .option('--kind <kind>', 'only declared or only inferred leases')
    .option('--since <instant>', 'granted at or after: epoch ms, ISO date, or a duration ago (30d)')
    .option('--percentile <p>', 'which percentile to suggest, 50-100 (default 95)')
    .option('--min-samples <n>', 'fewer measured durations than this give no suggestion (default 5)')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const opts = globals(command);
      if (options.kind !== undefined && options.kind !== 'declared' && options.kind !== 'inferred') throw new UsageError('--kind: must be declared or inferred');
      const percentile = options.percentile === undefined ? undefined : parseWholeNumber(options.percentile, '--percentile');
      if (percentile !== undefined && (percentile < 50 || percentile > 100)) throw new UsageError('--percentile: must be a whole number from 50 to 100');
      const minSamples = options.minSamples === undefined ? undefined : parseWholeNumber(options.minSamples, '--min-samples');
      if (minSamples !== undefined && minSamples < 1) throw new UsageError('--min-samples: must be at least 1');
      const suggestions = await connect(opts).ledgerSuggestions({
        kind: options.kind as 'declared' | 'inferred' | undefined,
        since: options.since === undefined ? undefined : sinceMs(options.since),
        percentile,
        min_samples: minSamples,
      });
      if (opts.json) return printJson(suggestions);
      const p = `P${percentile ?? 95}`;
      process.stdout.write(
        `${printTable(
          suggestions.map((row) => ({
            JOB_TYPE: row.job_type,
            SAMPLES: String(row.samples),
            P50: formatMs(row.p50_ms),
            [p]: formatMs(row.percentile_ms),
            MAX: formatMs(row.max_ms),
            SUGGESTED_TTL: row.suggested_ttl_ms === null ? '(too few samples)' : formatMs(row.suggested_ttl_ms),
          })),
          ['JOB_TYPE', 'SAMPLES', 'P50', p, 'MAX', 'SUGGESTED_TTL'],
        )}\n` +
          (suggestions.length === 0 ? 'No released, exactly-censored leases yet: nothing measured to suggest from.\n' : '') +
          'Measured durations of released leases only (never declared TTLs, never expired rows). A suggestion: nothing applies it.\n',
      );
    });
}
