// PostgreSQL: wait_leases pages are filled to half, not 80% (migration 11), so a renewal mostly
// finds room for its new row version on its own page and is a heap-only update: no new entry in
// any of the table's seven indexes. A row is ~730 bytes, so at 80% a page of nine live rows had
// room for two more versions. Of 1,000 leases granted together, the first three renewal ticks
// were heap-only for 195, 496 and 686 at 80%, and for 718, 999 and 1,000 at 50%
// (pg_stat_user_tables). The renew tick's write took 29-37 ms at 80% and 18-25 ms at 50%, in
// four paired runs. The cost: new pages, the ended rows the ledger keeps among them, take about
// twice the space. Existing pages are not rewritten. (Version 12 was a migration reverted before
// release: a database that applied it still runs this one.)
// (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

export const waitLeaseFillfactorMigration: Migration = {
  version: 13,
  name: 'wait_lease_fillfactor',
  sqlite: '',
  postgres: 'ALTER TABLE wait_leases SET (fillfactor = 50);\n',
};
