import assert from 'node:assert/strict';
import {
  AcquireRequestSchema,
  HoldRequestSchema,
  LedgerRowSchema,
  LeaseViewSchema,
  LowerCeilingRequestSchema,
  ReleaseRequestSchema,
  RenewEvidenceSchema,
  RenewRequestSchema,
  TeardownCheckRequestSchema,
} from '../../../src/core/waitLease/wire.ts';
import { leaseViewOf } from '../../../src/core/waitLease/leaseView.ts';
import { ledgerRowOf } from '../../../src/core/waitLease/ledger.ts';
import { MIN, acquireLease, at } from './fixtures.ts';

describe('wait-lease wire schemas', () => {
  it('acquire: ttl_ms mandatory and positive, job_type enforced, unknown keys refused', () => {
    assert.ok(AcquireRequestSchema.safeParse({ pane: 'p', job_ref: 'j', ttl_ms: 1000 }).success);
    assert.ok(AcquireRequestSchema.safeParse({ pane: 'p', job_ref: 'j', ttl_ms: 1000, job_type: 'other:gpu-gen', kind: 'inferred', authorized_until: Date.now() }).success);
    for (const bad of [
      { pane: 'p', job_ref: 'j' },
      { pane: 'p', job_ref: 'j', ttl_ms: 0 },
      { pane: 'p', job_ref: 'j', ttl_ms: 1.5 },
      { pane: 'p', job_ref: 'j', ttl_ms: 1000, job_type: 'npm test' },
      { pane: 'p', job_ref: 'j', ttl_ms: 1000, kind: 'verified' },
      { pane: 'p', job_ref: 'j', ttl_ms: 1000, expires_at: 5 },
    ]) {
      assert.equal(AcquireRequestSchema.safeParse(bad).success, false, JSON.stringify(bad));
    }
  });

  it('renew passes evidence through unparsed so the domain can answer EVIDENCE_MISSING', () => {
    assert.ok(RenewRequestSchema.safeParse({ lease_id: 'l', token: 't', ttl_ms: 1000 }).success);
    assert.ok(RenewRequestSchema.safeParse({ lease_id: 'l', token: 't', ttl_ms: 1000, evidence: { alive: true } }).success);
    assert.equal(RenewRequestSchema.safeParse({ lease_id: 'l', token: 't', ttl_ms: 1000, expires_at: 1 }).success, false);
  });

  it('the evidence schema accepts target observations only', () => {
    assert.ok(RenewEvidenceSchema.safeParse({ pid: 12, start_time: '123' }).success);
    assert.ok(RenewEvidenceSchema.safeParse({ provider_job: { id: 'g', state: 'running', observed_at: 1 } }).success);
    assert.equal(RenewEvidenceSchema.safeParse({ alive: true }).success, false);
    assert.equal(RenewEvidenceSchema.safeParse({ pid: 12 }).success, false);
  });

  it('release, lower ceiling and hold are strict', () => {
    assert.ok(ReleaseRequestSchema.safeParse({ lease_id: 'l', token: 't', reason: 'done' }).success);
    assert.equal(ReleaseRequestSchema.safeParse({ lease_id: 'l', token: 't', force: true }).success, false);
    assert.equal(LowerCeilingRequestSchema.safeParse({ lease_id: 'l', token: 't', authorized_until: null }).success, false);
    assert.ok(HoldRequestSchema.safeParse({ pane: 'p', job_ref: 'j', ttl_ms: 1000, target: { pid: 5 } }).success);
    assert.ok(HoldRequestSchema.safeParse({ pane: 'p', job_ref: 'j', ttl_ms: 1000, target: { provider_job: { id: 'x', url: 'http://127.0.0.1:9/job' } } }).success);
    assert.equal(HoldRequestSchema.safeParse({ pane: 'p', job_ref: 'j', ttl_ms: 1000, target: { provider_job: { id: 'x' } } }).success, false);
    assert.equal(HoldRequestSchema.safeParse({ pane: 'p', job_ref: 'j', ttl_ms: 1000, target: { alive: true } }).success, false);
  });

  it('the teardown-check request takes the caller-given heartbeat', () => {
    assert.ok(TeardownCheckRequestSchema.safeParse({ pane: 'p', job_ref: 'j', job_heartbeat_age_ms: null, heartbeat_stale_after_ms: 1, quiet_for_ms: 2, policy_floor_ms: 3 }).success);
  });

  it('lease views and ledger rows produced by the domain parse with their schemas', () => {
    const lease = acquireLease({ authorizedUntil: at(0).wallMs + 30 * MIN });
    LeaseViewSchema.parse(leaseViewOf(lease, at(MIN)));
    LedgerRowSchema.parse(ledgerRowOf(lease));
  });

  it('the ledger schema says declared TTLs are not training data and release is not completion', () => {
    const description = LedgerRowSchema.description ?? '';
    assert.match(description, /declared TTLs are not trustworthy training data/i);
    assert.match(description, /release is not completion/i);
  });
});
