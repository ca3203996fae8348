// The lease ledger as a Markdown document (Show Lease Ledger). Pure.
import { formatDurationSeconds } from '../../core/duration.ts';
import type { LedgerRowWire } from '../../core/waitLease/wire.ts';

/** The read-only document scheme the ledger opens under. */
export const LEDGER_SCHEME = 'leasehold-ledger';

function cell(text: string | null | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function iso(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

export function ledgerMarkdown(rows: readonly LedgerRowWire[], generatedAtMs: number): string {
  const out = [
    '# Leasehold wait-lease ledger',
    '',
    `${rows.length} row${rows.length === 1 ? '' : 's'}, read ${iso(generatedAtMs)}. Recorded, never acted upon.`,
    'Declared TTLs are not durations: only released rows (censoring `exact`) measure one, and release is not completion. An expired row (`right_censored`) only says "longer than the TTL".',
    '',
  ];
  if (rows.length === 0) {
    out.push('_No wait-leases yet._');
    return `${out.join('\n')}\n`;
  }
  out.push('| granted | pane | job | type | kind | declared TTL | ended | end reason | censoring | measured | note |', '|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    out.push(
      `| ${iso(row.granted_at)} | ${cell(row.pane)} | \`${cell(row.job_ref)}\` | ${row.job_type} | ${row.kind} | ${formatDurationSeconds(row.declared_ttl_ms / 1000)} | ${iso(row.ended_at)} | ${row.end_reason ?? 'open'} | ${row.censoring} | ${row.measured_duration_ms === null ? '' : formatDurationSeconds(row.measured_duration_ms / 1000)} | ${cell(row.release_note)} |`,
    );
  }
  return `${out.join('\n')}\n`;
}
