// The text agents read. It must state the numbers the server applies: the endpoint's
// effective default and whose it is, and the cap (ADR-0043 "What agents read").
import { formatDurationSeconds } from './duration.ts';
import { effectiveDefaultLease, leaseOwnerPhrase, MAX_LEASE_TTL_SECONDS } from './claimLease.ts';

function defaultPhrase(endpointDefaultSeconds: number | null): string {
  const effective = effectiveDefaultLease(endpointDefaultSeconds);
  return `${effective.seconds} seconds (${formatDurationSeconds(effective.seconds)}, ${leaseOwnerPhrase(effective.source)})`;
}

export function mcpInstructions(endpointSlug: string, endpointDefaultSeconds: number | null): string {
  return [
    `You are connected to Leasehold as endpoint "${endpointSlug}".`,
    `Lease contract: a claim (claim, claim_next) holds a todo for a lease; while it is live no other worker sees the todo, and when it lapses the todo is requeued for another worker.`,
    `When you omit lease_ttl_seconds, a claim or heartbeat lasts ${defaultPhrase(endpointDefaultSeconds)}. A per-call lease_ttl_seconds wins, capped at ${MAX_LEASE_TTL_SECONDS} seconds.`,
    `Heartbeat before the lease lapses, presenting the claim_epoch you were given. If a call answers lease_lapsed you no longer hold the todo: stop work on it and do not complete, merge or publish anything for it.`,
  ].join('\n');
}

export function claimToolDescription(endpointDefaultSeconds: number | null): string {
  return `Claim one given todo by id. The lease lasts lease_ttl_seconds if given (capped at ${MAX_LEASE_TTL_SECONDS}), otherwise ${defaultPhrase(endpointDefaultSeconds)}. Returns claim_epoch: present it to heartbeat, release and complete.`;
}

export function claimNextToolDescription(endpointDefaultSeconds: number | null): string {
  return `Claim the oldest queued todo of a queue. The lease lasts lease_ttl_seconds if given (capped at ${MAX_LEASE_TTL_SECONDS}), otherwise ${defaultPhrase(endpointDefaultSeconds)}. Returns claim_epoch, or claimed:false when the queue is empty.`;
}

export function heartbeatToolDescription(endpointDefaultSeconds: number | null): string {
  return `Extend a live claim's lease from now. Without lease_ttl_seconds it extends by ${defaultPhrase(endpointDefaultSeconds)}, never by less; with it, by that many seconds (capped at ${MAX_LEASE_TTL_SECONDS}). Refused with lease_lapsed once the lease lapsed or the todo was claimed again.`;
}

export const LEASE_TTL_ARGUMENT_TEXT = `Lease length in seconds for this call, capped at ${MAX_LEASE_TTL_SECONDS}. See the tool description for the default.`;
