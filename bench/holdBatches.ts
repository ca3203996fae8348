// The PostgreSQL hold loop's renew tick of 1,000 leases by the rows per statement of its
// batched write (WaitLeaseStore.postgresBatchRows; 500 in the server): 1,000 (one statement),
// 500 and 250, the size changed every tick, in three rounds (a server each). Needs
// LEASEHOLD_BENCH_DATABASE_URL or LEASEHOLD_TEST_DATABASE_URL.
// Run: `npm run bench -- holdBatches`.
import { fileURLToPath } from 'node:url';
import { postgresTarget } from '../test/support/storage.ts';
import { fmtMs, report } from './stats.ts';
import { holdBatchSizes } from './waitLeases.ts';

const SIZES = [1000, 500, 250];

export async function benchHoldBatches(): Promise<void> {
  const databaseUrl = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL;
  if (!databaseUrl) {
    process.stdout.write('holdBatches: no PostgreSQL (set LEASEHOLD_BENCH_DATABASE_URL); skipped\n');
    return;
  }
  const runs = new Map<number, number[]>(SIZES.map((size) => [size, []]));
  for (let run = 0; run < 3; run++) {
    const medians = await holdBatchSizes(postgresTarget(databaseUrl), SIZES);
    for (const [size, wall] of medians) runs.get(size)!.push(wall);
  }
  report('[postgres] renew tick, 1,000 leases, by rows per statement (median of 13 ticks, three rounds)', Object.fromEntries([...runs].map(([size, walls]) => [`${size} rows`, walls.map(fmtMs).join(', ')])));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchHoldBatches();
  process.exit(0);
}
