import assert from 'node:assert/strict';
import { parseTtlInput, ttlInputValue, validateTtlInput } from '../../../src/extension/model/ttlInput.ts';

describe('extension: lease TTL input', () => {
  it('refuses 59s with the rule, never clamps', () => {
    const result = parseTtlInput('59s');
    assert.equal(result.ok, false);
    assert.match(validateTtlInput('59s') ?? '', /too short.*between 1m \(60 s\) and 1d \(86400 s\).*refused, not clamped/);
  });
  it('accepts 60s, 90s, 15m, 1h, 24h and bare seconds', () => {
    assert.deepEqual(parseTtlInput('60s'), { ok: true, seconds: 60 });
    assert.deepEqual(parseTtlInput('90s'), { ok: true, seconds: 90 });
    assert.deepEqual(parseTtlInput('15m'), { ok: true, seconds: 900 });
    assert.deepEqual(parseTtlInput(' 1h '), { ok: true, seconds: 3600 });
    assert.deepEqual(parseTtlInput('24h'), { ok: true, seconds: 86_400 });
    assert.deepEqual(parseTtlInput('86400'), { ok: true, seconds: 86_400 });
    assert.equal(validateTtlInput('15m'), undefined);
  });
  it('refuses 86401 with the rule', () => {
    assert.match(validateTtlInput('86401') ?? '', /86401 s\) is too long.*between/);
  });
  it('"default" means the server default (null)', () => {
    assert.deepEqual(parseTtlInput('default'), { ok: true, seconds: null });
    assert.deepEqual(parseTtlInput('Default'), { ok: true, seconds: null });
  });
  it('garbage gets a message that says what to type', () => {
    assert.match(validateTtlInput('soon') ?? '', /not a duration.*90s, 15m, 1h.*"default"/);
    assert.match(validateTtlInput('') ?? '', /required/);
  });
  it('pre-fills the current value', () => {
    assert.equal(ttlInputValue(null), 'default');
    assert.equal(ttlInputValue(900), '15m');
  });
});
