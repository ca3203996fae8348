// Claim-lease bounds and precedence (ADR-0043). Every surface resolves a lease here.

/** Server default lease when neither the call nor the endpoint says otherwise. */
export const SERVER_DEFAULT_LEASE_TTL_SECONDS = 300;
/** Floor for an endpoint's default only; a single call may ask for less. */
export const MIN_DEFAULT_LEASE_TTL_SECONDS = 60;
/** Hard ceiling for per-call and default leases alike. */
export const MAX_LEASE_TTL_SECONDS = 86_400;
/** Smallest per-call lease (a lease must last at least one second). */
export const MIN_PER_CALL_LEASE_TTL_SECONDS = 1;

export type LeaseSource = 'per_call' | 'endpoint' | 'server';

export interface ResolvedLease {
  seconds: number;
  source: LeaseSource;
}

/**
 * Precedence on claim, claim_next and heartbeat: an explicit per-call value (clamped to the
 * cap) wins, else the endpoint's default, else the server default.
 */
export function resolveLeaseTtl(
  perCallSeconds: number | null | undefined,
  endpointDefaultSeconds: number | null | undefined,
): ResolvedLease {
  if (perCallSeconds !== undefined && perCallSeconds !== null) {
    return { seconds: Math.min(perCallSeconds, MAX_LEASE_TTL_SECONDS), source: 'per_call' };
  }
  return effectiveDefaultLease(endpointDefaultSeconds);
}

/** The lease a call that says nothing gets: the endpoint's default or the server's. */
export function effectiveDefaultLease(endpointDefaultSeconds: number | null | undefined): ResolvedLease {
  if (endpointDefaultSeconds !== undefined && endpointDefaultSeconds !== null) {
    return { seconds: endpointDefaultSeconds, source: 'endpoint' };
  }
  return { seconds: SERVER_DEFAULT_LEASE_TTL_SECONDS, source: 'server' };
}

/** Why a default lease value is refused, or null when it is acceptable. Never clamps. */
export function defaultLeaseTtlProblem(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return 'default_lease_ttl_seconds must be a whole number of seconds or null';
  }
  if (value < MIN_DEFAULT_LEASE_TTL_SECONDS || value > MAX_LEASE_TTL_SECONDS) {
    return `default_lease_ttl_seconds must be between ${MIN_DEFAULT_LEASE_TTL_SECONDS} and ${MAX_LEASE_TTL_SECONDS} seconds inclusive (got ${value}); out-of-range values are refused, not clamped`;
  }
  return null;
}

/** "this endpoint's default" / "the server default": whose number applies. */
export function leaseOwnerPhrase(source: LeaseSource): string {
  switch (source) {
    case 'endpoint':
      return "this endpoint's default";
    case 'server':
      return 'the server default';
    case 'per_call':
      return 'the per-call value';
  }
}
