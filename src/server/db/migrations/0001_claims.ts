// Humans, endpoints, todos and claim events. The CHECK bounds on default_lease_ttl_seconds
// are the ADR-0043 constants (60..86400); test/server/schemaBounds.test.ts pins them to
// src/core/claimLease.ts. Times are epoch milliseconds. todos.seq orders a queue
// first-in first-out even when two todos share a millisecond.
import type { Migration } from './migration.ts';

const sqlite = `
CREATE TABLE humans (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);
CREATE TABLE endpoints (
  id TEXT PRIMARY KEY,
  human_id TEXT NOT NULL REFERENCES humans(id),
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  scope TEXT NOT NULL,
  friend INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL CHECK (state IN ('active', 'revoked')),
  token_hash TEXT NOT NULL UNIQUE,
  default_lease_ttl_seconds INTEGER
    CHECK (default_lease_ttl_seconds IS NULL OR default_lease_ttl_seconds BETWEEN 60 AND 86400),
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  UNIQUE (human_id, slug)
);
CREATE TABLE todos (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  queue TEXT NOT NULL,
  title TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT 'null',
  state TEXT NOT NULL CHECK (state IN ('queued', 'claimed', 'done')),
  attempts INTEGER NOT NULL DEFAULT 0,
  holder_endpoint_id TEXT REFERENCES endpoints(id),
  claim_epoch INTEGER NOT NULL DEFAULT 0,
  lease_expires_at INTEGER,
  created_by TEXT NOT NULL REFERENCES humans(id),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE INDEX todos_by_queue ON todos (queue, state, seq);
CREATE INDEX todos_by_lease ON todos (lease_expires_at) WHERE state = 'claimed';
CREATE TABLE claim_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  todo_id TEXT NOT NULL REFERENCES todos(id),
  endpoint_id TEXT REFERENCES endpoints(id),
  kind TEXT NOT NULL CHECK (kind IN ('claimed', 'heartbeat', 'released', 'completed', 'reaped')),
  claim_epoch INTEGER NOT NULL,
  lease_ttl_seconds INTEGER,
  lease_source TEXT CHECK (lease_source IN ('per_call', 'endpoint', 'server')),
  lease_expires_at INTEGER,
  at INTEGER NOT NULL
);
CREATE INDEX claim_events_by_todo ON claim_events (todo_id, id);
`;

const postgres = `
CREATE TABLE humans (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  token_hash TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL
);
CREATE TABLE endpoints (
  id TEXT PRIMARY KEY,
  human_id TEXT NOT NULL REFERENCES humans(id),
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  scope TEXT NOT NULL,
  friend BOOLEAN NOT NULL DEFAULT FALSE,
  state TEXT NOT NULL CHECK (state IN ('active', 'revoked')),
  token_hash TEXT NOT NULL UNIQUE,
  default_lease_ttl_seconds INTEGER
    CHECK (default_lease_ttl_seconds IS NULL OR default_lease_ttl_seconds BETWEEN 60 AND 86400),
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  UNIQUE (human_id, slug)
);
CREATE TABLE todos (
  id TEXT PRIMARY KEY,
  seq BIGSERIAL UNIQUE,
  queue TEXT NOT NULL,
  title TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT 'null',
  state TEXT NOT NULL CHECK (state IN ('queued', 'claimed', 'done')),
  attempts INTEGER NOT NULL DEFAULT 0,
  holder_endpoint_id TEXT REFERENCES endpoints(id),
  claim_epoch INTEGER NOT NULL DEFAULT 0,
  lease_expires_at BIGINT,
  created_by TEXT NOT NULL REFERENCES humans(id),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  completed_at BIGINT
);
CREATE INDEX todos_by_queue ON todos (queue, state, seq);
CREATE INDEX todos_by_lease ON todos (lease_expires_at) WHERE state = 'claimed';
CREATE TABLE claim_events (
  id BIGSERIAL PRIMARY KEY,
  todo_id TEXT NOT NULL REFERENCES todos(id),
  endpoint_id TEXT REFERENCES endpoints(id),
  kind TEXT NOT NULL CHECK (kind IN ('claimed', 'heartbeat', 'released', 'completed', 'reaped')),
  claim_epoch INTEGER NOT NULL,
  lease_ttl_seconds INTEGER,
  lease_source TEXT CHECK (lease_source IN ('per_call', 'endpoint', 'server')),
  lease_expires_at BIGINT,
  at BIGINT NOT NULL
);
CREATE INDEX claim_events_by_todo ON claim_events (todo_id, id);
`;

export const claimsMigration: Migration = { version: 1, name: 'claims', sqlite, postgres };
