// Team mode's change relay sends a few milliseconds of changes as one notification: the
// payloads stay under PostgreSQL's 8,000-byte limit, lose no change, keep their order, and
// a notification of an earlier server (one event) is still read.
import assert from 'node:assert/strict';
import { MAX_PAYLOAD_BYTES, notifyPayloads, payloadPrefix, readNotifyPayload } from '../../src/server/team/changeRelay.ts';
import type { ChangeEvent } from '../../src/server/events.ts';

const todoEvent = (index: number): ChangeEvent => ({ type: 'todo.changed', todo_id: `td_${index}`, queue: 'reviews', change: 'claimed', endpoint_id: 'ep_1' });

describe('change relay payloads', () => {
  it('splits many changes into payloads under the limit, in order, none lost', () => {
    const events = Array.from({ length: 1000 }, (_, index) => todoEvent(index));
    const payloads = notifyPayloads('origin-a', events.map((event) => JSON.stringify(event)));
    assert.ok(payloads.length > 1, 'more than one payload');
    for (const payload of payloads) assert.ok(Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES, `${Buffer.byteLength(payload)} bytes`);
    const read = payloads.map(readNotifyPayload);
    assert.ok(read.every((entry) => entry.origin === 'origin-a'));
    assert.deepEqual(read.flatMap((entry) => entry.events), events);
  });

  it('sends a few changes as one payload', () => {
    const payloads = notifyPayloads('o', [todoEvent(1), todoEvent(2)].map((event) => JSON.stringify(event)));
    assert.equal(payloads.length, 1);
    assert.deepEqual(readNotifyPayload(payloads[0]!).events, [todoEvent(1), todoEvent(2)]);
  });

  it("a server's own payloads, and only its own, start with its prefix", () => {
    const [own] = notifyPayloads('abc', [JSON.stringify(todoEvent(1))]);
    const [other] = notifyPayloads('abcd', [JSON.stringify(todoEvent(1))]);
    assert.ok(own!.startsWith(payloadPrefix('abc')));
    assert.ok(!other!.startsWith(payloadPrefix('abc')), 'an origin that merely begins the same is another server');
  });

  it('reads the one-event payload of an earlier server', () => {
    assert.deepEqual(readNotifyPayload(JSON.stringify({ origin: 'old', event: todoEvent(7) })), { origin: 'old', events: [todoEvent(7)] });
  });
});
