// The endpoint-facing claim verbs as MCP tools, registered per session and only when the
// endpoint's scope grants them. The three lease-bearing tools carry the endpoint's current
// default in their description and are re-registered when it changes.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import {
  claimNextToolDescription,
  claimToolDescription,
  heartbeatToolDescription,
} from '../../core/mcpText.ts';
import {
  claimArgsSchema,
  claimNextArgsSchema,
  completeArgsSchema,
  heartbeatArgsSchema,
  releaseArgsSchema,
  setDefaultLeaseArgsSchema,
} from '../../core/wire/claims.ts';
import type { Verb } from '../../core/verbs.ts';
import { LeaseholdError } from '../../core/errors.ts';
import { z as zod } from 'zod';
import type { ClaimService } from '../claims/claimService.ts';
import type { EndpointRecord } from '../claims/records.ts';

export function toolResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value as Record<string, unknown> };
}

export function toolError(error: unknown): CallToolResult {
  const body =
    error instanceof LeaseholdError
      ? error.toBody()
      : { error: { code: 'internal', message: (error as Error).message ?? String(error) } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as unknown as Record<string, unknown> };
}

export async function guarded(run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return toolResult(await run());
  } catch (error) {
    return toolError(error);
  }
}

export interface LeaseBearingTools {
  claim?: RegisteredTool;
  claim_next?: RegisteredTool;
  heartbeat?: RegisteredTool;
}

/** Registers the claim verbs the scope grants; returns the lease-bearing ones for re-registration. */
export function registerClaimTools(
  server: McpServer,
  endpoint: EndpointRecord,
  claims: ClaimService,
): { leaseBearing: LeaseBearingTools; reregister: (endpointDefaultSeconds: number | null) => void } {
  const granted = (verb: Verb) => endpoint.scope.includes(verb);
  const leaseBearing: LeaseBearingTools = {};
  const register = <Schema extends z.ZodObject>(name: Verb, description: string, schema: Schema, run: (args: z.infer<Schema>) => Promise<unknown>) =>
    server.registerTool(name, { description, inputSchema: schema }, ((args: z.infer<Schema>) => guarded(() => run(args))) as never);

  const seconds = endpoint.default_lease_ttl_seconds;
  if (granted('claim')) {
    leaseBearing.claim = register('claim', claimToolDescription(seconds), claimArgsSchema, (args) =>
      claims.claim(endpoint, args.todo_id, args.lease_ttl_seconds),
    );
  }
  if (granted('claim_next')) {
    leaseBearing.claim_next = register('claim_next', claimNextToolDescription(seconds), claimNextArgsSchema, async (args) => {
      const claim = await claims.claimNext(endpoint, args.queue, args.lease_ttl_seconds);
      return claim ? { claimed: true, ...claim } : { claimed: false, queue: args.queue };
    });
  }
  if (granted('heartbeat')) {
    leaseBearing.heartbeat = register('heartbeat', heartbeatToolDescription(seconds), heartbeatArgsSchema, (args) =>
      claims.heartbeat(endpoint, args.todo_id, args.claim_epoch, args.lease_ttl_seconds),
    );
  }
  if (granted('release')) {
    register('release', 'Release a claim you hold so another worker can take the todo now. Present its claim_epoch.', releaseArgsSchema, (args) =>
      claims.release(endpoint, args.todo_id, args.claim_epoch),
    );
  }
  if (granted('complete')) {
    register('complete', 'Mark a todo you hold as done. Present its claim_epoch; refused with lease_lapsed if you no longer hold it.', completeArgsSchema, (args) =>
      claims.complete(endpoint, args.todo_id, args.claim_epoch),
    );
  }
  if (granted('get_default_lease')) {
    register(
      'get_default_lease',
      "Read this endpoint's effective default claim lease, whose it is, and the bounds. Takes no arguments.",
      zod.object({}).strict(),
      () => claims.getDefaultLease(endpoint),
    );
  }
  if (granted('set_default_lease')) {
    register(
      'set_default_lease',
      "Set this endpoint's own default claim lease: default_lease_ttl_seconds, whole seconds 60..86400, or null for the server default. Out of range is refused, never clamped. Affects only this endpoint.",
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
