// PostgreSQL: the claim's pick reads todos_queued (queue, seq) of queued todos only, as SQLite's
// has since migration 14, in place of todos_by_queue (queue, state, seq). Every claim transition
// changes state, so PostgreSQL writes it as a new row version with an entry in each index whose
// predicate the new version meets: todos_by_queue took one on every claim, complete, release and
// heartbeat, todos_queued takes one only when a todo is added or handed back to its queue.
// A claim now writes three index entries (id, seq, the claimed lease), a complete two.
// A list's done part reads todos_seq_key backwards, filtered by queue, its claimed part
// todos_by_lease, its queued part todos_queued (EXPLAIN, 24,000 done todos).
// (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

export const postgresQueuedIndexMigration: Migration = {
  version: 15,
  name: 'postgres_queued_index',
  sqlite: '',
  postgres: `CREATE INDEX todos_queued ON todos (queue, seq) WHERE state = 'queued';
DROP INDEX todos_by_queue;
`,
};
