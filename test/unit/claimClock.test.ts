// Claim time on the boot clock (issue 10, item 8): a wall step moves no claim expiry.
import assert from 'node:assert/strict';
import { claimTimeAt, type ClaimClockAnchor } from '../../src/core/claimClock.ts';
import type { ClockReading } from '../../src/core/waitLease/clockReading.ts';

const WALL = Date.UTC(2026, 11, 2, 12, 0, 0);
const reading = (bootMs: number, wallMs: number, bootId: string | null = 'boot-a', countsSuspend = true): ClockReading => ({
  bootMs,
  wallMs,
  domain: { bootId, countsSuspend },
});

describe('claim clock (claim expiry on the boot clock)', () => {
  const inProcess = { sameProcess: true };
  let anchor: ClaimClockAnchor;
  beforeEach(() => {
    const started = claimTimeAt(undefined, reading(1_000_000, WALL), inProcess);
    assert.deepEqual([started.step, started.claimMs], ['start', WALL], 'starts at the wall time');
    anchor = started.anchor;
  });

  it('follows the clocks while they agree', () => {
    const next = claimTimeAt(anchor, reading(1_060_000, WALL + 60_000), inProcess);
    assert.deepEqual([next.step, next.claimMs], ['steady', WALL + 60_000]);
    assert.equal(next.anchor, anchor, 'no new anchor while steady');
  });

  it('a wall step back an hour moves claim time back by nothing', () => {
    const stepped = claimTimeAt(anchor, reading(1_010_000, WALL + 10_000 - 3_600_000), inProcess);
    assert.deepEqual([stepped.step, stepped.claimMs], ['wall_stepped', WALL + 10_000]);
    const later = claimTimeAt(stepped.anchor, reading(1_070_000, WALL + 70_000 - 3_600_000), inProcess);
    assert.deepEqual([later.step, later.claimMs], ['steady', WALL + 70_000], 'a minute later is a minute later');
  });

  it('a wall step forward an hour cuts nothing short when the boot clock counts suspend', () => {
    const stepped = claimTimeAt(anchor, reading(1_010_000, WALL + 10_000 + 3_600_000), inProcess);
    assert.deepEqual([stepped.step, stepped.claimMs], ['wall_stepped', WALL + 10_000]);
  });

  it('a boot clock that freezes in suspend is caught up with the wall: a sleep never extends a claim', () => {
    const frozen = claimTimeAt(undefined, reading(5_000, WALL, null, false), inProcess).anchor;
    const woke = claimTimeAt(frozen, reading(6_000, WALL + 1_000 + 600_000, null, false), inProcess);
    assert.deepEqual([woke.step, woke.claimMs], ['unaccounted_suspend', WALL + 601_000]);
    const back = claimTimeAt(frozen, reading(6_000, WALL + 1_000 - 600_000, null, false), inProcess);
    assert.deepEqual([back.step, back.claimMs], ['wall_stepped', WALL + 1_000], 'a step back still moves nothing');
  });

  it('a restart in the same boot continues on the boot clock across the gap', () => {
    const restarted = claimTimeAt(anchor, reading(1_300_000, WALL + 300_000 - 3_600_000), { sameProcess: false });
    assert.deepEqual([restarted.step, restarted.claimMs], ['wall_stepped', WALL + 300_000]);
  });

  it('another boot (or one without an id) starts at the wall time, never before the last claim time', () => {
    for (const bootId of ['boot-b', null]) {
      const behind = claimTimeAt(anchor, reading(30_000, WALL - 3_600_000, bootId), { sameProcess: false });
      assert.deepEqual([behind.step, behind.claimMs], ['new_boot', WALL]);
      const ahead = claimTimeAt(anchor, reading(30_000, WALL + 900_000, bootId), { sameProcess: false });
      assert.deepEqual([ahead.step, ahead.claimMs], ['new_boot', WALL + 900_000]);
    }
    const nullAnchor = claimTimeAt(undefined, reading(1_000, WALL, null), inProcess).anchor;
    assert.equal(claimTimeAt(nullAnchor, reading(2_000, WALL + 1_000, null), inProcess).step, 'steady', 'no id is one boot within one process');
    assert.equal(claimTimeAt(nullAnchor, reading(2_000, WALL + 1_000, null), { sameProcess: false }).step, 'new_boot', 'but unverifiable across a restart');
  });

  it('a boot clock that goes back is another boot; claim time never goes back', () => {
    const back = claimTimeAt(anchor, reading(500_000, WALL - 10_000), inProcess);
    assert.deepEqual([back.step, back.claimMs], ['new_boot', WALL]);
  });
});
