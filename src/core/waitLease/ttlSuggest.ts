// The measured-TTL suggester (the seed's deferred follow-up): a TTL per job type from the
// ledger's measured durations. Only released rows with exact censoring count: a released lease
// was seen to end, so its measured duration is a real duration. Declared TTLs never count
// (operators inflate them to avoid pages), nor expired rows (right-censored: they prove only
// "longer than the TTL") nor orphaned ones (unknown). A suggestion is shown, never applied:
// nothing on a decision path calls this.
import type { LedgerRow } from './ledger.ts';

export const DEFAULT_SUGGEST_PERCENTILE = 95;
/** Fewer measured durations than this give no suggestion: a p95 of three samples is noise. */
export const DEFAULT_SUGGEST_MIN_SAMPLES = 5;

export interface TtlSuggestion {
  job_type: string;
  /** Released, exactly-censored rows of this type. */
  samples: number;
  p50_ms: number;
  /** The percentile asked for (default p95) of the measured durations. */
  percentile_ms: number;
  max_ms: number;
  /** The percentile rounded up to a whole minute (a whole second below one minute): what a human would type. Null below min_samples. */
  suggested_ttl_ms: number | null;
}

/** What the suggester may read: the measured duration and how it was censored. */
export type MeasuredRow = Pick<LedgerRow, 'job_type' | 'end_reason' | 'censoring' | 'measured_duration_ms'>;

/** The rows a suggestion may use: released, exact, with a measured duration. */
export function isMeasured(row: MeasuredRow): boolean {
  return row.end_reason === 'released' && row.censoring === 'exact' && typeof row.measured_duration_ms === 'number' && row.measured_duration_ms >= 0;
}

/** Nearest-rank percentile of sorted values. */
function nearestRank(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

function roundUp(ms: number): number {
  const unit = ms >= 60_000 ? 60_000 : 1000;
  return Math.max(unit, Math.ceil(ms / unit) * unit);
}

export function suggestTtls(rows: readonly MeasuredRow[], options: { percentile?: number; minSamples?: number } = {}): TtlSuggestion[] {
  const percentile = options.percentile ?? DEFAULT_SUGGEST_PERCENTILE;
  const minSamples = options.minSamples ?? DEFAULT_SUGGEST_MIN_SAMPLES;
  const byType = new Map<string, number[]>();
  for (const row of rows) {
    if (!isMeasured(row)) continue;
    const durations = byType.get(row.job_type) ?? [];
    durations.push(row.measured_duration_ms as number);
    byType.set(row.job_type, durations);
  }
  return [...byType.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([jobType, durations]) => {
      const sorted = [...durations].sort((a, b) => a - b);
      const value = nearestRank(sorted, percentile);
      return {
        job_type: jobType,
        samples: sorted.length,
        p50_ms: nearestRank(sorted, 50),
        percentile_ms: value,
        max_ms: sorted.at(-1)!,
        suggested_ttl_ms: sorted.length >= minSamples ? roundUp(value) : null,
      };
    });
}
