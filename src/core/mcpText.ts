// The text agents read. It must state the numbers the server applies: the endpoint's
// effective default and whose it is, and the cap (ADR-0043 "What agents read"). Claude Code
// fixes the instructions at initialize and does not show a changed description within a
// conversation, so the one channel that is always current is each call's result: it states
// the lease applied, from where, and any change of the default since the session began.
import { formatDurationSeconds } from './duration.ts';
import { effectiveDefaultLease, leaseOwnerPhrase, MAX_LEASE_TTL_SECONDS, type LeaseSource } from './claimLease.ts';

function leasePhrase(seconds: number, source: LeaseSource): string {
  return `${seconds} seconds (${formatDurationSeconds(seconds)}, ${leaseOwnerPhrase(source)})`;
}

function defaultPhrase(endpointDefaultSeconds: number | null): string {
  const effective = effectiveDefaultLease(endpointDefaultSeconds);
  return leasePhrase(effective.seconds, effective.source);
}

const REFUSALS =
  'Refusals are JSON {"error": {code, message, field, details}}. lease_lapsed, held_by_other and claim_ended mean you no longer hold the todo: stop work on it and do not complete, merge or publish anything for it. ' +
  'wrong_claim_epoch with details.holds_todo true means you still hold it under details.current_claim_epoch: repeat the call with that epoch. ' +
  'invalid_argument names the field, the value received and the rule.';

export function mcpInstructions(endpointSlug: string, endpointDefaultSeconds: number | null): string {
  return [
    `You are connected to Leasehold as endpoint "${endpointSlug}".`,
    `Lease contract: a claim (claim, claim_next) holds a todo for a lease; while it is live no other worker sees the todo, and when it lapses the todo is requeued for another worker.`,
    `As of the start of this session, a claim or heartbeat without lease_ttl_seconds lasts ${defaultPhrase(endpointDefaultSeconds)}. ` +
      `That default can change while this session runs (the endpoint's human can edit it; set_default_lease changes it): ` +
      `every claim, claim_next and heartbeat result states the lease it applied and where it came from (lease_note), and says when the default changed since this session started (default_changed); get_default_lease reads the current one. Trust those over this text and over tool descriptions.`,
    `A per-call lease_ttl_seconds wins, capped at ${MAX_LEASE_TTL_SECONDS} seconds. A heartbeat without lease_ttl_seconds sets the lease to the current default from now, even when that is shorter than the lease you hold; to keep a longer lease, pass lease_ttl_seconds on every heartbeat.`,
    `Heartbeat before the lease lapses, presenting the claim_epoch you were given. ${REFUSALS}`,
  ].join('\n');
}

const listedNote = 'as of when these tools were listed; each result states the lease actually applied';

export function claimToolDescription(endpointDefaultSeconds: number | null): string {
  return `Claim one given todo by id. The lease lasts lease_ttl_seconds if given (capped at ${MAX_LEASE_TTL_SECONDS}), otherwise the endpoint's default: ${defaultPhrase(endpointDefaultSeconds)} ${listedNote}. Returns claim_epoch: present it to heartbeat, release and complete.`;
}

export function claimNextToolDescription(endpointDefaultSeconds: number | null): string {
  return `Claim the oldest queued todo of a queue. The lease lasts lease_ttl_seconds if given (capped at ${MAX_LEASE_TTL_SECONDS}), otherwise the endpoint's default: ${defaultPhrase(endpointDefaultSeconds)} ${listedNote}. Returns claim_epoch, or claimed:false when the queue is empty.`;
}

export function heartbeatToolDescription(endpointDefaultSeconds: number | null): string {
  return (
    `Set a live claim's lease to a new length from now. With lease_ttl_seconds: that many seconds (capped at ${MAX_LEASE_TTL_SECONDS}). ` +
    `Without it: the endpoint's current default (${defaultPhrase(endpointDefaultSeconds)} when these tools were listed), even when that is shorter than the lease you hold ` +
    `(for example one claimed with a longer lease_ttl_seconds). To keep a longer lease, pass lease_ttl_seconds. ` +
    `The result states the lease applied and warns when a bare heartbeat shortened your lease. ` +
    `Refused with lease_lapsed, held_by_other or claim_ended once you no longer hold the todo, and with wrong_claim_epoch when claim_epoch is not your current one.`
  );
}

export const RELEASE_TOOL_DESCRIPTION =
  'Release a claim you hold so another worker can take the todo now. Present its claim_epoch. Refused with lease_lapsed, held_by_other or claim_ended when you no longer hold the todo, and with wrong_claim_epoch (details.holds_todo, details.current_claim_epoch) when the epoch is not your current one.';

export const COMPLETE_TOOL_DESCRIPTION =
  'Mark a todo you hold as done. Present its claim_epoch. Refused with lease_lapsed, held_by_other or claim_ended when you no longer hold the todo (stop work on it), and with wrong_claim_epoch (details.holds_todo, details.current_claim_epoch) when the epoch is not your current one.';

export const LEASE_TTL_ARGUMENT_TEXT = `Lease length in seconds for this call, capped at ${MAX_LEASE_TTL_SECONDS}. See the tool description for the default.`;

/** What a claim, claim_next or heartbeat result tells the model about its lease. */
export interface LeaseResultInput {
  kind: 'claim' | 'heartbeat';
  leaseSeconds: number;
  leaseSource: LeaseSource;
  leaseExpiresAt: number;
  now: number;
  /** The endpoint's effective default as read for this call. */
  defaultNow: { seconds: number; source: 'endpoint' | 'server' };
  /** The endpoint's stored default when this session started (what its instructions say). */
  sessionStartDefaultSeconds: number | null;
  /** Bare heartbeat only: the expiry it replaced. */
  previousExpiresAt?: number | null | undefined;
}

export interface LeaseResultNotes {
  lease_note: string;
  default_changed?: string;
  warning?: string;
}

function fromWhere(source: LeaseSource): string {
  return source === 'per_call' ? `the lease_ttl_seconds you passed (capped at ${MAX_LEASE_TTL_SECONDS})` : leaseOwnerPhrase(source);
}

export function leaseResultNotes(input: LeaseResultInput): LeaseResultNotes {
  const left = formatDurationSeconds((input.leaseExpiresAt - input.now) / 1000);
  const verb = input.kind === 'claim' ? 'Lease granted' : 'Lease extended: it now runs';
  const notes: LeaseResultNotes = {
    lease_note: `${verb} ${input.leaseSeconds} seconds (${formatDurationSeconds(input.leaseSeconds)}) from now, from ${fromWhere(input.leaseSource)}; it expires in ${left} (at ${new Date(input.leaseExpiresAt).toISOString()}). A call without lease_ttl_seconds now gets ${leasePhrase(input.defaultNow.seconds, input.defaultNow.source)}.`,
  };
  const start = effectiveDefaultLease(input.sessionStartDefaultSeconds);
  if (start.seconds !== input.defaultNow.seconds || start.source !== input.defaultNow.source) {
    notes.default_changed =
      `This endpoint's default lease changed since this session started: from ${leasePhrase(start.seconds, start.source)} to ${leasePhrase(input.defaultNow.seconds, input.defaultNow.source)}. ` +
      `The session instructions (and possibly the tool descriptions you see) still state the old number; calls without lease_ttl_seconds now get ${input.defaultNow.seconds} seconds.`;
  }
  if (input.previousExpiresAt !== undefined && input.previousExpiresAt !== null && input.leaseExpiresAt < input.previousExpiresAt) {
    const before = formatDurationSeconds(Math.max(0, input.previousExpiresAt - input.now) / 1000);
    notes.warning =
      `This heartbeat SHORTENED your lease: it had ${before} left and now has ${left}, because a heartbeat without lease_ttl_seconds sets the lease to the endpoint's default (${input.defaultNow.seconds} seconds) from now. ` +
      `To keep a longer lease, heartbeat again now with lease_ttl_seconds.`;
  }
  return notes;
}
