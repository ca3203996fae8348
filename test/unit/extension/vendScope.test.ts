import assert from 'node:assert/strict';
import { ALL_VERBS, DRAIN_VERBS } from '../../../src/core/verbs.ts';
import { scopeChoices, scopeFromPicks } from '../../../src/extension/model/vendScope.ts';

describe('extension: the vend scope step', () => {
  it('offers every verb; only the drain verbs are checked; get_default_lease and set_default_lease are offered unchecked', () => {
    const choices = scopeChoices();
    assert.deepEqual(choices.map((choice) => choice.verb), [...ALL_VERBS]);
    assert.deepEqual(choices.filter((choice) => choice.picked).map((choice) => choice.verb), [...DRAIN_VERBS]);
    for (const verb of ['get_default_lease', 'set_default_lease', 'wait_lease_acquire']) {
      const choice = choices.find((candidate) => candidate.verb === verb)!;
      assert.equal(choice.picked, false, verb);
      assert.ok(choice.description.length > 0);
    }
  });

  it('the picked verbs become the scope in canonical order; none is refused with the rule', () => {
    assert.deepEqual(scopeFromPicks(['set_default_lease', 'claim']), { ok: true, scope: ['claim', 'set_default_lease'] });
    const none = scopeFromPicks([]);
    assert.equal(none.ok, false);
    assert.match((none as { message: string }).message, /at least one verb/);
  });
});
