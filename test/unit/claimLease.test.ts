import assert from 'node:assert/strict';
import {
  defaultLeaseTtlProblem,
  effectiveDefaultLease,
  MAX_LEASE_TTL_SECONDS,
  MIN_DEFAULT_LEASE_TTL_SECONDS,
  resolveLeaseTtl,
  SERVER_DEFAULT_LEASE_TTL_SECONDS,
} from '../../src/core/claimLease.ts';
import { formatDurationSeconds, parseDurationSeconds } from '../../src/core/duration.ts';
import { claimToolDescription, heartbeatToolDescription, mcpInstructions } from '../../src/core/mcpText.ts';
import { defaultLeaseTtlSecondsSchema, patchEndpointRequestSchema } from '../../src/core/wire/claims.ts';
import { parseWire } from '../../src/core/wire/validate.ts';
import { FRIEND_GRANTABLE_VERBS, BASIC_VEND_VERBS } from '../../src/core/verbs.ts';

describe('claim lease rules (ADR-0043)', () => {
  it('has the ADR bounds', () => {
    assert.deepEqual([SERVER_DEFAULT_LEASE_TTL_SECONDS, MIN_DEFAULT_LEASE_TTL_SECONDS, MAX_LEASE_TTL_SECONDS], [300, 60, 86_400]);
  });

  it('precedence: per-call > endpoint > server; per-call clamped to the cap', () => {
    assert.deepEqual(resolveLeaseTtl(120, 3600), { seconds: 120, source: 'per_call' });
    assert.deepEqual(resolveLeaseTtl(undefined, 3600), { seconds: 3600, source: 'endpoint' });
    assert.deepEqual(resolveLeaseTtl(null, null), { seconds: 300, source: 'server' });
    assert.deepEqual(resolveLeaseTtl(90_000, 3600), { seconds: 86_400, source: 'per_call' });
    assert.deepEqual(resolveLeaseTtl(5, 3600), { seconds: 5, source: 'per_call' }, 'the 60 s floor is for the default only');
    assert.deepEqual(effectiveDefaultLease(null), { seconds: 300, source: 'server' });
  });

  it('a default out of range is refused, never clamped', () => {
    for (const value of [59, 86_401, 0, -1, 60.5]) assert.ok(defaultLeaseTtlProblem(value), String(value));
    for (const value of [60, 86_400, null]) assert.equal(defaultLeaseTtlProblem(value), null);
    for (const value of [59, 86_401]) assert.equal(defaultLeaseTtlSecondsSchema.safeParse(value).success, false);
    assert.throws(() => parseWire(patchEndpointRequestSchema, { default_lease_ttl_seconds: 59 }), /between 60 and 86400/);
  });

  it('the default-lease verbs are basic-vend grants but not friend-grantable', () => {
    assert.ok(BASIC_VEND_VERBS.includes('set_default_lease') && BASIC_VEND_VERBS.includes('get_default_lease'));
    assert.ok(!FRIEND_GRANTABLE_VERBS.includes('set_default_lease') && !FRIEND_GRANTABLE_VERBS.includes('get_default_lease'));
    assert.ok(FRIEND_GRANTABLE_VERBS.includes('claim_next'));
  });
});

describe('durations', () => {
  it('parses 90s, 15m, 1h, 1h30m and bare seconds', () => {
    assert.deepEqual(
      ['90s', '15m', '1h', '1h30m', '86400', ' 2M '].map((text) => parseDurationSeconds(text)),
      [90, 900, 3600, 5400, 86_400, 120].map((seconds) => ({ ok: true, seconds })),
    );
  });
  it('says what is wrong with garbage', () => {
    for (const text of ['', 'soon', '15x', '1.5h', 'm']) {
      const parsed = parseDurationSeconds(text);
      assert.equal(parsed.ok, false, text);
    }
  });
  it('formats compactly', () => {
    assert.deepEqual([300, 900, 3600, 5400, 90, 86_400, 0].map(formatDurationSeconds), ['5m', '15m', '1h', '1h30m', '1m30s', '1d', '0s']);
  });
});

describe('what agents read', () => {
  it('states the endpoint default and whose, or the server default', () => {
    assert.match(mcpInstructions('reviewer', 2700), /2700 seconds \(45m, this endpoint's default\)/);
    assert.match(mcpInstructions('triage', null), /300 seconds \(5m, the server default\)/);
    assert.match(claimToolDescription(900), /900 seconds \(15m, this endpoint's default\)/);
    assert.match(heartbeatToolDescription(null), /300 seconds \(5m, the server default\) when these tools were listed\), even when that is shorter than the lease you hold/);
    assert.doesNotMatch(heartbeatToolDescription(7200), /never by less/, 'a bare heartbeat can shorten a lease (ADR-0043 precedence); the text must not deny it');
    assert.match(claimToolDescription(null), /capped at 86400/);
  });
});
