// The measured-TTL suggester: released, exactly-censored rows only; p95 per job type; rounded up
// to what a person would type; nothing below the minimum sample count.
import assert from 'node:assert/strict';
import { isMeasured, suggestTtls, type MeasuredRow } from '../../../src/core/waitLease/ttlSuggest.ts';

const MIN = 60_000;
const released = (job_type: string, ms: number): MeasuredRow => ({ job_type, end_reason: 'released', censoring: 'exact', measured_duration_ms: ms });

describe('measured-TTL suggester', () => {
  it('uses released, exact rows only: never expired (right-censored), orphaned, or open rows', () => {
    assert.equal(isMeasured(released('test', 1000)), true);
    assert.equal(isMeasured({ job_type: 'test', end_reason: 'expired', censoring: 'right_censored', measured_duration_ms: 99 * MIN }), false);
    assert.equal(isMeasured({ job_type: 'test', end_reason: 'orphaned', censoring: 'unknown', measured_duration_ms: 99 * MIN }), false);
    assert.equal(isMeasured({ job_type: 'test', end_reason: null, censoring: 'unknown', measured_duration_ms: null }), false);
    const rows = [...[1, 2, 3, 4, 5].map((m) => released('test', m * MIN)), { job_type: 'test', end_reason: 'expired' as const, censoring: 'right_censored' as const, measured_duration_ms: 600 * MIN }];
    const [test] = suggestTtls(rows);
    assert.equal(test!.samples, 5);
    assert.equal(test!.max_ms, 5 * MIN, 'the expired row (its TTL, not a duration) never counts');
  });

  it('p95 per job type (nearest rank), rounded up to the minute, none below the minimum samples', () => {
    const twenty = Array.from({ length: 20 }, (_, n) => released('build', (n + 1) * MIN - 30_000));
    const suggestions = suggestTtls([...twenty, released('shell', 40_500), released('shell', 10_000)]);
    assert.deepEqual(
      suggestions.map((row) => [row.job_type, row.samples, row.percentile_ms, row.suggested_ttl_ms]),
      [
        ['build', 20, 19 * MIN - 30_000, 19 * MIN],
        ['shell', 2, 40_500, null],
      ],
    );
    assert.equal(suggestTtls([released('shell', 40_500)], { minSamples: 1 })[0]!.suggested_ttl_ms, 41_000, 'under a minute: whole seconds');
    assert.equal(suggestTtls(twenty, { percentile: 50 })[0]!.percentile_ms, 10 * MIN - 30_000);
  });
});
