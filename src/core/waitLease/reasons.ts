// Reason codes of the consumer contract and the disposition each demands. One invariant holds
// for all of them: the machine never terminates paid resources and never self-extends, so no
// disposition says "kill" or "extend".

export const REASON_CODES = ['LEASE_STALE', 'EVIDENCE_MISSING', 'CHAIN_CAP_REACHED', 'OWNER_WINDOW_ENDED', 'NO_PROGRESS'] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/**
 * Reason codes consumers must handle but no code path emits. Empty since the chain-cap fuse
 * (fuses.ts) emits CHAIN_CAP_REACHED.
 */
export const RESERVED_REASON_CODES: readonly ReasonCode[] = [];

/** Dispositions, weakest first. Array position is strength. */
export const DISPOSITIONS = [
  'none',
  /** EVIDENCE_MISSING: do not extend the lease; nothing else. */
  'refuse_renewal',
  /** OWNER_WINDOW_ENDED: normal close of delegated time; stop taking work, park, do not page. */
  'drain_and_park',
  /** LEASE_STALE: re-verify the target, allow a grace period, page a human if still unresolved. */
  'reverify_then_page',
  /** CHAIN_CAP_REACHED, NO_PROGRESS (K identical renewals), or any reason code not known here: an anomaly; page a human now. */
  'page_immediately',
] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

export type PagePolicy = 'no' | 'if_unresolved' | 'now';

export interface DispositionRule {
  disposition: Disposition;
  page: PagePolicy;
  /** Every disposition forbids both; spelled out so consumers can assert it. */
  mayTerminate: false;
  mayExtend: false;
}

const RULES: Record<Disposition, DispositionRule> = {
  none: { disposition: 'none', page: 'no', mayTerminate: false, mayExtend: false },
  refuse_renewal: { disposition: 'refuse_renewal', page: 'no', mayTerminate: false, mayExtend: false },
  drain_and_park: { disposition: 'drain_and_park', page: 'no', mayTerminate: false, mayExtend: false },
  reverify_then_page: { disposition: 'reverify_then_page', page: 'if_unresolved', mayTerminate: false, mayExtend: false },
  page_immediately: { disposition: 'page_immediately', page: 'now', mayTerminate: false, mayExtend: false },
};

const DISPOSITION_OF_REASON: Record<ReasonCode, Disposition> = {
  LEASE_STALE: 'reverify_then_page',
  EVIDENCE_MISSING: 'refuse_renewal',
  CHAIN_CAP_REACHED: 'page_immediately',
  OWNER_WINDOW_ENDED: 'drain_and_park',
  NO_PROGRESS: 'page_immediately',
};

/** The strongest safe disposition: what an unknown reason code gets (no kill, no extend, page). */
export const STRONGEST_SAFE_DISPOSITION: Disposition = 'page_immediately';

export function isReasonCode(value: unknown): value is ReasonCode {
  return typeof value === 'string' && (REASON_CODES as readonly string[]).includes(value);
}

/** The disposition a reason demands; an unknown code (a newer server, a typo) gets the strongest safe one. */
export function dispositionOf(code: string): Disposition {
  return isReasonCode(code) ? DISPOSITION_OF_REASON[code] : STRONGEST_SAFE_DISPOSITION;
}

export function dispositionStrength(disposition: Disposition): number {
  return DISPOSITIONS.indexOf(disposition);
}

export function dispositionRule(disposition: Disposition): DispositionRule {
  return RULES[disposition];
}

/**
 * When several reasons fire at once, all are kept and the strongest disposition applies, so an
 * anomaly (page now) is never suppressed by a normal close (drain and park).
 */
export function strongestDisposition(codes: readonly string[]): Disposition {
  let strongest: Disposition = 'none';
  for (const code of codes) {
    const candidate = dispositionOf(code);
    if (dispositionStrength(candidate) > dispositionStrength(strongest)) strongest = candidate;
  }
  return strongest;
}
