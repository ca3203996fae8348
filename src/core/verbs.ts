// Endpoint scope: the allowlist of verbs an endpoint may call over MCP. Scope is immutable.

export const DRAIN_VERBS = ['claim', 'claim_next', 'heartbeat', 'release', 'complete'] as const;
export const DEFAULT_LEASE_VERBS = ['get_default_lease', 'set_default_lease'] as const;
export const WAIT_LEASE_VERBS = [
  'wait_lease_acquire',
  'wait_lease_renew',
  'wait_lease_release',
  'wait_lease_hold',
  'wait_lease_list',
  'pane_verdict',
] as const;

export const ALL_VERBS = [...DRAIN_VERBS, ...DEFAULT_LEASE_VERBS, ...WAIT_LEASE_VERBS] as const;
export type Verb = (typeof ALL_VERBS)[number];

/** What the basic vend paths grant when no scope is given: every verb. */
export const BASIC_VEND_VERBS: readonly Verb[] = ALL_VERBS;

/** A friend endpoint's settings are its approver's, so it may not hold the lease-setting verbs. */
export const FRIEND_GRANTABLE_VERBS: readonly Verb[] = ALL_VERBS.filter(
  (verb) => !(DEFAULT_LEASE_VERBS as readonly string[]).includes(verb),
);

export function isVerb(value: string): value is Verb {
  return (ALL_VERBS as readonly string[]).includes(value);
}
