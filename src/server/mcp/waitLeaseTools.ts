// The wait-lease verbs as MCP tools (src/core/verbs.ts WAIT_LEASE_VERBS), registered per
// session through McpGateway's `registrars` and only when the endpoint's scope grants them.
// An endpoint may hold a pid or a loopback provider-job URL; having the server run a command
// is reserved to the human API.
import { z } from 'zod';
import type { Verb } from '../../core/verbs.ts';
import {
  AcquireRequestSchema,
  HoldRequestSchema,
  PaneNameSchema,
  ReleaseRequestSchema,
  RenewRequestSchema,
  SessionIdSchema,
} from '../../core/waitLease/wire.ts';
import type { EndpointRecord } from '../claims/records.ts';
import type { WaitLeaseService } from '../waitLeases/waitLeaseService.ts';
import type { ToolRegistrar } from './sessionTools.ts';

const withSession = <Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) => schema.extend({ session_id: SessionIdSchema.optional() });

export function waitLeaseToolRegistrar(root: WaitLeaseService): ToolRegistrar {
  return (tools, endpoint: EndpointRecord) => {
    // An endpoint acts for its human: it reaches their panes and leases only (issue 9).
    const service = root.forHuman(endpoint.human_id);
    const granted = (verb: Verb) => endpoint.scope.includes(verb);
    const register = <Schema extends z.ZodObject>(name: Verb, description: string, schema: Schema, run: (args: z.infer<Schema>) => Promise<unknown>) =>
      tools.register(name, description, schema, run);

    if (granted('wait_lease_acquire')) {
      register(
        'wait_lease_acquire',
        'Declare that a terminal pane is waiting on a job: a time-boxed wait-lease beside the display state (never changing it). ttl_ms is mandatory; the server caps each grant at its hard max and at authorized_until. Returns lease_id and a token that every later write must present.',
        withSession(AcquireRequestSchema),
        ({ session_id: sessionId, ...request }) => service.acquire(request, { sessionId }),
      );
    }
    if (granted('wait_lease_renew')) {
      register(
        'wait_lease_renew',
        'Renew a wait-lease with its token and evidence about its own target: the pinned {pid, start_time} of a held lease (the server verifies the pid itself), or {provider_job: {id}} naming the lease\'s held provider job (the server observes it; your observed_at is not evidence). Any other process or job, or "still running", is refused with EVIDENCE_MISSING.',
        RenewRequestSchema,
        ({ lease_id: leaseId, ...body }) => service.renew(leaseId, body),
      );
    }
    if (granted('wait_lease_release')) {
      register('wait_lease_release', 'Release a wait-lease with its token. Give a reason: release is not completion.', ReleaseRequestSchema, (args) =>
        service.release(args.lease_id, args.token, args.reason),
      );
    }
    if (granted('wait_lease_hold')) {
      register(
        'wait_lease_hold',
        'Hand the renew loop to the server: it renews only while the target verifies (a pid with its start time, or a provider job polled at a loopback URL), releases when the target ends, and marks the lease degraded when it cannot verify.',
        withSession(HoldRequestSchema),
        ({ session_id: sessionId, ...request }) => service.hold(request, { sessionId, allowCommand: false }),
      );
    }
    if (granted('wait_lease_list')) {
      register(
        'wait_lease_list',
        'List wait-leases with remaining time, kind, observer and state (active, degraded, unknown, ended).',
        z.strictObject({
          pane: PaneNameSchema.optional(),
          state: z.enum(['active', 'degraded', 'unknown', 'ended']).optional(),
          session_id: SessionIdSchema.optional(),
        }),
        async (args) => ({ leases: await service.listLeases({ pane: args.pane, state: args.state, sessionId: args.session_id }) }),
      );
    }
    if (granted('pane_verdict')) {
      register(
        'pane_verdict',
        "A pane's verdict for consumers: display state, leases, reason codes and the disposition they demand. Quiet with no declared lease is UNKNOWN, not idle. Nothing here authorizes terminating anything.",
        z.strictObject({ pane: PaneNameSchema }),
        (args) => service.verdict(args.pane),
      );
    }
  };
}
