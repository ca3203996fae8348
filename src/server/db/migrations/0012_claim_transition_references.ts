// PostgreSQL: the claim transitions' foreign keys go (claim_events.todo_id and .endpoint_id,
// todos.holder_endpoint_id). PostgreSQL checks a foreign key by locking the parent row FOR KEY
// SHARE, a write to that row: every claim, heartbeat, release and complete wrote its endpoint's
// row and its todo's row once more, and at one worker that was a third of what each transition
// cost (issue 11: 0.60x to 0.90x of the raw floor's rate). The references hold without them:
// each of these columns is written only by a statement that takes it from the row it checks in
// that same statement (the endpoint guard, the todo it just changed), and no todo or endpoint
// is ever deleted (revoking keeps the row). test/server/claimReferences.test.ts checks that no
// event or holder points at a missing row after every kind of transition. SQLite keeps its
// foreign keys: there a check is an index probe that writes nothing.
// (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

export const claimTransitionReferencesMigration: Migration = {
  version: 12,
  name: 'claim_transition_references',
  sqlite: '',
  postgres: `
ALTER TABLE claim_events DROP CONSTRAINT IF EXISTS claim_events_todo_id_fkey;
ALTER TABLE claim_events DROP CONSTRAINT IF EXISTS claim_events_endpoint_id_fkey;
ALTER TABLE todos DROP CONSTRAINT IF EXISTS todos_holder_endpoint_id_fkey;
`,
};
