import assert from 'node:assert/strict';
import {
  DISPOSITIONS,
  REASON_CODES,
  STRONGEST_SAFE_DISPOSITION,
  dispositionOf,
  dispositionRule,
  dispositionStrength,
  strongestDisposition,
} from '../../../src/core/waitLease/reasons.ts';

describe('wait-lease reason codes and dispositions', () => {
  it('maps each reason code to the disposition the contract names', () => {
    assert.equal(dispositionOf('LEASE_STALE'), 'reverify_then_page');
    assert.equal(dispositionOf('EVIDENCE_MISSING'), 'refuse_renewal');
    assert.equal(dispositionOf('CHAIN_CAP_REACHED'), 'page_immediately');
    assert.equal(dispositionOf('OWNER_WINDOW_ENDED'), 'drain_and_park');
  });

  it('pages as the contract says: LEASE_STALE if unresolved, CHAIN_CAP_REACHED now, OWNER_WINDOW_ENDED never', () => {
    assert.equal(dispositionRule(dispositionOf('LEASE_STALE')).page, 'if_unresolved');
    assert.equal(dispositionRule(dispositionOf('CHAIN_CAP_REACHED')).page, 'now');
    assert.equal(dispositionRule(dispositionOf('OWNER_WINDOW_ENDED')).page, 'no');
    assert.equal(dispositionRule(dispositionOf('EVIDENCE_MISSING')).page, 'no');
  });

  it('no disposition ever terminates or extends', () => {
    for (const disposition of DISPOSITIONS) {
      assert.equal(dispositionRule(disposition).mayTerminate, false);
      assert.equal(dispositionRule(disposition).mayExtend, false);
    }
  });

  it('an unknown reason code gets the strongest safe disposition (page, no kill, no extend)', () => {
    assert.equal(dispositionOf('QUOTA_EXCEEDED'), STRONGEST_SAFE_DISPOSITION);
    assert.equal(STRONGEST_SAFE_DISPOSITION, DISPOSITIONS[DISPOSITIONS.length - 1]);
    assert.equal(dispositionRule(STRONGEST_SAFE_DISPOSITION).page, 'now');
  });

  it('keeps the strongest disposition when several fire; an anomaly is never suppressed by a normal close', () => {
    assert.equal(strongestDisposition(['OWNER_WINDOW_ENDED', 'CHAIN_CAP_REACHED']), 'page_immediately');
    assert.equal(strongestDisposition(['CHAIN_CAP_REACHED', 'OWNER_WINDOW_ENDED']), 'page_immediately');
    assert.equal(strongestDisposition(['OWNER_WINDOW_ENDED', 'LEASE_STALE']), 'reverify_then_page');
    assert.equal(strongestDisposition(['EVIDENCE_MISSING', 'OWNER_WINDOW_ENDED']), 'drain_and_park');
    assert.equal(strongestDisposition(['OWNER_WINDOW_ENDED', 'SOMETHING_NEW']), 'page_immediately');
    assert.equal(strongestDisposition([]), 'none');
  });

  it('orders dispositions so every paging one outranks every non-paging one', () => {
    const paging = DISPOSITIONS.filter((d) => dispositionRule(d).page !== 'no');
    const quiet = DISPOSITIONS.filter((d) => dispositionRule(d).page === 'no');
    for (const p of paging) for (const q of quiet) assert.ok(dispositionStrength(p) > dispositionStrength(q), `${p} > ${q}`);
    assert.equal(REASON_CODES.length, 5);
  });
});
