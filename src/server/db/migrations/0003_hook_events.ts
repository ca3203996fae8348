// Claude Code hook events already applied (issue 4): the idempotency record behind
// POST /api/v1/hook-events and the spool replay. A row means "this event id was applied";
// results keep the answer so a repeat gets the same one with duplicate: true. Rows are
// pruned after a retention period (HookEventService), long after any spool could replay.
// (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

function schema(bigint: string): string {
  return `
CREATE TABLE hook_events (
  id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
  applied_at ${bigint} NOT NULL,
  op_count INTEGER NOT NULL CHECK (op_count >= 0),
  results TEXT NOT NULL
);
CREATE INDEX hook_events_applied_at ON hook_events (applied_at);
`;
}

export const hookEventsMigration: Migration = {
  version: 3,
  name: 'hook_events',
  sqlite: schema('INTEGER'),
  postgres: schema('BIGINT'),
};
