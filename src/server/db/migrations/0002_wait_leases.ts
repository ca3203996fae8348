// Panes, wait-leases and the persisted lease-clock domain (seed 003). Each wait_leases row IS
// the ledger row that outlives the lease: job_type, kind, declared_ttl_ms, granted_at,
// ended_at, end_reason, censoring and measured_duration_ms are columns of the lease itself, so
// no second write can drift from it. Boot-clock columns (*_boot_ms) are milliseconds on the
// lease clock of the boot named by clock_boot_id; wall columns are epoch milliseconds. Only
// the token's hash is stored. The CHECK bounds are pinned to src/core/waitLease constants by
// test/server/waitLeaseSchema.test.ts. (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

const LEDGER_DESCRIPTION =
  'Wait-leases, one row per lease, kept after it ends as the ledger. Recorded, never acted upon: no decision path reads it. ' +
  'Declared TTLs are not trustworthy training data (operators inflate them to avoid pages). Only measured durations of released leases ' +
  '(censoring exact) are, and release is not completion: the release note still matters. An expired row (right_censored) proves only ' +
  '"longer than the TTL".';

const JOB_TYPE_CHECK = `CHECK (job_type IN ('shell', 'subagent', 'monitor', 'provider_call', 'build', 'test', 'other') OR job_type LIKE 'other:%')`;

function schema(types: { bigint: string; bool: string; false: string }): string {
  const { bigint, bool } = types;
  return `
CREATE TABLE panes (
  name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200),
  generation INTEGER NOT NULL CHECK (generation >= 1),
  source TEXT NOT NULL CHECK (source IN ('vscode', 'cli')),
  shell_pid INTEGER CHECK (shell_pid IS NULL OR shell_pid > 0),
  shell_start_time TEXT,
  window_id TEXT,
  title TEXT,
  display_state TEXT NOT NULL DEFAULT 'unknown' CHECK (display_state IN ('idle', 'working', 'blocked', 'done', 'unknown')),
  display_updated_at ${bigint},
  registered_at ${bigint} NOT NULL,
  closed_at ${bigint},
  updated_at ${bigint} NOT NULL
);
CREATE TABLE pane_sessions (
  session_id TEXT PRIMARY KEY CHECK (length(session_id) BETWEEN 1 AND 200),
  pane TEXT NOT NULL REFERENCES panes(name),
  generation INTEGER NOT NULL CHECK (generation >= 1),
  bound_at ${bigint} NOT NULL
);
CREATE TABLE wait_leases (
  id TEXT PRIMARY KEY,
  pane TEXT NOT NULL REFERENCES panes(name),
  generation INTEGER NOT NULL CHECK (generation >= 1),
  session_id TEXT,
  job_ref TEXT NOT NULL CHECK (length(job_ref) BETWEEN 1 AND 200),
  job_type TEXT NOT NULL ${JOB_TYPE_CHECK},
  kind TEXT NOT NULL CHECK (kind IN ('declared', 'inferred')),
  description TEXT CHECK (description IS NULL OR length(description) <= 120),
  token_hash TEXT NOT NULL,
  declared_ttl_ms ${bigint} NOT NULL CHECK (declared_ttl_ms > 0),
  granted_at ${bigint} NOT NULL,
  granted_boot_ms ${bigint} NOT NULL,
  granted_boot_id TEXT,
  clock_boot_id TEXT,
  clock_counts_suspend ${bool} NOT NULL,
  renewed_at ${bigint},
  renewed_boot_ms ${bigint},
  renewed_boot_id TEXT,
  renew_count INTEGER NOT NULL DEFAULT 0 CHECK (renew_count >= 0),
  expires_at_boot_ms ${bigint} NOT NULL,
  expires_at_wall_ms ${bigint} NOT NULL,
  authorized_until_wall_ms ${bigint} CHECK (authorized_until_wall_ms IS NULL OR authorized_until_wall_ms > 0),
  authorized_until_boot_ms ${bigint},
  clamped_by TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL CHECK (state IN ('active', 'degraded', 'unknown', 'ended')),
  state_reason TEXT,
  end_reason TEXT CHECK (end_reason IS NULL OR end_reason IN ('released', 'expired', 'orphaned')),
  expired_by TEXT CHECK (expired_by IS NULL OR expired_by IN ('ttl', 'authorized_until')),
  ended_at ${bigint},
  ended_boot_ms ${bigint},
  ended_boot_id TEXT,
  release_note TEXT CHECK (release_note IS NULL OR length(release_note) <= 200),
  observer_kind TEXT NOT NULL CHECK (observer_kind IN ('none', 'pid', 'provider_job')),
  observer TEXT NOT NULL,
  last_evidence TEXT,
  last_refusal TEXT,
  expired_notice_consumed ${bool} NOT NULL DEFAULT ${types.false},
  censoring TEXT NOT NULL CHECK (censoring IN ('exact', 'right_censored', 'unknown')),
  measured_duration_ms ${bigint} CHECK (measured_duration_ms IS NULL OR measured_duration_ms >= 0),
  version INTEGER NOT NULL DEFAULT 0,
  updated_at ${bigint} NOT NULL,
  CHECK ((state = 'ended') = (end_reason IS NOT NULL AND ended_at IS NOT NULL)),
  CHECK (censoring = CASE end_reason WHEN 'released' THEN 'exact' WHEN 'expired' THEN 'right_censored' ELSE 'unknown' END),
  CHECK (expired_by IS NULL OR end_reason = 'expired'),
  CHECK (measured_duration_ms IS NULL OR end_reason IS NOT NULL)
);
CREATE INDEX wait_leases_by_pane ON wait_leases (pane, generation);
CREATE INDEX wait_leases_live ON wait_leases (expires_at_boot_ms) WHERE state <> 'ended';
CREATE INDEX wait_leases_by_session ON wait_leases (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX wait_leases_ledger ON wait_leases (granted_at);
CREATE TABLE lease_clock_domains (
  host TEXT PRIMARY KEY,
  boot_id TEXT,
  counts_suspend ${bool} NOT NULL,
  last_boot_ms ${bigint} NOT NULL CHECK (last_boot_ms >= 0),
  last_wall_ms ${bigint} NOT NULL,
  updated_at ${bigint} NOT NULL
)`;
}

const sqlite = `${schema({ bigint: 'INTEGER', bool: 'INTEGER', false: '0' })};
`;

const postgres = `${schema({ bigint: 'BIGINT', bool: 'BOOLEAN', false: 'FALSE' })};
COMMENT ON TABLE wait_leases IS '${LEDGER_DESCRIPTION.replace(/'/g, "''")}';
COMMENT ON COLUMN wait_leases.declared_ttl_ms IS 'The TTL asked for at acquire. Not trustworthy training data: operators inflate it to avoid pages.';
COMMENT ON COLUMN wait_leases.end_reason IS 'released, expired or orphaned. Release is not completion.';
`;

export const waitLeasesMigration: Migration = { version: 2, name: 'wait_leases', sqlite, postgres };
export const WAIT_LEASE_LEDGER_DESCRIPTION = LEDGER_DESCRIPTION;
