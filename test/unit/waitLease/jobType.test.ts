import assert from 'node:assert/strict';
import { LeaseholdError } from '../../../src/core/errors.ts';
import { BASE_JOB_TYPES, kindForConsumers, parseJobType, parseLeaseKind } from '../../../src/core/waitLease/jobType.ts';

function refusedField(fn: () => unknown, field: string) {
  assert.throws(fn, (error: unknown) => error instanceof LeaseholdError && error.code === 'invalid_argument' && error.field === field);
}

describe('wait-lease job_type', () => {
  it('accepts every base type and defaults to other when omitted', () => {
    for (const type of BASE_JOB_TYPES) assert.equal(parseJobType(type), type);
    assert.equal(parseJobType(undefined), 'other');
    assert.equal(parseJobType(null), 'other');
  });

  it('accepts the other:<name> escape hatch with a short lowercase name', () => {
    assert.equal(parseJobType('other:gpu-gen'), 'other:gpu-gen');
    assert.equal(parseJobType('other:a'), 'other:a');
    assert.equal(parseJobType(`other:a${'b'.repeat(39)}`), `other:a${'b'.repeat(39)}`);
  });

  it('refuses free text and malformed escape hatches, naming job_type', () => {
    for (const bad of ['Shell', 'npm test', 'other:', 'other:GPU', 'other:-x', 'other:a b', `other:a${'b'.repeat(40)}`, 'misc', 3, {}, '']) {
      refusedField(() => parseJobType(bad), 'job_type');
    }
  });
});

describe('wait-lease kind', () => {
  it('defaults to declared and accepts inferred', () => {
    assert.equal(parseLeaseKind(undefined), 'declared');
    assert.equal(parseLeaseKind('inferred'), 'inferred');
  });

  it('refuses an unknown kind on input, naming kind', () => {
    refusedField(() => parseLeaseKind('verified'), 'kind');
  });

  it('reads any unknown kind as inferred, the weakest authority, for consumers', () => {
    assert.equal(kindForConsumers('declared'), 'declared');
    for (const other of ['inferred', 'verified', 'DECLARED', '', null, undefined, 7]) assert.equal(kindForConsumers(other), 'inferred');
  });
});
