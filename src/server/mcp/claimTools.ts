// The endpoint-facing claim verbs as MCP tools, registered per session and only when the
// endpoint's scope grants them. The three lease-bearing tools carry the endpoint's current
// default in their description and are re-registered when it changes; because a client may
// never show the re-registered text, each of their results states the lease it applied.
import type { RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  claimNextToolDescription,
  claimToolDescription,
  COMPLETE_TOOL_DESCRIPTION,
  heartbeatToolDescription,
  leaseResultNotes,
  RELEASE_TOOL_DESCRIPTION,
} from '../../core/mcpText.ts';
import {
  claimArgsSchema,
  claimNextArgsSchema,
  completeArgsSchema,
  heartbeatArgsSchema,
  releaseArgsSchema,
  setDefaultLeaseArgsSchema,
  type ClaimView,
} from '../../core/wire/claims.ts';
import type { Verb } from '../../core/verbs.ts';
import type { ClaimService } from '../claims/claimService.ts';
import type { EndpointRecord } from '../claims/records.ts';
import type { SessionTools } from './sessionTools.ts';

export interface LeaseBearingTools {
  claim?: RegisteredTool;
  claim_next?: RegisteredTool;
  heartbeat?: RegisteredTool;
}

/** Registers the claim verbs the scope grants; returns the lease-bearing ones for re-registration. */
export function registerClaimTools(
  tools: SessionTools,
  endpoint: EndpointRecord,
  claims: ClaimService,
): { leaseBearing: LeaseBearingTools; reregister: (endpointDefaultSeconds: number | null) => void } {
  const granted = (verb: Verb) => endpoint.scope.includes(verb);
  const leaseBearing: LeaseBearingTools = {};
  // The number this session's instructions state: results compare the current default with it.
  const sessionStartDefault = endpoint.default_lease_ttl_seconds;
  const told = (view: ClaimView, kind: 'claim' | 'heartbeat') => ({
    ...leaseResultNotes({
      kind,
      leaseSeconds: view.lease_ttl_seconds,
      leaseSource: view.lease_source,
      leaseExpiresAt: view.lease_expires_at,
      now: view.lease_expires_at - view.lease_remaining_ms,
      defaultNow: { seconds: view.default_lease_ttl_seconds_now, source: view.default_lease_source_now },
      sessionStartDefaultSeconds: sessionStartDefault,
      previousExpiresAt: view.previous_lease_expires_at,
    }),
    ...view,
  });

  const seconds = endpoint.default_lease_ttl_seconds;
  if (granted('claim')) {
    leaseBearing.claim = tools.register('claim', claimToolDescription(seconds), claimArgsSchema, async (args) =>
      told(await claims.claim(endpoint, args.todo_id, args.lease_ttl_seconds), 'claim'),
    );
  }
  if (granted('claim_next')) {
    leaseBearing.claim_next = tools.register('claim_next', claimNextToolDescription(seconds), claimNextArgsSchema, async (args) => {
      const claim = await claims.claimNext(endpoint, args.queue, args.lease_ttl_seconds);
      return claim ? { claimed: true, ...told(claim, 'claim') } : { claimed: false, queue: args.queue };
    });
  }
  if (granted('heartbeat')) {
    leaseBearing.heartbeat = tools.register('heartbeat', heartbeatToolDescription(seconds), heartbeatArgsSchema, async (args) =>
      told(await claims.heartbeat(endpoint, args.todo_id, args.claim_epoch, args.lease_ttl_seconds), 'heartbeat'),
    );
  }
  if (granted('release')) {
    tools.register('release', RELEASE_TOOL_DESCRIPTION, releaseArgsSchema, (args) => claims.release(endpoint, args.todo_id, args.claim_epoch));
  }
  if (granted('complete')) {
    tools.register('complete', COMPLETE_TOOL_DESCRIPTION, completeArgsSchema, (args) => claims.complete(endpoint, args.todo_id, args.claim_epoch));
  }
  if (granted('get_default_lease')) {
    tools.register(
      'get_default_lease',
      "Read this endpoint's current effective default claim lease, whose it is, and the bounds. Takes no arguments.",
      z.object({}).strict(),
      () => claims.getDefaultLease(endpoint),
    );
  }
  if (granted('set_default_lease')) {
    tools.register(
      'set_default_lease',
      "Set this endpoint's own default claim lease: default_lease_ttl_seconds, whole seconds 60..86400, or null for the server default. Out of range is refused, never clamped. Affects only this endpoint; applies to the next claim, claim_next and bare heartbeat.",
      setDefaultLeaseArgsSchema,
      async (args) => {
        const updated = await claims.setDefaultLease(endpoint, args.default_lease_ttl_seconds);
        return claims.getDefaultLease(updated);
      },
    );
  }

  const reregister = (endpointDefaultSeconds: number | null) => {
    leaseBearing.claim?.update({ description: claimToolDescription(endpointDefaultSeconds) });
    leaseBearing.claim_next?.update({ description: claimNextToolDescription(endpointDefaultSeconds) });
    leaseBearing.heartbeat?.update({ description: heartbeatToolDescription(endpointDefaultSeconds) });
  };
  return { leaseBearing, reregister };
}
