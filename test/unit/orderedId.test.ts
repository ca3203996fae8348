// Todo ids sort by creation time (index locality) and stay unique and opaque.
import assert from 'node:assert/strict';
import { generateOrderedId } from '../../src/server/auth/tokens.ts';

describe('time-ordered ids', () => {
  it('sort as their creation times do, across digit boundaries', () => {
    const times = [0, 35, 36, 1_000_000, Date.UTC(2026, 11, 3), Date.UTC(2026, 11, 3) + 1, Date.UTC(2099, 0, 1)];
    const ids = times.map((time) => generateOrderedId('td', time));
    assert.deepEqual([...ids].sort(), ids);
    for (const id of ids) assert.match(id, /^td_[0-9a-z]{9}[A-Za-z0-9]{8}$/);
  });

  it('are unique within one millisecond', () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => generateOrderedId('td', now)));
    assert.equal(ids.size, 10_000);
  });
});
