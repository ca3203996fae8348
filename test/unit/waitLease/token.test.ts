import assert from 'node:assert/strict';
import { LEASE_TOKEN_BYTES, hashesEqual, newLeaseToken, tokenGenerator, tokenMatchesHash } from '../../../src/core/waitLease/token.ts';

function fixedBytes(fill: number) {
  return (length: number) => new Uint8Array(length).fill(fill);
}

describe('wait-lease tokens', () => {
  it('encodes injected random bytes as a prefixed base64url token', () => {
    const token = newLeaseToken(fixedBytes(0xff));
    assert.match(token, /^wlt_[A-Za-z0-9_-]{43}$/);
    assert.equal(token, `wlt_${Buffer.from(new Uint8Array(LEASE_TOKEN_BYTES).fill(0xff)).toString('base64url')}`);
    let counter = 0;
    const generator = tokenGenerator((length) => new Uint8Array(length).fill(counter++));
    assert.notEqual(generator.newToken(), generator.newToken());
  });

  it('refuses a random source that returns the wrong number of bytes', () => {
    assert.throws(() => newLeaseToken(() => new Uint8Array(4)));
  });

  it('compares hashes exactly, with the hash function supplied by the caller', () => {
    const hash = (token: string) => `h(${token})`;
    assert.equal(tokenMatchesHash('abc', 'h(abc)', hash), true);
    assert.equal(tokenMatchesHash('abd', 'h(abc)', hash), false);
    assert.equal(hashesEqual('abc', 'abc'), true);
    assert.equal(hashesEqual('abc', 'abcd'), false);
    assert.equal(hashesEqual('', 'a'), false);
  });
});
