// Two more claim event kinds: 'revoked' (revoking an endpoint requeued what it held) and
// 'requeued' (a human handed one claimed todo back to its queue). SQLite cannot alter a
// CHECK, so claim_events is rebuilt there; PostgreSQL swaps the constraint.
import type { Migration } from './migration.ts';

const KINDS = `'claimed', 'heartbeat', 'released', 'completed', 'reaped', 'revoked', 'requeued'`;

const sqlite = `
CREATE TABLE claim_events_new (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  todo_id TEXT NOT NULL REFERENCES todos(id),
  endpoint_id TEXT REFERENCES endpoints(id),
  kind TEXT NOT NULL CHECK (kind IN (${KINDS})),
  claim_epoch INTEGER NOT NULL,
  lease_ttl_seconds INTEGER,
  lease_source TEXT CHECK (lease_source IN ('per_call', 'endpoint', 'server')),
  lease_expires_at INTEGER,
  at INTEGER NOT NULL
);
INSERT INTO claim_events_new SELECT id, todo_id, endpoint_id, kind, claim_epoch, lease_ttl_seconds, lease_source, lease_expires_at, at FROM claim_events;
DROP TABLE claim_events;
ALTER TABLE claim_events_new RENAME TO claim_events;
CREATE INDEX claim_events_by_todo ON claim_events (todo_id, id);
`;

const postgres = `
ALTER TABLE claim_events DROP CONSTRAINT IF EXISTS claim_events_kind_check;
ALTER TABLE claim_events ADD CONSTRAINT claim_events_kind_check CHECK (kind IN (${KINDS}));
`;

export const claimEventKindsMigration: Migration = { version: 7, name: 'claim_event_kinds', sqlite, postgres };
