// Team mode (issue 9): machines, device tokens, and who owns what.
// - machines: one row per lease-server install (a machine id kept in its runtime dir), with
//   the boot id of its lease clock and a heartbeat. beat_seq moves on every beat, so another
//   server can tell a silent machine on its own monotonic clock. last_seen_ms is on the
//   database clock (display, and the projection of the owner's boot clock for reads).
// - devices: one token per (human, machine). Starting a server only ever replaces its own
//   machine's token. Tokens are stored as SHA-256 hashes.
// - machine_id and human_id on panes, wait-leases, session bindings and hook events: the
//   owning machine observes and judges them, the owning human alone sees them.
//   Rows from before this migration have NULL and are adopted at start (see machineRegistry.ts).
// (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

function schema(types: { bigint: string; bool: string }): string {
  const { bigint, bool } = types;
  return `
CREATE TABLE machines (
  id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 100),
  label TEXT NOT NULL,
  human_id TEXT REFERENCES humans(id),
  boot_id TEXT,
  counts_suspend ${bool} NOT NULL,
  last_boot_ms ${bigint} NOT NULL CHECK (last_boot_ms >= 0),
  last_wall_ms ${bigint} NOT NULL,
  last_seen_ms ${bigint} NOT NULL,
  beat_seq ${bigint} NOT NULL DEFAULT 0,
  started_at ${bigint} NOT NULL
);
CREATE TABLE devices (
  id TEXT PRIMARY KEY,
  human_id TEXT NOT NULL REFERENCES humans(id),
  machine_id TEXT NOT NULL,
  label TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at ${bigint} NOT NULL,
  last_used_at ${bigint},
  revoked_at ${bigint}
);
CREATE INDEX devices_by_human ON devices (human_id, machine_id);
ALTER TABLE panes ADD COLUMN machine_id TEXT;
ALTER TABLE panes ADD COLUMN human_id TEXT;
ALTER TABLE wait_leases ADD COLUMN machine_id TEXT;
ALTER TABLE wait_leases ADD COLUMN human_id TEXT;
ALTER TABLE pane_sessions ADD COLUMN machine_id TEXT;
ALTER TABLE pane_sessions ADD COLUMN human_id TEXT;
ALTER TABLE hook_events ADD COLUMN machine_id TEXT;
ALTER TABLE hook_events ADD COLUMN human_id TEXT;
CREATE INDEX wait_leases_by_machine ON wait_leases (machine_id, state)
`;
}

export const teamModeMigration: Migration = {
  version: 4,
  name: 'team_mode',
  sqlite: `${schema({ bigint: 'INTEGER', bool: 'INTEGER' })};\n`,
  postgres: `${schema({ bigint: 'BIGINT', bool: 'BOOLEAN' })};\n`,
};
