// The lease ledger as a Markdown document (Show Lease Ledger). Pure.
import type { LedgerRowWire } from '../../core/waitLease/wire.ts';
import { DEFAULT_SUGGEST_MIN_SAMPLES, suggestTtls } from '../../core/waitLease/ttlSuggest.ts';

/** The read-only document scheme the ledger opens under. */
export const LEDGER_SCHEME = 'leasehold-ledger';

function cell(text: string | null | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Local time to the second, e.g. "2026-12-02 14:05:09": what a person compares with a clock. */
export function localTime(ms: number | null): string {
  if (ms === null) return '';
  const at = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}

/** A duration to the second: "42s", "4m 12s", "1h 2m 3s". */
export function durationToSecond(ms: number): string {
  let seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  seconds -= h * 3600;
  const m = Math.floor(seconds / 60);
  seconds -= m * 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', seconds || (!h && !m) ? `${seconds}s` : ''].filter(Boolean).join(' ');
}

export interface LedgerNames {
  /** What the Panes view calls a pane (its terminal's label), when it is known. */
  paneLabel?(pane: string): string | undefined;
  /** The job's description, when a current lease view has it. */
  description?(leaseId: string): string | undefined;
}

export function ledgerMarkdown(rows: readonly LedgerRowWire[], generatedAtMs: number, names: LedgerNames = {}): string {
  const out = [
    '# Leasehold wait-lease ledger',
    '',
    `${rows.length} row${rows.length === 1 ? '' : 's'}, read ${localTime(generatedAtMs)} (local time). Recorded, never acted upon.`,
    'Declared TTLs are not durations: only released rows (censoring `exact`) measure one, and release is not completion. An expired row (`right_censored`) only says "longer than the TTL".',
    '',
  ];
  if (rows.length === 0) {
    out.push('_No wait-leases yet._');
    return `${out.join('\n')}\n`;
  }
  out.push('| granted | pane | job | description | type | kind | declared TTL | ended | end reason | censoring | measured | note |', '|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const label = names.paneLabel?.(row.pane);
    const pane = label ? `${cell(label)} (\`${cell(row.pane)}\`)` : `\`${cell(row.pane)}\``;
    out.push(
      `| ${localTime(row.granted_at)} | ${pane} | \`${cell(row.job_ref)}\` | ${cell(names.description?.(row.lease_id))} | ${row.job_type} | ${row.kind} | ${durationToSecond(row.declared_ttl_ms)} | ${localTime(row.ended_at)} | ${row.end_reason ?? 'open'} | ${row.censoring} | ${row.measured_duration_ms === null ? '' : durationToSecond(row.measured_duration_ms)} | ${cell(row.release_note)} |`,
    );
  }
  out.push(...suggestionsMarkdown(rows));
  return `${out.join('\n')}\n`;
}

/** Measured-TTL suggestions from the rows shown (core ttlSuggest.ts): a suggestion, never applied. */
function suggestionsMarkdown(rows: readonly LedgerRowWire[]): string[] {
  const suggestions = suggestTtls(rows);
  const out = ['', '## Suggested TTLs', '', 'p95 of the measured durations of released leases (censoring `exact`) in the rows above, per job type; never declared TTLs, never expired rows. Shown, never applied: `leasehold ledger suggest` reads the whole ledger.', ''];
  if (suggestions.length === 0) return [...out, '_Nothing measured yet._'];
  out.push('| type | samples | p50 | p95 | max | suggested TTL |', '|---|---|---|---|---|---|');
  for (const row of suggestions) {
    const suggested = row.suggested_ttl_ms === null ? `_fewer than ${DEFAULT_SUGGEST_MIN_SAMPLES} samples_` : durationToSecond(row.suggested_ttl_ms);
    out.push(`| ${row.job_type} | ${row.samples} | ${durationToSecond(row.p50_ms)} | ${durationToSecond(row.percentile_ms)} | ${durationToSecond(row.max_ms)} | ${suggested} |`);
  }
  return out;
}
