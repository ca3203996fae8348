// Shared builders for wait-lease unit tests: explicit clock readings, no real time.
import assert from 'node:assert/strict';
import type { ClockReading } from '../../../src/core/waitLease/clockReading.ts';
import { type AcquireInput, type LeaseOutcome, type WaitLeaseRecord, acquire } from '../../../src/core/waitLease/lease.ts';

export const BOOT = 'boot-a';
export const WALL0 = Date.UTC(2026, 11, 2, 12, 0, 0);
export const MIN = 60_000;
export const HARD_MAX = 60 * MIN;

/** A reading `offsetMs` after the fixture origin, both clocks advanced together unless told otherwise. */
export function at(offsetMs: number, overrides: { wallOffsetMs?: number; bootId?: string | null; countsSuspend?: boolean } = {}): ClockReading {
  return {
    bootMs: 1_000_000 + offsetMs,
    wallMs: WALL0 + (overrides.wallOffsetMs ?? offsetMs),
    domain: { bootId: overrides.bootId === undefined ? BOOT : overrides.bootId, countsSuspend: overrides.countsSuspend ?? true },
  };
}

export function acquireLease(overrides: Partial<AcquireInput> = {}): WaitLeaseRecord {
  return acquire({
    id: 'wl_1',
    pane: 'pane-a',
    generation: 1,
    jobRef: 'bslbv9989',
    ttlMs: 10 * MIN,
    tokenHash: 'hash-good',
    now: at(0),
    hardMaxTtlMs: HARD_MAX,
    paneLeases: [],
    ...overrides,
  }).record;
}

/** Asserts a refusal with the given code and returns it. */
export function expectRefusal<T extends object>(outcome: LeaseOutcome<T>, code: string) {
  assert.equal(outcome.ok, false, `expected refusal ${code}`);
  if (outcome.ok) throw new Error('unreachable');
  assert.equal(outcome.error.code, code, outcome.error.message);
  return outcome;
}

export function expectOk<T extends object>(outcome: LeaseOutcome<T>) {
  if (!outcome.ok) assert.fail(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome;
}

/** Verified pid evidence with the matching server reading at `now`. */
export function pidProof(now: ClockReading, pid = 4242, startTime = '98765') {
  return { evidence: { pid, start_time: startTime }, pidReading: { pid, startTime, readAtWallMs: now.wallMs } };
}
