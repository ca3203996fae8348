// PostgreSQL: wait_leases pages are filled to 40%, not half (migration 13). A lease's first
// renewal makes its row longer (the renewal time, its boot id, the evidence: 483 bytes became
// 603 in one measurement, pg_column_size of the row, the second renewal none), so at half a page
// of seven new rows had room for fewer than seven longer versions. Of 1,000 leases held
// together, the first renewal tick moved 282 rows to other pages at 50%, each with an entry in
// all seven indexes, 0 at 40% (at 45%, 164 in the second tick: likely because two batches write
// the same pages at once, so neither can prune the other's old versions, not measured). The
// count is of rows whose page changed (ctid) across the tick. The cost: new pages hold five
// leases, not seven. Existing pages are not rewritten.
// (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

export const waitLeaseFillfactor40Migration: Migration = {
  version: 16,
  name: 'wait_lease_fillfactor_40',
  sqlite: '',
  postgres: 'ALTER TABLE wait_leases SET (fillfactor = 40);\n',
};
